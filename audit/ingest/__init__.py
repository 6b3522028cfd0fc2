"""Ingest: importers for every source format, answer extraction, model families."""
from audit.ingest._helm import HelmImportSummary, import_helm
from audit.ingest._mmlu_redux import MmluReduxImportSummary, import_mmlu_redux
from audit.ingest._models import import_models, infer_family, list_models, set_family
from audit.ingest._parallel import ParallelImportSummary, import_parallel
from audit.ingest._predictions import PredictionImportSummary, import_predictions
from audit.ingest._questions import QuestionImportSummary, import_questions
from audit.ingest._extract import extract_answer, extract_answers
from audit.ingest._tlue import ParsedItem, TlueImportSummary, import_tlue, parse_tlue_item
from audit.ingest._auto import AutoImport, Detection, detect, detect_and_import, import_auto
from audit.ingest._extract_multi import extract_answer_set
from audit.ingest._harness import HarnessImportSummary
from audit.ingest._inspect_log import import_inspect
from audit.ingest._lmeval import import_lm_eval
from audit.ingest._outputs import OutputsImportSummary, import_outputs
from audit.ingest._mapping import parse_map
from audit.ingest._multi_answer import display_key
from audit.ingest._store import ensure_benchmark, item_flags, store_questions
from audit.ingest._predict import PredictRunSummary, list_predict_runs, run_predict
from audit.ingest._reextract import extraction_methods, reextract
from audit.ingest._in_place import InPlaceSummary, register_predictions_in_place

__all__ = ["import_models", "infer_family", "list_models", "set_family",
           "import_questions", "import_predictions", "import_helm", "import_mmlu_redux", "import_parallel",
           "QuestionImportSummary", "PredictionImportSummary", "HelmImportSummary",
           "MmluReduxImportSummary", "ParallelImportSummary",
           "extract_answer", "extract_answers", "import_tlue", "parse_tlue_item", "TlueImportSummary", "ParsedItem",
           "detect", "import_auto", "Detection", "AutoImport", "detect_and_import", "import_lm_eval", "import_inspect", "HarnessImportSummary",
           "parse_map", "display_key", "extract_answer_set", "import_outputs", "OutputsImportSummary",
           # storing parsed questions (used by the demo and by other importers)
           "ensure_benchmark", "item_flags", "store_questions",
           # running a model on a benchmark, re-extracting its answers
           "PredictRunSummary", "list_predict_runs", "run_predict", "extraction_methods", "reextract",
           # prediction sets read in place (issue 24)
           "InPlaceSummary", "register_predictions_in_place"]

# --- re-exported for other stages (not in __all__); written by t13-privatise.py ---
from audit.ingest._models import infer_provider, register_models  # noqa: E402,F401
from audit.ingest._predict_prompt import load_predict_prompt  # noqa: E402,F401
from audit.ingest._auto import LATER_IMPORTERS  # noqa: E402,F401  (filled in by later stages: judge verdict files)
from audit.ingest._outputs import _norm_sql as norm_text_sql, link_by_text  # noqa: E402,F401
# --- end of re-exports ---
