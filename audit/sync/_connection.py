"""Connecting a Label Studio project (``audit ls connect``) and reporting the
sync state (``audit ls status``)."""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from audit.accounts import require_role
from audit.options import MAX_OPTIONS, MIN_OPTIONS
from audit.store import DbPath, connect, transaction
from audit.sync._client import KEY_ENV, URL_ENV, Session, ls_errors, open_session
from audit.sync._config import HIDDEN_COLUMNS, labeling_config
from audit.sync._state import find_project, save_project

log = logging.getLogger("audit.sync")
DEFAULT_TITLE = "Answer-key audit"


@dataclass(frozen=True)
class ConnectSummary:
    url: str
    project_id: int
    title: str
    created: bool
    user: str
    n_options: int


def max_options(con, benchmark: str | None = None) -> int:
    """The largest option count among the items (of a benchmark), 2–10; 4 when empty."""
    n = con.execute(
        "SELECT max(len(options)) FROM questions WHERE ? IS NULL OR benchmark = ?", [benchmark, benchmark]
    ).fetchone()[0]
    return min(max(int(n or 4), MIN_OPTIONS), MAX_OPTIONS)


def ensure_config(session: Session, project_id: int, config: str) -> None:
    """Send ``config`` to the project when it differs from the one there."""
    with ls_errors(session.auth, f"reading project {project_id}"):
        current = session.client.projects.get(id=project_id).label_config
    if (current or "").strip() != config.strip():
        with ls_errors(session.auth, f"updating the labeling config of project {project_id}"):
            session.client.projects.update(id=project_id, label_config=config)


VIEW_TITLE = "Audit items"


def ensure_view(session: Session, project_id: int) -> None:
    """Give the project a Data Manager tab "Audit items" whose task list
    shows plain text (the ``text`` and ``source_text`` fields) and hides the
    columns holding markup or internals (``item_html``, hashes, ids)."""
    data = {"title": VIEW_TITLE, "hiddenColumns": {"explore": HIDDEN_COLUMNS, "labeling": HIDDEN_COLUMNS}}
    with ls_errors(session.auth, f"listing the task-list tabs of project {project_id}"):
        views = session.client.views.list(project=project_id)
    if any((getattr(v, "data", None) or {}).get("title") == VIEW_TITLE for v in views):
        return
    with ls_errors(session.auth, f"adding the task-list tab of project {project_id}"):
        session.client.views.create(project=project_id, data=data)


def ls_connect(url: str | None = None, api_key: str | None = None, *, title: str | None = None,
               project_id: int | None = None, benchmark: str | None = None, db: DbPath = None,
               actor: str | None = None) -> ConnectSummary:
    """Check the connection and create (or find) the project whose labeling
    config is generated from the items (enough option labels for the largest
    item of ``benchmark``, or of the whole database).  An existing project is
    taken by id, or by exact title; its config is brought up to date.  The
    project (URL + id, never the token) is recorded as the default for the
    other ``ls_*`` functions.  Changing the Label Studio settings is for
    admins: once the database has accounts, ``actor`` must be an admin
    (:func:`audit.accounts.require_role`).

    Example (needs a running server)::

        ls_connect("http://127.0.0.1:8080", title="TLUE review", benchmark="tlue")
    """
    with connect(db) as con:
        require_role(con, actor, "admin", "connecting a Label Studio project")
    session = open_session(url, api_key)
    with connect(db, read_only=False) as con:
        n_options = max_options(con, benchmark)
    config = labeling_config(n_options)
    client = session.client
    created = False
    if project_id is not None:
        with ls_errors(session.auth, f"reading project {project_id}"):
            project = client.projects.get(id=project_id)
        ensure_config(session, project.id, config)
    else:
        title = title or (f"{DEFAULT_TITLE}: {benchmark}" if benchmark else DEFAULT_TITLE)
        with ls_errors(session.auth, "listing projects"):
            found = [p for p in client.projects.list(title=title, page_size=100) if p.title == title]
        if found:
            project = min(found, key=lambda p: p.id)
            ensure_config(session, project.id, config)
        else:
            with ls_errors(session.auth, "creating the project"):
                project = client.projects.create(
                    title=title, label_config=config,
                    description="Items flagged by the answer-key audit; verdicts sync with the workbench.",
                    show_skip_button=True, maximum_annotations=10,
                )
            created = True
    ensure_view(session, int(project.id))
    with connect(db) as con, transaction(con):
        save_project(con, session.url, int(project.id), project.title, config)
    log.info("connected project %s (%s) at %s", project.id, project.title, session.url)
    return ConnectSummary(session.url, int(project.id), project.title, created, session.email, n_options)


@dataclass
class SyncStatus:
    """What this database knows about one connected project."""

    url: str | None
    project_id: int | None
    title: str | None
    token_set: bool
    tasks: int = 0
    tasks_pending: int = 0
    annotation_versions: int = 0
    reviews_pulled: int = 0
    verdicts_pushed: int = 0
    rejected: int = 0
    deletions: int = 0
    open_intents: int = 0
    open_conflicts: int = 0
    last_push_at: object = None
    last_pull_at: object = None
    remote_tasks: int | None = None
    remote_annotations: int | None = None
    projects: list = field(default_factory=list)


def ls_status(url: str | None = None, *, project_id: int | None = None, remote: bool = False,
              api_key: str | None = None, db: DbPath = None) -> SyncStatus:
    """Counts of the sync state of the connected project (the latest one for
    ``url`` / ``$LABEL_STUDIO_URL``, or the latest connected anywhere).  With
    ``remote=True`` also asks the server for its task and annotation counts."""
    url = (url or os.environ.get(URL_ENV) or "").rstrip("/") or None
    token_set = bool(api_key or os.environ.get(KEY_ENV))
    with connect(db, read_only=True) as con:
        projects = con.execute(
            "SELECT url, project_id, title, connected_at FROM ls_projects ORDER BY connected_at DESC"
        ).fetchall()
        if not projects:
            return SyncStatus(None, None, None, token_set)
        if url is None:
            url = projects[0][0]
        p = find_project(con, url, project_id)
        args = [p.url, p.project_id]
        q = lambda sql: con.execute(sql, args).fetchone()  # noqa: E731
        st = SyncStatus(p.url, p.project_id, p.title, token_set, projects=[tuple(r[:3]) for r in projects])
        st.tasks, st.tasks_pending = q(
            "SELECT count(*) FILTER (WHERE task_id IS NOT NULL), count(*) FILTER (WHERE state = 'pending') "
            "FROM ls_tasks WHERE url = ? AND project_id = ?")
        st.annotation_versions, st.reviews_pulled, st.verdicts_pushed, st.rejected = q(
            "SELECT count(*), count(*) FILTER (WHERE direction IN ('pulled', 'conflict')), "
            "count(*) FILTER (WHERE direction = 'pushed'), count(*) FILTER (WHERE direction = 'rejected') "
            "FROM ls_annotations WHERE url = ? AND project_id = ?")
        st.deletions = q("SELECT count(*) FROM ls_deletions WHERE url = ? AND project_id = ?")[0]
        st.open_intents = q("SELECT count(*) FROM ls_intents WHERE url = ? AND project_id = ?")[0]
        st.open_conflicts = q(
            "SELECT count(*) FROM review_conflicts v JOIN (SELECT DISTINCT benchmark, question_id, reviewer "
            "FROM ls_conflicts WHERE url = ? AND project_id = ?) c USING (benchmark, question_id, reviewer)")[0]
        st.last_push_at, st.last_pull_at = q(
            "SELECT last_push_at, last_pull_at FROM ls_projects WHERE url = ? AND project_id = ?")
    if remote:
        session = open_session(p.url, api_key)
        with ls_errors(session.auth, f"reading project {p.project_id}"):
            proj = session.client.projects.get(id=p.project_id)
        st.remote_tasks = getattr(proj, "task_number", None)
        st.remote_annotations = getattr(proj, "total_annotations_number", None)
    return st
