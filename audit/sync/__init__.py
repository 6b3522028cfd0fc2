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
from audit.sync._client import LabelStudioError
from audit.sync._config import labeling_config
from audit.sync._connection import ls_connect, ls_status
from audit.sync._pull import ls_pull
from audit.sync._push import ls_push
from audit.sync._rejected import ls_rejected
from audit.sync._roundtrip import ls_sync
from audit.sync._webhook import serve_webhook

__all__ = [
    "ls_connect", "ls_status", "ls_push", "ls_pull", "ls_sync", "ls_rejected", "serve_webhook", "labeling_config",
    "LabelStudioError",
]
