"""Reading a project's tasks and annotations from Label Studio in bulk.

Tasks are found by their external id in the task data through a Data
Manager filter (``filter:tasks:data.audit_benchmark`` / ``data.audit_id``),
in pages of 1,000.  Annotations come from the project's synchronous JSON
export of annotated tasks (one request with ids, users, results and
updated-at times; the task list with ``fields=all`` is several times slower).
"""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pandas as pd

from audit._util.files import nfc
from audit.sync._client import LabelStudioError, Session, ls_errors
from audit.sync._config import parse_result, verdict_hash

PAGE_SIZE = 1000
ANNOTATION_COLUMNS = [
    "annotation_id", "updated_at", "task_id", "benchmark", "question_id", "ls_user_id", "was_cancelled",
    "verdict", "corrected_answer", "cause", "rationale", "proposed_fix", "content_hash", "author_id",
]
EDIT_GRACE_SECONDS = 1.0


def _user_id(value) -> int | None:
    if isinstance(value, dict):
        value = value.get("id")
    return int(value) if value is not None else None


def version_author(annotation: dict) -> int:
    """Who made this version of an annotation: its owner (``completed_by``),
    unless another user saved it later (``updated_by`` differs and the
    version is not the creation itself — an annotation created through the
    API for a reviewer carries the API user as ``updated_by`` from the
    start).  -1 when unknown.

    >>> version_author({"completed_by": 2, "updated_by": 1, "created_at": "2026-01-01T00:00:00Z",
    ...                 "updated_at": "2026-01-01T00:00:00.0001Z"})
    2
    >>> version_author({"completed_by": 2, "updated_by": 1, "created_at": "2026-01-01T00:00:00Z",
    ...                 "updated_at": "2026-01-01T00:05:00Z"})
    1
    """
    owner = _user_id(annotation.get("completed_by"))
    editor = _user_id(annotation.get("updated_by"))
    if editor is None or editor == owner or not annotation.get("created_at"):
        return owner if owner is not None else -1
    created = datetime.fromisoformat(str(annotation["created_at"]).replace("Z", "+00:00"))
    updated = datetime.fromisoformat(str(annotation["updated_at"]).replace("Z", "+00:00"))
    return editor if (updated - created).total_seconds() > EDIT_GRACE_SECONDS else (owner if owner is not None else -1)


def norm_ts(value) -> str:
    """A Label Studio time (ISO string or datetime) as a canonical UTC string,
    the identity of an annotation version.

    >>> norm_ts("2026-11-21T19:36:51.098363Z"), norm_ts("2026-11-21T19:36:51Z")
    ('2026-11-21T19:36:51.098363Z', '2026-11-21T19:36:51.000000Z')
    """
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _filter(items: list[dict], conjunction: str = "and") -> str:
    return json.dumps({"filters": {"conjunction": conjunction, "items": items}})


def data_filter(field: str, value) -> dict:
    """A Data Manager filter item ``data.<field> == value``."""
    return {"filter": f"filter:tasks:data.{field}", "operator": "equal", "type": "String", "value": value}


def list_tasks(session: Session, project_id: int, *, benchmark: str | None = None,
               external_id: str | None = None) -> pd.DataFrame:
    """The project's audit tasks (optionally of one benchmark or one external
    id): columns ``task_id, external_id, benchmark, question_id, audit_hash``."""
    items = []
    if benchmark is not None:
        items.append(data_filter("audit_benchmark", benchmark))
    if external_id is not None:
        items.append(data_filter("audit_id", external_id))
    rows = []
    with ls_errors(session.auth, f"listing the tasks of project {project_id}"):
        pager = session.client.tasks.list(project=project_id, fields="task_only", page_size=PAGE_SIZE,
                                          query=_filter(items) if items else None)
        for t in pager:
            d = t.data or {}
            if "audit_id" not in d:
                continue
            rows.append((int(t.id), d.get("audit_id"), d.get("audit_benchmark"), nfc(d.get("question_id")),
                         d.get("audit_hash")))
    return pd.DataFrame(rows, columns=["task_id", "external_id", "benchmark", "question_id", "audit_hash"])


def list_annotations(session: Session, project_id: int) -> pd.DataFrame:
    """Every annotation of the project's audit tasks, parsed into verdict
    fields (columns ``ANNOTATION_COLUMNS``; ``ls_user_id`` is the owner,
    ``author_id`` who made this version, see :func:`version_author`).  Read with the synchronous JSON
    export of the annotated tasks (one request; much faster than the task
    list with ``fields=all``)."""
    listed_at = datetime.now(timezone.utc).replace(tzinfo=None)
    with ls_errors(session.auth, f"exporting the annotations of project {project_id}"):
        raw = b"".join(session.client.projects.exports.download_sync(
            id=project_id, export_type="JSON", download_all_tasks=False))
    try:
        exported = json.loads(raw or b"[]")
    except ValueError:
        raise LabelStudioError(f"Label Studio at {session.url} sent an export that is not JSON "
                               f"(project {project_id})") from None
    rows = []
    for t in exported:
        d = t.get("data") or {}
        if "audit_id" not in d:
            continue
        for a in t.get("annotations") or []:
            v = parse_result(a.get("result"))
            cancelled = bool(a.get("was_cancelled"))
            if cancelled and v["verdict"] is None:
                v["verdict"] = "skip"
            user = a.get("completed_by")
            if isinstance(user, dict):
                user = user.get("id")
            rows.append((
                int(a["id"]), norm_ts(a["updated_at"]), int(t["id"]), d.get("audit_benchmark"),
                nfc(d.get("question_id")), int(user) if user is not None else -1, cancelled,
                v["verdict"], v["corrected_answer"], v["cause"], v["rationale"], v["proposed_fix"],
                verdict_hash(v["verdict"], v["corrected_answer"], v["cause"], v["rationale"], v["proposed_fix"]),
                version_author(a),
            ))
    df = pd.DataFrame(rows, columns=ANNOTATION_COLUMNS)
    df.attrs["listed_at"] = listed_at   # intents older than this are settled by this listing
    return df


def list_users(session: Session) -> pd.DataFrame:
    """Users of the server: ``ls_user_id, email``."""
    with ls_errors(session.auth, "listing users"):
        users = session.client.users.list()
    return pd.DataFrame([(int(u.id), str(u.email or "")) for u in users], columns=["ls_user_id", "email"])
