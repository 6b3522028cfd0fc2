"""Push: items → Label Studio tasks, workbench verdicts → annotations.

Tasks carry the stable external id ``data.audit_id = '<benchmark>::<question_id>'``
and a content hash ``data.audit_hash``.  A push lists the project's tasks of
the benchmark through a Data Manager filter on ``data.audit_benchmark`` and
then imports only the missing ones (bulk import, ``batch_size`` tasks per
request) and updates only the changed ones, so pushing twice creates nothing
and a push killed halfway converges when rerun.

Verdicts on items whose task is new travel inside the task import (bulk:
one request per batch of tasks, not one per annotation — Label Studio 1.23's
open-source API has no bulk call for annotations on existing tasks, see
``tests/bench/bench_ls_push_verdicts.py`` for the figures).

Verdicts: the latest review of each (item, reviewer) made outside Label
Studio and newer than what was last synced becomes that reviewer's
annotation on the task (created, or updated when the reviewer already has
one).  Each remote write is recorded as an intent first; a rerun adopts what
a killed process created.  An annotation changed in Label Studio since the
last sync is never overwritten: that is left to ``pull`` (which records the
conflict).

What to create, update or leave alone is decided by :mod:`audit.sync._plan`
from what the push is about to send and what the server holds, without the
server or the database; this module reads those inputs, applies the plan and
records what it did.
"""
from __future__ import annotations

import logging
import re
import sys
import zlib
from dataclasses import dataclass

import pandas as pd
from tqdm import tqdm

from audit._util.sql import unregister
from audit.errors import InputError, NotFoundError
from audit.i18n import LANGUAGES, messages
from audit.review import review_queue
from audit.review.blind import blind_review_from, withhold_task_evidence
from audit.review.reasons import evidence_reasons_many, render_reason
from audit.store import DbPath, connect, transaction
from audit.sync import _state
from audit.sync._client import Session, ls_errors, open_session
from audit.sync._config import external_id, task_data, verdict_hash, verdict_result
from audit.sync._connection import ensure_config
from audit.sync._plan import config_to_install, plan_annotations, plan_tasks
from audit.sync._remote import list_annotations, list_tasks, list_users, norm_ts
from audit.sync._state import Project, find_project, touch, utc_now
from audit.sync._users import relink_users, resolve_users

log = logging.getLogger("audit.sync")
DEFAULT_TIERS = (1, 2)


@dataclass
class PushSummary:
    """Counts of one push."""

    project_id: int
    selected: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0          # audit ids found on more than one remote task (the lowest id is used)
    annotations_created: int = 0
    annotations_updated: int = 0
    annotations_adopted: int = 0  # written by an interrupted run, recognised now
    skipped_changed_remotely: int = 0  # left for pull (possible conflict)
    users_created: int = 0
    relinked: int = 0            # Label Studio user ids that now name another account (e.g. after a restore)
    annotations_in_import: int = 0     # of annotations_created: sent inside the task import (bulk)


def _progress(total: int, desc: str, enabled: bool | None):
    return tqdm(total=total, desc=desc, unit="task", file=sys.stderr,
                disable=not (sys.stderr.isatty() if enabled is None else enabled))


def select_items(db: DbPath, project: Project, benchmark: str | None, *, tiers=DEFAULT_TIERS, question_ids=None,
                 **queue_filters) -> pd.DataFrame:
    """Which items to push: ``question_ids`` of ``benchmark``; else the
    review queue's selection (:func:`audit.review.review_queue` with
    ``tiers`` — default Tier 1–2, ``None`` = every item — and any of its
    filters: ``subjects``, ``status``, ``reviewer``, ``structure_suspect``,
    ``parallel_mismatch``); with no benchmark, the items already pushed to
    the project (a refresh).  Columns ``benchmark, question_id``."""
    with connect(db, read_only=True) as con:
        if benchmark is None:
            return con.execute("SELECT benchmark, question_id FROM ls_tasks WHERE url = ? AND project_id = ? "
                               "ORDER BY benchmark, question_id", [project.url, project.project_id]).df()
        if not con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchone()[0]:
            raise NotFoundError(f"unknown benchmark '{benchmark}'")
        if question_ids is not None:
            ids = [str(q) for q in question_ids]
            df = con.execute("SELECT benchmark, question_id FROM questions WHERE benchmark = ? "
                             "AND question_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY seq", [benchmark, ids]).df()
            missing = sorted(set(ids) - set(df["question_id"]))
            if missing:
                raise InputError(f"unknown question(s) in benchmark '{benchmark}': {', '.join(missing[:5])}")
            return df
    queue = review_queue(benchmark, tiers=None if tiers is None else tuple(int(t) for t in tiers),
                         db=db, **queue_filters)
    return pd.DataFrame({"benchmark": benchmark, "question_id": queue["question_id"].astype(str)})


_ITEMS_SQL = """
WITH sel AS (SELECT unnest($benchmarks::VARCHAR[]) AS benchmark, unnest($ids::VARCHAR[]) AS question_id),
pred AS (
    SELECT p.benchmark, p.question_id, coalesce(m.family, 'unknown') AS family,
           CASE WHEN p.valid THEN p.answer END AS answer, p.model
    FROM all_predictions p JOIN sel USING (benchmark, question_id)
    LEFT JOIN models m ON m.name = p.model
),
by_answer AS (
    SELECT benchmark, question_id, family, answer, count(*) AS n, list(DISTINCT model ORDER BY model) AS models
    FROM pred GROUP BY ALL
),
by_family AS (
    SELECT benchmark, question_id, family,
           list({'answer': answer, 'n': n, 'models': models} ORDER BY n DESC, answer NULLS LAST) AS answers
    FROM by_answer GROUP BY ALL
),
fams AS (
    SELECT benchmark, question_id, list({'family': family, 'answers': answers} ORDER BY family) AS families
    FROM by_family GROUP BY ALL
),
par AS (      -- the parallel source items (e.g. the CMMLU question a TLUE item was translated from)
    SELECT p.benchmark, p.question_id,
           list({'source': p.counterpart_source, 'id': p.counterpart_id, 'language': p.counterpart_language,
                 'stem': p.counterpart_stem, 'options': p.counterpart_options, 'key': p.counterpart_key,
                 'key_match': p.key_match} ORDER BY p.counterpart_source) AS parallels
    FROM parallel_links p JOIN sel USING (benchmark, question_id)
    GROUP BY ALL
)
SELECT q.benchmark, q.question_id, q.subject, q.language, q.script, q.stem, q.options, q.answer_key,
       a.tier, f.families, pa.parallels, q.context, q.option_scripts
FROM questions q
JOIN sel USING (benchmark, question_id)
LEFT JOIN current_audit a ON a.benchmark = q.benchmark AND a.question_id = q.question_id
LEFT JOIN fams f ON f.benchmark = q.benchmark AND f.question_id = q.question_id
LEFT JOIN par pa ON pa.benchmark = q.benchmark AND pa.question_id = q.question_id
ORDER BY q.benchmark, q.seq, q.question_id
"""


def build_tasks(con, selection: pd.DataFrame, evidence: dict | None = None) -> list[dict]:
    """Task data of the selected items (stem, options, key, tier, models'
    answers by family, parallel source items; the question alone while the
    campaign is evidence-blind, :mod:`audit.review.blind`), computed in one query;
    ``evidence``: (benchmark, question_id) → (heading, sentences), from
    :func:`task_evidence`."""
    blind = blind_review_from(con)   # an evidence-blind campaign: the tasks carry the question alone
    cur = con.execute(_ITEMS_SQL, {"benchmarks": [str(b) for b in selection["benchmark"]],
                                   "ids": [str(q) for q in selection["question_id"]]})
    cols = [c[0] for c in cur.description]
    out = []
    for row in cur.fetchall():
        item = dict(zip(cols, row))
        ev = (evidence or {}).get((item["benchmark"], item["question_id"]))
        if ev:
            item["evidence_heading"], item["evidence"] = ev
        out.append(task_data(withhold_task_evidence(item) if blind else item))
    return out


def evidence_words(language: str) -> dict[str, str]:
    """The catalogue the workbench's item page renders its evidence with
    (:mod:`audit.i18n`: ``en``, ``zh-Hans``, ``bo``), so a task says
    exactly what the item page says; an unknown language is an input error.

    >>> evidence_words("bo")["item.why_here"] != evidence_words("en")["item.why_here"]
    True
    """
    if language not in LANGUAGES:
        raise InputError(f"unknown language '{language}' for the tasks' evidence (one of: {', '.join(LANGUAGES)})")
    return messages(language)


def task_evidence(db: DbPath, selection: pd.DataFrame, language: str = "en") -> dict:
    """(benchmark, question_id) → (heading, sentences): "why this item is
    here" in plain words, as the item page shows it —
    :func:`audit.review.reasons.evidence_reasons_many` rendered by
    :func:`audit.review.reasons.render_reason` in ``language`` (small rounded
    numbers, never a raw ratio or "100%")."""
    words = evidence_words(language)
    heading = words.get("item.why_here") or "Why this item is here"
    out: dict = {}
    for bench, ids in selection.groupby("benchmark")["question_id"]:
        for qid, reasons in evidence_reasons_many(str(bench), ids.astype(str).tolist(), db=db).items():
            if reasons:
                out[(str(bench), qid)] = (heading, [render_reason(k, p, words) for k, p in reasons])
    return out


def _synced(task_id, task: dict) -> tuple:
    """The ls_tasks row of a task now on the server (see :func:`_record_tasks`)."""
    return task["audit_id"], task["audit_benchmark"], task["question_id"], int(task_id), task["audit_hash"]


def _record_tasks(db: DbPath, project: Project, rows: list[tuple]) -> None:
    """rows: (external_id, benchmark, question_id, task_id, content_hash) now synced."""
    if not rows:
        return
    df = pd.DataFrame(rows, columns=["external_id", "benchmark", "question_id", "task_id", "content_hash"])
    with connect(db) as con, transaction(con):
        con.register("_done", df)
        con.execute(
            "INSERT INTO ls_tasks (url, project_id, external_id, benchmark, question_id, task_id, content_hash, "
            "state, updated_at) SELECT ?, ?, external_id, benchmark, question_id, task_id, content_hash, 'synced', ? "
            "FROM _done ON CONFLICT (url, project_id, external_id) DO UPDATE SET task_id = excluded.task_id, "
            "content_hash = excluded.content_hash, state = 'synced', updated_at = excluded.updated_at",
            [project.url, project.project_id, utc_now()])
        unregister(con, "_done")


_NEW_TASK_VERDICTS_SQL = """
SELECT r.review_id, r.benchmark, r.question_id, r.reviewer, r.verdict, r.corrected_answer, r.cause,
       r.rationale, r.proposed_fix
FROM reviews r
WHERE r.source <> 'label_studio'
  AND (r.benchmark || '::' || r.question_id) IN (SELECT unnest($ext::VARCHAR[]))
  AND NOT EXISTS (SELECT 1 FROM review_conflicts c WHERE c.benchmark = r.benchmark
                  AND c.question_id = r.question_id AND c.reviewer = r.reviewer)
QUALIFY row_number() OVER (PARTITION BY r.benchmark, r.question_id, r.reviewer ORDER BY r.review_id DESC) = 1
ORDER BY r.review_id
"""


def _annotations_for_new_tasks(session: Session, project: Project, db: DbPath, tasks: list[dict],
                               s: PushSummary) -> dict[str, list[tuple]]:
    """external id → [(annotation dict, review_id, ls_user_id, content hash)] of
    the verdicts to send inside the import of new tasks (bulk: one request
    per batch of tasks instead of one per annotation)."""
    if not tasks:
        return {}
    with connect(db, read_only=True) as con:
        cands = con.execute(_NEW_TASK_VERDICTS_SQL, {"ext": [t["audit_id"] for t in tasks]}).df()
    if cands.empty:
        return {}
    uids = _user_ids(session, db, sorted(set(cands["reviewer"])), s)
    out: dict[str, list[tuple]] = {}
    for c in cands.itertuples(index=False):
        vals = _verdict_fields(c)
        uid = uids[c.reviewer]
        out.setdefault(external_id(c.benchmark, c.question_id), []).append(
            ({"result": verdict_result(*vals), "completed_by": uid}, int(c.review_id), uid, verdict_hash(*vals)))
    return out


def push_tasks(session: Session, project: Project, benchmark: str | None, *, tiers=DEFAULT_TIERS,
               question_ids=None, batch_size: int = 500, db: DbPath = None, progress: bool | None = None,
               summary: PushSummary | None = None, verdicts: bool = False, language: str = "en",
               **queue_filters) -> PushSummary:
    """Create or update the tasks of the selected items (see module doc).
    With ``verdicts``, new tasks are imported together with the workbench
    verdicts on them as annotations (one request per batch); intents are
    recorded right after, and :func:`push_verdicts` adopts them.  Each task
    carries the item page's "why this item is here" in ``language``
    (:func:`task_evidence`)."""
    s = summary or PushSummary(project.project_id)
    selection = select_items(db, project, benchmark, tiers=tiers, question_ids=question_ids, **queue_filters)
    evidence = task_evidence(db, selection, language)
    with connect(db) as con:
        tasks = build_tasks(con, selection, evidence)
        s.selected = len(tasks)
        if not tasks:
            return s
        # Intent: what this push is about to send (task_id stays as known).
        intent = pd.DataFrame([(t["audit_id"], t["audit_benchmark"], t["question_id"], t["audit_hash"])
                               for t in tasks], columns=["external_id", "benchmark", "question_id", "content_hash"])
        with transaction(con):
            con.register("_intent", intent)
            con.execute(
                "INSERT INTO ls_tasks (url, project_id, external_id, benchmark, question_id, task_id, content_hash, "
                "state, updated_at) SELECT ?, ?, external_id, benchmark, question_id, NULL, content_hash, 'pending', ? "
                "FROM _intent WHERE true ON CONFLICT (url, project_id, external_id) DO UPDATE SET "
                "content_hash = excluded.content_hash, updated_at = excluded.updated_at, "
                "state = CASE WHEN ls_tasks.content_hash = excluded.content_hash AND ls_tasks.task_id IS NOT NULL "
                "THEN ls_tasks.state ELSE 'pending' END",
                [project.url, project.project_id, utc_now()])
            unregister(con, "_intent")
    # The labeling config must offer every option label of the pushed items.
    with connect(db, read_only=True) as con:
        have = con.execute("SELECT label_config FROM ls_projects WHERE url = ? AND project_id = ?",
                           [project.url, project.project_id]).fetchone()[0]
    cfg = config_to_install(tasks, have)
    if cfg is not None:
        ensure_config(session, project.project_id, cfg)
        with connect(db) as con:
            con.execute("UPDATE ls_projects SET label_config = ? WHERE url = ? AND project_id = ?",
                        [cfg, project.url, project.project_id])

    # Reconcile with what the server has (the remote is authoritative for existence).
    remote = pd.concat([list_tasks(session, project.project_id, benchmark=b)
                        for b in sorted({t["audit_benchmark"] for t in tasks})], ignore_index=True)
    plan = plan_tasks(tasks, remote)
    s.duplicates += plan.duplicates
    _record_tasks(db, project, [_synced(tid, t) for tid, t in plan.unchanged])
    s.unchanged += len(plan.unchanged)

    bar = _progress(len(plan.create) + len(plan.update), "push tasks", progress)
    done = 0
    with_anns = _annotations_for_new_tasks(session, project, db, plan.create, s) if verdicts else {}
    for i in range(0, len(plan.create), batch_size):
        batch = plan.create[i:i + batch_size]
        request = [{"data": t, **({"annotations": [a for a, _, _, _ in with_anns[t["audit_id"]]]}
                                  if t["audit_id"] in with_anns else {})} for t in batch]
        with ls_errors(session.auth, f"importing tasks into project {project.project_id}"):
            res = session.client.projects.import_tasks(project.project_id, request=request,
                                                       return_task_ids=True)
        ids = list(res.task_ids or [])
        done += len(batch)
        _state.on_remote_write("tasks", done)
        if len(ids) != len(batch):  # should not happen; map by external id instead of order
            got = list_tasks(session, project.project_id).sort_values("task_id").drop_duplicates("external_id")
            ids_by_ext = dict(zip(got["external_id"], got["task_id"]))
            ids = [ids_by_ext[t["audit_id"]] for t in batch]
        _record_tasks(db, project, [_synced(tid, t) for t, tid in zip(batch, ids)])
        intents = [(project.url, project.project_id, int(tid), uid, None, rid, h, utc_now())
                   for t, tid in zip(batch, ids) for _, rid, uid, h in with_anns.get(t["audit_id"], ())]
        if intents:   # adopted by push_verdicts (or the next pull) from the listing that follows
            with connect(db) as con, transaction(con):
                con.executemany(
                    "INSERT INTO ls_intents (url, project_id, task_id, ls_user_id, annotation_id, review_id, "
                    "content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", intents)
            s.annotations_created += len(intents)
            s.annotations_in_import += len(intents)
        s.created += len(batch)
        bar.update(len(batch))
    pending = []
    for task_id, t in plan.update:
        with ls_errors(session.auth, f"updating task {task_id}"):
            session.client.tasks.update(id=str(task_id), data=t)
        done += 1
        _state.on_remote_write("tasks", done)
        pending.append(_synced(task_id, t))
        if len(pending) >= batch_size:
            _record_tasks(db, project, pending)
            pending = []
        s.updated += 1
        bar.update(1)
    _record_tasks(db, project, pending)
    bar.close()
    log.info("pushed tasks to project %s: %s created, %s updated, %s unchanged",
             project.project_id, s.created, s.updated, s.unchanged)
    return s


# --- verdicts → annotations -------------------------------------------------

def reviewer_email(reviewer: str) -> str:
    """The Label Studio account email of a workbench reviewer: the name itself
    when it is an email, else a stable placeholder address.

    >>> reviewer_email("dolma@example.org"), reviewer_email("Tenzin Dolma")
    ('dolma@example.org', 'tenzin-dolma@reviewers.audit.invalid')
    """
    r = reviewer.strip()
    if re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", r):
        return r.lower()
    slug = re.sub(r"[^a-z0-9]+", "-", r.lower()).strip("-")
    if slug.replace("-", " ") != " ".join(r.lower().split()):  # non-ASCII or punctuation: keep names apart
        slug = f"{slug or 'reviewer'}-{zlib.crc32(r.encode('utf-8')):08x}"
    return f"{slug}@reviewers.audit.invalid"


def adopt_intents(con, project: Project, remote: pd.DataFrame, before) -> int:
    """Recognise annotations an interrupted run created or updated (same task,
    user and content as a recorded intent, version not yet known): record them
    as pushed.  Then drop every intent (the rest never reached the server and
    are recomputed).  Only intents recorded ``before`` the remote listing
    was read are considered.  Returns the number adopted."""
    con.register("_remote", remote)
    try:
        got = con.execute(
            """
            INSERT INTO ls_annotations (url, project_id, annotation_id, updated_at, task_id, benchmark, question_id,
                                        ls_user_id, reviewer, direction, review_id, content_hash, recorded_at)
            SELECT DISTINCT ON (r.annotation_id, r.updated_at) i.url, i.project_id, r.annotation_id, r.updated_at,
                   r.task_id, rv.benchmark, rv.question_id, r.ls_user_id, rv.reviewer, 'pushed', i.review_id,
                   i.content_hash, ?
            FROM ls_intents i
            JOIN _remote r ON r.task_id = i.task_id AND r.ls_user_id = i.ls_user_id AND r.content_hash = i.content_hash
                          AND (i.annotation_id IS NULL OR i.annotation_id = r.annotation_id)
            JOIN reviews rv ON rv.review_id = i.review_id
            WHERE i.url = ? AND i.project_id = ? AND i.created_at <= ?
              AND NOT EXISTS (SELECT 1 FROM ls_annotations k WHERE k.url = i.url AND k.project_id = i.project_id
                              AND k.annotation_id = r.annotation_id AND k.updated_at = r.updated_at)
            ORDER BY r.annotation_id, r.updated_at, i.review_id DESC
            RETURNING annotation_id
            """, [utc_now(), project.url, project.project_id, before]).fetchall()
        con.execute("DELETE FROM ls_intents WHERE url = ? AND project_id = ? AND created_at <= ?",
                    [project.url, project.project_id, before])
    finally:
        unregister(con, "_remote")
    return len(got)


_CANDIDATES_SQL = """
WITH t AS (
    SELECT benchmark, question_id, task_id FROM ls_tasks
    WHERE url = $url AND project_id = $pid AND task_id IS NOT NULL
),
latest AS (   -- each reviewer's latest verdict made outside Label Studio
    SELECT r.* FROM reviews r JOIN t USING (benchmark, question_id)
    WHERE r.source <> 'label_studio'
    QUALIFY row_number() OVER (PARTITION BY r.benchmark, r.question_id, r.reviewer ORDER BY r.review_id DESC) = 1
),
known AS (
    SELECT * FROM ls_annotations WHERE url = $url AND project_id = $pid
),
synced AS (
    SELECT benchmark, question_id, reviewer, max(review_id) AS last_review_id FROM known GROUP BY ALL
),
link AS (    -- the annotation a reviewer owns on an item (never one they only edited), and the
             -- latest version known of it, by whoever made it
    SELECT k.benchmark, k.question_id, k.reviewer, k.annotation_id,
           (SELECT max(k2.updated_at) FROM known k2 WHERE k2.annotation_id = k.annotation_id) AS known_updated_at
    FROM known k
    WHERE k.edited_by IS NULL
      AND NOT EXISTS (SELECT 1 FROM ls_deletions d WHERE d.url = k.url AND d.project_id = k.project_id
                      AND d.annotation_id = k.annotation_id)
    QUALIFY row_number() OVER (PARTITION BY k.benchmark, k.question_id, k.reviewer
                               ORDER BY k.updated_at DESC, k.annotation_id DESC) = 1
)
SELECT l.review_id, l.benchmark, l.question_id, l.reviewer, l.verdict, l.corrected_answer, l.cause,
       l.rationale, l.proposed_fix, t.task_id, k.annotation_id, k.known_updated_at
FROM latest l
JOIN t USING (benchmark, question_id)
LEFT JOIN synced s USING (benchmark, question_id, reviewer)
LEFT JOIN link k USING (benchmark, question_id, reviewer)
WHERE l.review_id > coalesce(s.last_review_id, 0)
  AND NOT EXISTS (SELECT 1 FROM review_conflicts c WHERE c.benchmark = l.benchmark
                  AND c.question_id = l.question_id AND c.reviewer = l.reviewer)
ORDER BY l.review_id
"""


def _user_ids(session: Session, db: DbPath, reviewers: list[str], s: PushSummary) -> dict[str, int]:
    """Label Studio user id of each reviewer (created when missing, linked in
    ls_users).  The links are checked against the server's users first
    (:func:`resolve_users`): after a restore an id may name another person,
    and a push must not send one reviewer's verdicts as another's."""
    url = session.url
    if not reviewers:
        return {}
    users = list_users(session)
    with connect(db) as con, transaction(con):
        s.relinked += relink_users(con, url, resolve_users(con, url, users))
        linked = dict(con.execute("SELECT reviewer, ls_user_id FROM ls_users WHERE url = ?", [url]).fetchall())
    out = {r: linked[r] for r in reviewers if r in linked}
    missing = [r for r in reviewers if r not in out]
    if not missing:
        return out
    by_email = {e.lower(): i for i, e in zip(users["ls_user_id"], users["email"])}
    new_links = []
    for r in missing:
        email = reviewer_email(r)
        uid = by_email.get(email)
        if uid is None:
            with ls_errors(session.auth, f"creating the Label Studio account of reviewer {r!r}"):
                u = session.client.users.create(username=email, email=email, first_name=r[:30])
            uid = int(u.id)
            s.users_created += 1
        out[r] = int(uid)
        new_links.append((url, int(uid), email, r))
    with connect(db) as con, transaction(con):
        con.executemany("INSERT INTO ls_users (url, ls_user_id, email, reviewer) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT (url, ls_user_id) DO NOTHING", new_links)
    return out


def push_verdicts(session: Session, project: Project, *, db: DbPath = None, batch_size: int = 200,
                  progress: bool | None = None, remote: pd.DataFrame | None = None,
                  summary: PushSummary | None = None) -> PushSummary:
    """Send workbench verdicts that Label Studio has not seen (see module doc)."""
    s = summary or PushSummary(project.project_id)
    if remote is None:
        listed_at = utc_now()
        remote = list_annotations(session, project.project_id)
    else:
        listed_at = remote.attrs.get("listed_at", utc_now())
    with connect(db) as con, transaction(con):
        adopted = adopt_intents(con, project, remote, listed_at)
        # the annotations this push sent inside the task import are expected, not adopted leftovers
        s.annotations_adopted += max(0, adopted - s.annotations_in_import)
        cands = con.execute(_CANDIDATES_SQL, {"url": project.url, "pid": project.project_id}).df()
    if cands.empty:
        return s
    uids = _user_ids(session, db, sorted(set(cands["reviewer"])), s)
    with connect(db, read_only=True) as con:
        known_ids = {int(a) for (a,) in con.execute(
            "SELECT DISTINCT annotation_id FROM ls_annotations WHERE url = ? AND project_id = ?",
            [project.url, project.project_id]).fetchall()}
    planned = plan_annotations(cands, uids, remote, known_ids)
    s.skipped_changed_remotely += planned.skipped_changed_remotely
    plan = planned.writes
    bar = _progress(len(plan), "push verdicts", progress)
    done = 0
    for i in range(0, len(plan), batch_size):
        batch = plan[i:i + batch_size]
        with connect(db) as con, transaction(con):
            con.executemany(
                "INSERT INTO ls_intents (url, project_id, task_id, ls_user_id, annotation_id, review_id, content_hash, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(project.url, project.project_id, int(c.task_id), uid, ann, int(c.review_id),
                  verdict_hash(*_verdict_fields(c)), utc_now()) for c, uid, ann in batch])
        written = []
        for c, uid, ann in batch:
            result = verdict_result(*_verdict_fields(c))
            if ann is None:
                with ls_errors(session.auth, f"creating an annotation on task {c.task_id}"):
                    a = session.client.annotations.create(id=int(c.task_id), result=result, completed_by=uid)
                s.annotations_created += 1
            else:
                with ls_errors(session.auth, f"updating annotation {ann}"):
                    a = session.client.annotations.update(id=ann, result=result)
                s.annotations_updated += 1
            done += 1
            _state.on_remote_write("annotations", done)
            written.append((project.url, project.project_id, int(a.id), norm_ts(a.updated_at), int(c.task_id),
                            c.benchmark, c.question_id, uid, c.reviewer, "pushed", int(c.review_id),
                            verdict_hash(*_verdict_fields(c)), utc_now()))
            bar.update(1)
        with connect(db) as con, transaction(con):
            con.executemany(
                "INSERT INTO ls_annotations (url, project_id, annotation_id, updated_at, task_id, benchmark, "
                "question_id, ls_user_id, reviewer, direction, review_id, content_hash, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", written)
            con.execute("DELETE FROM ls_intents WHERE url = ? AND project_id = ? "
                        "AND review_id IN (SELECT unnest(?::BIGINT[]))",
                        [project.url, project.project_id, [int(c.review_id) for c, _, _ in batch]])
    bar.close()
    log.info("pushed verdicts to project %s: %s annotations created, %s updated",
             project.project_id, s.annotations_created, s.annotations_updated)
    return s


def _verdict_fields(c) -> tuple:
    """(verdict, corrected answer, cause, rationale, proposed fix) of a review
    row, SQL NULLs as None: what an annotation carries and its hash covers."""
    return c.verdict, _nn(c.corrected_answer), _nn(c.cause), _nn(c.rationale), _nn(c.proposed_fix)


def _nn(v):
    """None for SQL NULL however pandas spells it (None, NaN, NA, NaT)."""
    try:
        return None if v is None or pd.isna(v) is True else v
    except (TypeError, ValueError):
        return v


def ls_push(benchmark: str | None = None, *, tiers=DEFAULT_TIERS, question_ids=None, verdicts: bool = True,
            url: str | None = None, api_key: str | None = None, project_id: int | None = None,
            batch_size: int = 500, db: DbPath = None, progress: bool | None = None, language: str = "en",
            **queue_filters) -> PushSummary:
    """Push the selected items as tasks (chosen like the review queue:
    Tier 1–2 of ``benchmark`` by default, ``tiers=None`` for every item, plus
    any :func:`audit.review.review_queue` filter such as ``subjects=`` or
    ``status=``; no benchmark = refresh the tasks already pushed) and then
    the workbench verdicts as annotations.  Each task shows the item page's
    plain-words evidence in ``language`` (``en``, ``zh-Hans`` or ``bo``).

    Example (needs a running server and ``ls_connect`` first)::

        ls_push("tlue", tiers=(1, 2))
    """
    session = open_session(url, api_key)
    with connect(db, read_only=True) as con:
        project = find_project(con, session.url, project_id)
    s = push_tasks(session, project, benchmark, tiers=tiers, question_ids=question_ids,
                   batch_size=batch_size, db=db, progress=progress, verdicts=verdicts, language=language,
                   **queue_filters)
    if verdicts:
        push_verdicts(session, project, db=db, progress=progress, summary=s)
    with connect(db) as con:
        touch(con, project, "last_push_at")
    return s
