"""Answer-key audit engine.

Layers, each importing only the ones before it:

* the kernel and vocabulary: ``errors``, ``vocab`` (stored codes),
  ``options`` (option labels), ``scripts``, ``i18n`` (every sentence people
  read), and the private ``_util``;
* ``store`` (the DuckDB file), ``accounts`` (who may do what), ``llm``
  (running models through litellm);
* the stages, in the data flow: ``ingest`` (importers, answer extraction)
  and ``predict`` (running models) → ``analyze`` (metrics, tiers, scenarios,
  the key-error score) → ``judge`` (LLM judges) → ``review`` (expert
  verdicts) → ``sync`` (Label Studio) → ``export`` (corrected answer-key
  versions);
* the top: ``report`` (the full report), ``auto`` (``import auto``),
  ``demo`` and ``cli``.

``__all__`` below is the public API a notebook needs, about forty names; every
other name lives in its stage (``audit.review.list_reviews``,
``audit.sync.ls_push``, ...).  The stages are imported lazily, on the first
use of one of their names, so ``audit --help`` starts without pandas,
DuckDB, SciPy or litellm.  No name here shadows a sub-package:
``audit.analyze`` is the analysis stage, its entry point is
:func:`analyze_benchmark`.

>>> import audit
>>> audit.normalize_label("ག")
'C'
>>> callable(audit.model_metrics), "model_metrics" in audit.__all__
(True, True)
>>> audit.analyze.__name__, audit.analyze_benchmark.__name__
('audit.analyze', 'analyze_benchmark')
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from audit._util.version import __version__
from audit.errors import AuditError, DatabaseLockedError, InputError, NotFoundError, PermissionDeniedError, SignInError
from audit.options import normalize_label
from audit.vocab import CAUSES, VERDICTS

#: Public name → the (public) package or module it comes from, imported on first use.
_API: dict[str, str] = {
    # the database
    "connect": "audit.store", "init_db": "audit.store", "DbPath": "audit.store",
    # ingest: questions, predictions, harness logs, model families; predict: running a model
    "import_questions": "audit.ingest", "import_predictions": "audit.ingest", "import_tlue": "audit.ingest",
    "import_auto": "audit.auto", "import_lm_eval": "audit.ingest", "import_models": "audit.ingest",
    "run_predict": "audit.predict",
    # analyze: tiers, metrics, scenarios, the report, agreement
    "analyze_benchmark": "audit.analyze", "tier_counts": "audit.analyze", "model_metrics": "audit.analyze",
    "scenario_table": "audit.analyze", "compare_models": "audit.analyze", "build_report": "audit.report",
    "cohen_kappa": "audit.analyze",
    # LLM judges (and the options shared with run_predict)
    "run_judge": "audit.judge", "import_judge": "audit.judge", "judge_bias": "audit.judge",
    "RunOptions": "audit.llm",
    # expert review
    "add_review": "audit.review", "import_reviews": "audit.review", "review_status": "audit.review",
    "settled_verdicts": "audit.review", "review_queue": "audit.review", "item_view": "audit.review",
    # Label Studio
    "ls_sync": "audit.sync",
    # corrected answer-key versions
    "create_version": "audit.export", "preview_version": "audit.export", "diff_versions": "audit.export",
    "corrected_key_accuracy": "audit.export",
}

__all__ = [
    "AuditError", "InputError", "NotFoundError", "PermissionDeniedError", "SignInError", "DatabaseLockedError",
    "VERDICTS", "CAUSES", "normalize_label",
    *_API,
]

#: Packages and modules reachable as attributes (``audit.review``), never shadowed.
_SUBPACKAGES = ("store", "accounts", "llm", "ingest", "predict", "analyze", "judge", "review", "sync", "export",
                "i18n", "report", "auto", "cli", "demo", "options", "scripts", "vocab", "errors")

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from audit.analyze import analyze_benchmark, cohen_kappa, compare_models, model_metrics, scenario_table, tier_counts
    from audit.auto import import_auto
    from audit.export import corrected_key_accuracy, create_version, diff_versions, preview_version
    from audit.ingest import import_lm_eval, import_models, import_predictions, import_questions, import_tlue
    from audit.judge import import_judge, judge_bias, run_judge
    from audit.llm import RunOptions
    from audit.predict import run_predict
    from audit.report import build_report
    from audit.review import add_review, import_reviews, item_view, review_queue, review_status, settled_verdicts
    from audit.store import DbPath, connect, init_db
    from audit.sync import ls_sync


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _SUBPACKAGES:
        return importlib.import_module(f"audit.{name}")
    home = _API.get(name)
    if home is not None:
        value = getattr(importlib.import_module(home), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'audit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))
