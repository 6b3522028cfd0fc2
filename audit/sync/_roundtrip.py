"""Two-way sync (``audit ls sync``): pull first, then push.

Pulling first means a verdict changed in Label Studio is recorded (and a
conflict noticed) before anything from the workbench could overwrite it.
"""
from __future__ import annotations

from dataclasses import dataclass

from audit.store import DbPath, connect
from audit.sync._client import open_session
from audit.sync._pull import PullSummary, pull_project
from audit.sync._push import DEFAULT_TIERS, PushSummary, push_tasks, push_verdicts
from audit.sync._remote import list_annotations
from audit.sync._state import find_project, touch


@dataclass
class SyncSummary:
    pull: PullSummary
    push: PushSummary


def ls_sync(benchmark: str | None = None, *, tiers=DEFAULT_TIERS, question_ids=None, url: str | None = None,
            api_key: str | None = None, project_id: int | None = None, batch_size: int = 500, db: DbPath = None,
            progress: bool | None = None, **queue_filters) -> SyncSummary:
    """Pull annotations, then push tasks (the selected items, or a refresh of
    the tasks already pushed when no benchmark is given; the selection takes
    the review queue's filters, see :func:`audit.sync.ls_push`) and workbench
    verdicts.  Safe to rerun at any time; a rerun after a crash converges.

    Example (needs a running server and ``ls_connect`` first)::

        ls_sync("tlue")
    """
    session = open_session(url, api_key)
    with connect(db, read_only=True) as con:
        project = find_project(con, session.url, project_id)
    pulled = pull_project(session, project, db=db)
    pushed = push_tasks(session, project, benchmark, tiers=tiers, question_ids=question_ids,
                        batch_size=batch_size, db=db, progress=progress, verdicts=True, **queue_filters)
    push_verdicts(session, project, db=db, progress=progress, summary=pushed,
                  remote=list_annotations(session, project.project_id))
    with connect(db) as con:
        touch(con, project, "last_push_at")
    return SyncSummary(pulled, pushed)
