"""Ingest: importers for every published format, answer extraction, model
families, and prediction sets read in place.  (:mod:`audit.auto` recognises
a file and calls the right importer; running models is :mod:`audit.predict`.)

The generic question and prediction files are this package's own modules;
the published formats are :mod:`audit.ingest.formats` (one module each) and
answer extraction is :mod:`audit.ingest.extract` (one module per method).
:mod:`audit.ingest.responses` is the contract through which stored raw
responses are read again.
"""
from audit.ingest._auto import FORMATS, Detection, detect, question_layout
from audit.ingest._in_place import InPlaceSummary, register_predictions_in_place
from audit.ingest._mapping import parse_map
from audit.ingest._models import import_models, infer_family, infer_provider, list_models, register_models, set_family
from audit.ingest._multi_answer import display_key
from audit.ingest._predictions import PredictionImportSummary, import_predictions
from audit.ingest._questions import QuestionImportSummary, import_questions
from audit.ingest._store import ensure_benchmark, item_flags, store_questions
from audit.ingest.extract import extract_answer, extract_answer_set, extract_answers
from audit.ingest.formats import (
    HarnessImportSummary,
    HelmImportSummary,
    MmluReduxImportSummary,
    OutputsImportSummary,
    ParallelImportSummary,
    ParsedItem,
    TlueImportSummary,
    import_helm,
    import_inspect,
    import_lm_eval,
    import_mmlu_redux,
    import_outputs,
    import_parallel,
    import_tlue,
    link_by_text,
    norm_text_sql,
    parse_tlue_item,
)

__all__ = [
    "import_models", "infer_family", "infer_provider", "list_models", "register_models", "set_family",
    "import_questions", "import_predictions", "import_helm", "import_mmlu_redux", "import_parallel",
    "QuestionImportSummary", "PredictionImportSummary", "HelmImportSummary", "MmluReduxImportSummary",
    "ParallelImportSummary", "extract_answer", "extract_answers", "extract_answer_set", "import_tlue",
    "parse_tlue_item", "TlueImportSummary", "ParsedItem", "detect", "Detection", "question_layout", "FORMATS",
    "import_lm_eval", "import_inspect", "HarnessImportSummary", "parse_map", "display_key", "import_outputs",
    "OutputsImportSummary", "link_by_text", "norm_text_sql", "ensure_benchmark", "item_flags", "store_questions",
    "InPlaceSummary", "register_predictions_in_place",
]
