"""Sync state in DuckDB (tables of ``004_label_studio.sql``).

What has been sent and seen is recorded here so that every operation can be
rerun: tasks are found again by their external id, annotation versions by
(annotation id, updated-at), and remote writes are recorded as *intents*
(committed before the request) so a rerun after a crash adopts what the
killed process created instead of creating it twice.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

from audit.errors import NotFoundError


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass(frozen=True)
class Project:
    """A connected Label Studio project (as recorded in ``ls_projects``)."""

    url: str
    project_id: int
    title: str


def save_project(con, url: str, project_id: int, title: str, label_config: str) -> None:
    con.execute(
        "INSERT INTO ls_projects (url, project_id, title, label_config, connected_at) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (url, project_id) DO UPDATE SET title = excluded.title, "
        "label_config = excluded.label_config, connected_at = excluded.connected_at",
        [url, project_id, title, label_config, utc_now()],
    )


def find_project(con, url: str, project_id: int | None = None) -> Project:
    """The given project of ``url``, else the one connected last."""
    if project_id is not None:
        row = con.execute("SELECT url, project_id, title FROM ls_projects WHERE url = ? AND project_id = ?",
                          [url, project_id]).fetchone()
        if row is None:
            raise NotFoundError(f"project {project_id} at {url} is not connected; run 'audit ls connect' first")
    else:
        row = con.execute("SELECT url, project_id, title FROM ls_projects WHERE url = ? "
                          "ORDER BY connected_at DESC LIMIT 1", [url]).fetchone()
        if row is None:
            raise NotFoundError(f"no Label Studio project connected for {url}; run 'audit ls connect' first")
    return Project(*row)


def touch(con, project: Project, column: str) -> None:
    assert column in ("last_push_at", "last_pull_at")
    con.execute(f"UPDATE ls_projects SET {column} = ? WHERE url = ? AND project_id = ?",
                [utc_now(), project.url, project.project_id])


def _no_op(kind: str, done: int) -> None:
    return None


on_remote_write: Callable[[str, int], None] = _no_op
"""Called after each remote write of a push, before the write is recorded
here: ``(kind, done)``, kind ``tasks`` or ``annotations`` and ``done`` the
writes of that kind so far.  A no-op; the interrupted-sync tests replace it
with one that kills the process there, the worst moment to die."""
