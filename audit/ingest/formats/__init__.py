"""Importers of published formats, one module per external format.

* ``_tlue.py``: TLUE (Ti-MMLU) items, options recovered from the Tibetan text;
* ``_helm.py``: a HELM run folder (questions and the models' predictions);
* ``_mmlu_redux.py``: MMLU-Redux with its expert error annotations;
* ``_lm_eval.py``: lm-evaluation-harness ``--log_samples`` files;
* ``_inspect_log.py``: inspect-ai evaluation logs;
* ``_harness.py``: what the two harness importers share (questions, keys, writing);
* ``_outputs.py``: model outputs that carry their question, linked to the items by text;
* ``_parallel.py``: parallel-item links between two benchmarks (CMMLU ↔ TLUE).

The generic question and prediction files (CSV, JSONL, Parquet) are
:mod:`audit.ingest`'s own (``_questions.py``, ``_predictions.py``), and so
are result files that hold both (``_results.py``: MMLU-Pro's per-model files).
"""
from audit.ingest.formats._harness import HarnessImportSummary
from audit.ingest.formats._helm import HelmImportSummary, import_helm
from audit.ingest.formats._inspect_log import import_inspect
from audit.ingest.formats._lm_eval import import_lm_eval
from audit.ingest.formats._mmlu_redux import MmluReduxImportSummary, import_mmlu_redux
from audit.ingest.formats._outputs import OutputsImportSummary, import_outputs, link_by_text, norm_text_sql
from audit.ingest.formats._parallel import ParallelImportSummary, import_parallel
from audit.ingest.formats._tlue import ParsedItem, TlueImportSummary, import_tlue, parse_tlue_item

__all__ = [
    "import_tlue", "parse_tlue_item", "ParsedItem", "TlueImportSummary", "import_helm", "HelmImportSummary",
    "import_mmlu_redux", "MmluReduxImportSummary", "import_lm_eval", "import_inspect", "HarnessImportSummary",
    "import_outputs", "OutputsImportSummary", "link_by_text", "norm_text_sql", "import_parallel",
    "ParallelImportSummary",
]
