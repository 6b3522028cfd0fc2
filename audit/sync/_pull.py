"""Pull: Label Studio annotations → appended reviews.

Every annotation version — (annotation id, updated-at) — is handled once:

* new content → one review row (``source='label_studio'``, reviewer = the
  Label Studio user's email, or the workbench reviewer the account was
  created for; ``created_at`` = the annotation's updated-at; ``external_id``
  = ``label_studio:<project>:<annotation>@<updated-at>``);
* the same content as the version before *by the same person* (the
  reviewer resolved from the Label Studio account's current email, see
  :mod:`audit.sync._users`), or as the reviewer's unsynced workbench verdict
  → recorded, no new row (nothing is duplicated).  Label Studio restored
  from an older backup hands out annotation and user ids again: a version
  recorded before its id was recorded deleted is not an earlier version, and
  an id whose owner is now another person is the earlier annotation's
  deletion (recorded in ``ls_deletions``) plus a new annotation;
* a user id whose email is not the one ``ls_users`` recorded is attributed
  by its current email, never to the old reviewer; the link is rewritten
  (``relinked``) and the version's note says what changed;
* the reviewer also changed their verdict in the workbench since the last
  sync → both rows are kept and a conflict is recorded (the item shows as
  disputed, see the ``review_conflicts`` view);
* an annotation that does not make a valid verdict → recorded as rejected
  with the reason, no row (the same validation as ``audit review add``:
  no verdict chosen, a corrected answer missing, not among the item's
  options, or given with another verdict than key_wrong...); editing it in
  Label Studio retries it; ``audit ls rejected`` lists them;
* a version saved by another account than the annotation's owner (an admin
  editing a reviewer's annotation) is the verdict of that account, never of
  the owner (see :func:`audit.sync._remote.version_author`);
* an annotation gone from Label Studio → recorded in ``ls_deletions``; the
  reviews it produced stay.

Everything a pull writes is one transaction, so a pull killed halfway
leaves nothing behind and the rerun does the whole job.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import pandas as pd

from audit._util.sql import unregister
from audit.review.record import append_reviews, review_problems
from audit.store import DbPath, connect, transaction
from audit.sync._client import Session, open_session
from audit.sync._config import verdict_hash
from audit.sync._push import adopt_intents
from audit.sync._remote import list_annotations, list_users
from audit.sync._state import Project, find_project, touch, utc_now
from audit.sync._users import relink_users, resolve_users

log = logging.getLogger("audit.sync")


@dataclass
class PullSummary:
    """Counts of one pull."""

    project_id: int
    annotations: int = 0      # annotations on the project's audit tasks
    new_versions: int = 0
    reviews_added: int = 0
    unchanged: int = 0        # new version with the same verdict as before (no row)
    adopted: int = 0          # our own pushed verdicts recognised (no row)
    conflicts: int = 0
    rejected: int = 0
    deleted: int = 0          # includes annotations whose id now names another person's annotation
    relinked: int = 0         # Label Studio user ids that now name another account (re-resolved by email)


_CLASSIFY_SQL = """
WITH known AS (
    SELECT * FROM ls_annotations WHERE url = $url AND project_id = $pid
),
live AS (     -- versions of the annotation each id names now: what was recorded before the
              -- id was recorded deleted belonged to an earlier annotation with that id
    SELECT k.* FROM known k
    LEFT JOIN ls_deletions d ON d.url = k.url AND d.project_id = k.project_id AND d.annotation_id = k.annotation_id
    WHERE d.detected_at IS NULL OR k.recorded_at >= d.detected_at
),
new AS (
    -- the verdict is the author's: whoever made this version (an edit by
    -- another account is that account's verdict, never the owner's), resolved
    -- by the account's current email (audit.sync._users)
    SELECT r.*, coalesce(a.reviewer, 'label-studio-user-' || r.author_id) AS reviewer,
           coalesce(o.reviewer, 'label-studio-user-' || r.ls_user_id) AS owner_reviewer, o.email AS owner_email,
           coalesce(a.relinked, false) AS author_relinked, a.email AS author_email,
           a.linked_email AS author_linked_email, a.linked_reviewer AS author_linked_reviewer
    FROM _remote r
    LEFT JOIN _who a ON a.ls_user_id = r.author_id
    LEFT JOIN _who o ON o.ls_user_id = r.ls_user_id
    WHERE r.benchmark IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM known k WHERE k.annotation_id = r.annotation_id AND k.updated_at = r.updated_at)
),
prev AS (     -- the latest known version of each annotation, and who made it
    SELECT annotation_id, content_hash AS prev_hash, review_id AS prev_review_id, reviewer AS prev_reviewer
    FROM live
    QUALIFY row_number() OVER (PARTITION BY annotation_id ORDER BY updated_at DESC) = 1
),
owner AS (    -- who owned the annotation the id named: its owner's latest own version
    SELECT annotation_id, ls_user_id AS prev_owner_id, reviewer AS prev_owner
    FROM live WHERE edited_by IS NULL
    QUALIFY row_number() OVER (PARTITION BY annotation_id ORDER BY updated_at DESC) = 1
),
synced AS (
    SELECT benchmark, question_id, reviewer, max(review_id) AS last_review_id FROM known GROUP BY ALL
),
wb AS (       -- each reviewer's latest verdict made outside Label Studio
    SELECT benchmark, question_id, reviewer, review_id AS wb_review_id,
           verdict AS wb_verdict, corrected_answer AS wb_answer, cause AS wb_cause,
           rationale AS wb_rationale, proposed_fix AS wb_fix
    FROM reviews WHERE source <> 'label_studio'
    QUALIFY row_number() OVER (PARTITION BY benchmark, question_id, reviewer ORDER BY review_id DESC) = 1
)
SELECT n.*, q.answer_key, list_transform(q.options, lambda o: o.label) AS labels,
       q.question_id IS NOT NULL AS item_exists,
       p.prev_hash, p.prev_review_id,
       -- the same person made the version before (the same reviewer, or the reviewer recorded
       -- then was this account's current email: a link to a workbench name made since)
       coalesce(p.prev_reviewer = n.reviewer OR lower(p.prev_reviewer) = lower(n.author_email), false) AS same_author,
       -- the id now names another person's annotation (ids handed out again, e.g. after a restore)
       coalesce(ow.prev_owner_id <> n.ls_user_id OR (ow.prev_owner <> n.owner_reviewer
                AND lower(ow.prev_owner) IS DISTINCT FROM lower(n.owner_email)), false) AS id_reused,
       CASE WHEN w.wb_review_id > coalesce(s.last_review_id, 0) THEN w.wb_review_id END AS unsynced_wb_review_id,
       w.wb_verdict, w.wb_answer, w.wb_cause, w.wb_rationale, w.wb_fix
FROM new n
LEFT JOIN questions q ON q.benchmark = n.benchmark AND q.question_id = n.question_id
LEFT JOIN prev p USING (annotation_id)
LEFT JOIN owner ow USING (annotation_id)
LEFT JOIN synced s ON s.benchmark = n.benchmark AND s.question_id = n.question_id AND s.reviewer = n.reviewer
LEFT JOIN wb w ON w.benchmark = n.benchmark AND w.question_id = n.question_id AND w.reviewer = n.reviewer
ORDER BY n.annotation_id
"""


def _problems(con, new: pd.DataFrame) -> dict[int, str]:
    """annotation id → why the annotation is not a valid verdict, checked by
    the review stage's own validation (:func:`audit.review.record.review_problems`,
    exactly as for ``audit review add``), grouped by benchmark."""
    out: dict[int, str] = {}
    for bench, grp in new.groupby("benchmark", sort=False):
        rows = [{"question_id": r.question_id, "reviewer": r.reviewer,
                 "verdict": _none(r.verdict), "corrected_answer": _none(r.corrected_answer),
                 "cause": _none(r.cause), "rationale": _none(r.rationale), "proposed_fix": _none(r.proposed_fix),
                 "source": "label_studio"} for r in grp.itertuples(index=False)]
        for aid, exists, rv, problem in zip(grp["annotation_id"], grp["item_exists"], grp["verdict"],
                                            review_problems(con, str(bench), rows, source="label_studio")):
            if not exists:
                problem = (f"the item {bench}/{grp.loc[grp['annotation_id'] == aid, 'question_id'].iloc[0]} "
                           "is not in the database")
            elif _none(rv) is None:
                problem = "no verdict chosen"
            if problem is not None:
                out[int(aid)] = problem
    return out


def _none(v):
    """None for SQL NULL however pandas spells it (None, NaN, NA, NaT)."""
    try:
        return None if v is None or pd.isna(v) is True else v
    except (TypeError, ValueError):
        return v


def apply_pull(con, project: Project, remote: pd.DataFrame, users: pd.DataFrame) -> PullSummary:
    """Record a listing of the project's annotations (inside the caller's
    transaction).  Set-based classification in SQL; reviews appended through
    the review stage's validated insert."""
    s = PullSummary(project.project_id, annotations=len(remote))
    s.adopted += adopt_intents(con, project, remote, remote.attrs.get("listed_at", utc_now()))
    params = {"url": project.url, "pid": project.project_id}
    who = resolve_users(con, project.url, users)
    con.register("_remote", remote)
    con.register("_who", who)
    try:
        new = con.execute(_CLASSIFY_SQL, params).df()
        now = utc_now()
        s.relinked = relink_users(con, project.url, who)
        versions, conflicts, to_add = [], [], []
        problems = _problems(con, new)
        for r in new.itertuples(index=False):
            r = r._replace(**{k: _none(getattr(r, k)) for k in
                              ("verdict", "corrected_answer", "cause", "rationale", "proposed_fix", "prev_hash",
                               "prev_review_id", "unsynced_wb_review_id")})
            h = verdict_hash(r.verdict, r.corrected_answer, r.cause, r.rationale, r.proposed_fix)
            base = [project.url, project.project_id, int(r.annotation_id), r.updated_at, int(r.task_id),
                    r.benchmark, r.question_id, int(r.ls_user_id), r.reviewer]
            edited_by = int(r.author_id) if int(r.author_id) != int(r.ls_user_id) else None
            problem = problems.get(int(r.annotation_id))
            relink_note = None
            if r.author_relinked:
                relink_note = (f"Label Studio user {int(r.author_id)} was {r.author_linked_email} (reviewer "
                               f"{r.author_linked_reviewer!r}) and is now {r.author_email}: attributed by email")
            wb_hash = None
            if r.unsynced_wb_review_id is not None:
                wb_hash = verdict_hash(r.wb_verdict, _none(r.wb_answer), _none(r.wb_cause), _none(r.wb_rationale),
                                       _none(r.wb_fix))
            if problem is not None:
                versions.append(base + ["rejected", None, h, problem, now, edited_by])
                s.rejected += 1
            elif r.prev_hash is not None and r.prev_hash == h and r.same_author and not r.id_reused:
                prev_id = (
                    None if r.prev_review_id is None else int(r.prev_review_id)
                )  # not numpy's int64 (a nullable column)
                versions.append(base + ["pulled", prev_id, h, "same verdict as before", now, edited_by])
                s.unchanged += 1
            elif wb_hash is not None and wb_hash == h:
                versions.append(base + ["pushed", int(r.unsynced_wb_review_id), h, "same as the workbench verdict", now,
                                        edited_by])
                s.adopted += 1
            else:
                ext = f"label_studio:{project.project_id}:{int(r.annotation_id)}@{r.updated_at}"
                conflict = r.unsynced_wb_review_id is not None
                to_add.append((r.benchmark, {
                    "question_id": r.question_id, "reviewer": r.reviewer, "verdict": r.verdict,
                    "corrected_answer": r.corrected_answer, "cause": r.cause, "rationale": r.rationale,
                    "proposed_fix": r.proposed_fix, "source": "label_studio", "created_at": r.updated_at,
                    "external_id": ext,
                }))
                versions.append(base + ["conflict" if conflict else "pulled", ext, h, relink_note, now, edited_by])
                if conflict:
                    conflicts.append((project.url, project.project_id, r.benchmark, r.question_id, r.reviewer,
                                      int(r.annotation_id), int(r.unsynced_wb_review_id), ext, now))
        s.new_versions = len(new)
        ids = _append_reviews(con, to_add)
        s.reviews_added = len(ids)
        s.conflicts = len(conflicts)
        for v in versions:   # external id → review id of the rows just appended
            if isinstance(v[10], str):
                v[10] = ids[v[10]]
        if versions:
            con.executemany(
                "INSERT INTO ls_annotations (url, project_id, annotation_id, updated_at, task_id, benchmark, "
                "question_id, ls_user_id, reviewer, direction, review_id, content_hash, note, recorded_at, edited_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", versions)
        if conflicts:
            con.executemany(
                "INSERT INTO ls_conflicts (url, project_id, benchmark, question_id, reviewer, annotation_id, "
                "workbench_review_id, label_studio_review_id, detected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [c[:7] + (ids[c[7]], c[8]) for c in conflicts])
        reused = [int(a) for a in new.loc[new["id_reused"], "annotation_id"]]
        if reused:   # the annotation the id named before is gone: recorded deleted, its reviews stay
            s.deleted += len(con.execute(
                """
                INSERT INTO ls_deletions (url, project_id, annotation_id, task_id, benchmark, question_id, reviewer,
                                          last_review_id, detected_at)
                SELECT url, project_id, annotation_id, task_id, benchmark, question_id, reviewer, review_id, $now
                FROM ls_annotations k
                WHERE url = $url AND project_id = $pid AND annotation_id IN (SELECT unnest($ids::BIGINT[]))
                  AND recorded_at < $now
                QUALIFY row_number() OVER (PARTITION BY annotation_id ORDER BY updated_at DESC) = 1
                ON CONFLICT DO NOTHING
                RETURNING annotation_id
                """, {**params, "now": now, "ids": reused}).fetchall())
        s.deleted += len(con.execute(
            """
            INSERT INTO ls_deletions (url, project_id, annotation_id, task_id, benchmark, question_id, reviewer,
                                      last_review_id, detected_at)
            SELECT url, project_id, annotation_id, task_id, benchmark, question_id, reviewer, review_id, $now
            FROM ls_annotations k
            WHERE url = $url AND project_id = $pid
              AND annotation_id NOT IN (SELECT annotation_id FROM _remote)
              AND NOT EXISTS (SELECT 1 FROM ls_deletions d WHERE d.url = k.url AND d.project_id = k.project_id
                              AND d.annotation_id = k.annotation_id)
            QUALIFY row_number() OVER (PARTITION BY annotation_id ORDER BY updated_at DESC) = 1
            RETURNING annotation_id
            """, {**params, "now": now}).fetchall())
        touch(con, project, "last_pull_at")
    finally:
        unregister(con, "_remote")
        unregister(con, "_who")
    return s


def _append_reviews(con, to_add: list[tuple[str, dict]]) -> dict[str, int]:
    """Append the reviews (grouped by benchmark) on ``con`` through the review
    stage's validation; returns external id → review id (through
    :func:`audit.review.record.append_reviews`, the one code path that appends reviews)."""
    out: dict[str, int] = {}
    by_bench: dict[str, list[dict]] = {}
    for bench, row in to_add:
        by_bench.setdefault(bench, []).append(row)
    for bench, rows in by_bench.items():
        added = append_reviews(con, bench, rows, source="label_studio")
        out.update({r.external_id: int(r.review_id) for r in added})
    return out


def pull_project(session: Session, project: Project, *, db: DbPath = None) -> PullSummary:
    """List the project's annotations and record them (one transaction)."""
    remote = list_annotations(session, project.project_id)
    users = list_users(session)
    with connect(db) as con, transaction(con):
        s = apply_pull(con, project, remote, users)
    log.info("pulled project %s: %s annotations, %s new reviews, %s conflicts, %s rejected, %s deleted",
             project.project_id, s.annotations, s.reviews_added, s.conflicts, s.rejected, s.deleted)
    return s


def ls_pull(*, url: str | None = None, api_key: str | None = None, project_id: int | None = None,
            db: DbPath = None) -> PullSummary:
    """Append the connected project's new annotations as reviews (see module
    doc).  Running it twice appends nothing the second time.

    Example (needs a running server and ``ls_connect`` first)::

        ls_pull()
    """
    session = open_session(url, api_key)
    with connect(db, read_only=True) as con:
        project = find_project(con, session.url, project_id)
    return pull_project(session, project, db=db)
