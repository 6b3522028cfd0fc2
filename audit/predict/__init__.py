"""Predict: running a model on a benchmark through litellm (``audit predict``)
and reading stored responses again with another extraction method
(``audit predictions``).

Replies are stored as predictions, their letters extracted with
:mod:`audit.ingest.extract`; the model names are registered and the stored
responses read and written back through :mod:`audit.ingest` (predict comes
after ingest: ingest never imports it).  The runner (concurrency, backoff,
cost cap) is :mod:`audit.llm`'s.
"""
from audit.predict._prompt import load_predict_prompt
from audit.predict._reextract import extraction_methods, reextract
from audit.predict._run import list_predict_runs, run_predict

__all__ = [
    "run_predict", "list_predict_runs", "reextract", "extraction_methods", "load_predict_prompt",
]
