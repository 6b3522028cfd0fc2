"""Ingest: getting questions and predictions in, from every published format.

The names below are the importers a notebook calls.  The other packages use
the public modules beside them: :mod:`audit.ingest.detection` (what a file
or folder holds), :mod:`audit.ingest.models` (model names, families,
providers), :mod:`audit.ingest.mapping` (field mappings such as
``--map SOURCE=TARGET``), :mod:`audit.ingest.storing` (writing parsed
questions), :mod:`audit.ingest.multi_answer` (keys that name several
options), :mod:`audit.ingest.responses` (stored responses, re-read by
:mod:`audit.predict`), and the sub-packages :mod:`audit.ingest.formats`
(one module per published format) and :mod:`audit.ingest.extract` (answer
extraction).  :mod:`audit.auto` recognises a file and calls the right
importer.
"""
from audit.ingest._in_place import register_predictions_in_place
from audit.ingest._predictions import import_predictions
from audit.ingest._questions import import_questions
from audit.ingest._results import import_results
from audit.ingest.detection import detect
from audit.ingest.formats import (
    import_helm,
    import_inspect,
    import_lm_eval,
    import_mmlu_redux,
    import_outputs,
    import_parallel,
    import_tlue,
)
from audit.ingest.models import import_models, list_models, set_family

__all__ = [
    "import_questions", "import_predictions", "import_tlue", "import_helm", "import_mmlu_redux", "import_lm_eval",
    "import_inspect", "import_outputs", "import_parallel", "import_models", "set_family", "list_models",
    "register_predictions_in_place", "detect", "import_results",
]
