"""Answer-key audit engine.

Data flow, one sub-package per stage: ``ingest`` (importers, answer
extraction) → ``store`` (DuckDB) → ``analyze`` (metrics, tiers, scenarios,
agreement) → ``judge`` (LLM judges) → ``review`` (expert verdicts) →
``sync`` (Label Studio) → ``export`` (corrected answer-key versions).

The public API is re-exported here; everything else is internal.
"""
from audit._version import __version__
from audit.errors import AuditError, DatabaseLockedError, InputError, NotFoundError
from audit.errors import PermissionDeniedError, SignInError
from audit.labels import LATIN_LABELS, TIBETAN_TO_LATIN, normalize_label
from audit.records import Model, Option, Prediction, Question, Review
from audit.store import connect, default_db_path, init_db, transaction
from audit.vocab import CAUSES, VERDICTS

from audit.ingest import *  # noqa: F401,F403
from audit.analyze import *  # noqa: F401,F403
from audit.judge import *  # noqa: F401,F403
from audit.review import *  # noqa: F401,F403
from audit.sync import *  # noqa: F401,F403
from audit.export import *  # noqa: F401,F403
