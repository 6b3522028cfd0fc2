"""Answer-key audit engine.

Data flow, one sub-package per stage: ``ingest`` (importers, answer
extraction) → ``store`` (DuckDB) → ``analyze`` (metrics, tiers, scenarios,
agreement) → ``judge`` (LLM judges) → ``review`` (expert verdicts) →
``sync`` (Label Studio) → ``export`` (corrected answer-key versions).

The public API is re-exported here; everything else is internal.  The
stages are imported lazily, on the first use of one of their names (so
``audit --help`` starts without pandas, DuckDB, SciPy or litellm); when two
stages export the same name, the later stage's wins, as with the star
imports this module used to make.

>>> import audit
>>> audit.normalize_label("ག")
'C'
>>> callable(audit.model_metrics), "model_metrics" in audit.__all__
(True, True)
"""
from __future__ import annotations

import importlib
from typing import Any

from audit._version import __version__
from audit.errors import AuditError, DatabaseLockedError, InputError, NotFoundError
from audit.errors import PermissionDeniedError, SignInError
from audit.labels import LATIN_LABELS, TIBETAN_TO_LATIN, normalize_label
from audit.records import Model, Option, Prediction, Question, Review
from audit.vocab import CAUSES, VERDICTS

#: Stages whose ``__all__`` is re-exported, in data-flow order (later wins).
_STAGES = ("store", "ingest", "analyze", "judge", "review", "sync", "export")
#: Names re-exported from ``audit.store`` (its other names stay there).
_STORE_NAMES = ("connect", "default_db_path", "init_db", "transaction")
_EAGER = ["__version__", "AuditError", "DatabaseLockedError", "InputError", "NotFoundError", "LATIN_LABELS",
          "TIBETAN_TO_LATIN", "normalize_label", "Model", "Option", "Prediction", "Question", "Review",
          "CAUSES", "VERDICTS"]
_loaded: list[str] | None = None


def _load_all() -> list[str]:
    """Import every stage and bind its public names here (once)."""
    global _loaded
    if _loaded is None:
        g = globals()
        names = list(_EAGER)
        for stage in _STAGES:
            mod = importlib.import_module(f"audit.{stage}")
            public = _STORE_NAMES if stage == "store" else tuple(getattr(mod, "__all__", ()))
            for name in public:
                g[name] = getattr(mod, name)
                if name not in names:
                    names.append(name)
        _loaded = names
    return _loaded


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return _load_all()
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _STAGES or name in ("cli", "demo"):
        return importlib.import_module(f"audit.{name}")
    _load_all()
    try:
        return globals()[name]
    except KeyError:
        raise AttributeError(f"module 'audit' has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_load_all()) | set(_STAGES))
