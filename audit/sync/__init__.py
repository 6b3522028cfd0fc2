"""Two-way Label Studio sync.

Connection from ``$LABEL_STUDIO_URL`` / ``$LABEL_STUDIO_API_KEY`` (or
arguments); the token never reaches the database, an export or a log line.
Modules: ``client`` (REST client, errors), ``config`` (labeling config, task
data), ``remote`` (bulk reads), ``connection`` (connect, status), ``plan``
(what a push must do: create, update or leave each task and annotation;
pure), ``push`` (applies the plan), ``pull``, ``rejected`` (annotations a
pull refused, with the reason), ``roundtrip`` (sync), ``state`` (DuckDB sync
state), ``users`` (reviewers ↔ Label Studio users), ``webhook``.
"""
from audit.sync._client import LabelStudioError, open_session, resolve_auth
from audit.sync._config import labeling_config
from audit.sync._connection import ConnectSummary, SyncStatus, ls_connect, ls_status
from audit.sync._pull import PullSummary, ls_pull
from audit.sync._push import PushSummary, ls_push
from audit.sync._rejected import ls_rejected
from audit.sync._roundtrip import SyncSummary, ls_sync
from audit.sync._webhook import serve_webhook

__all__ = [
    "LabelStudioError", "open_session", "resolve_auth", "labeling_config",
    "ConnectSummary", "SyncStatus", "ls_connect", "ls_status",
    "PullSummary", "ls_pull", "ls_rejected", "PushSummary", "ls_push", "SyncSummary", "ls_sync", "serve_webhook",
]
