"""Review status and settlement of every item, computed from the append-only
history in SQL.

Settlement rule (shared with exports and the judge analysis):

* An item with an **adjudication** (a lead's verdict recorded with
  ``is_adjudication``) is settled: its latest adjudication wins.  Its cause
  and proposed fix, when the lead gave none, are those of the reviewers
  whose verdict it upholds (same verdict and corrected answer).
* Otherwise each reviewer's **current verdict** is their latest non-skip,
  non-adjudication row.  Two current verdicts *agree* when they have the same
  verdict and, for ``key_wrong``, the same corrected answer.
* Current verdicts that disagree → ``disputed`` (until a lead adjudicates).
  So is an item with an open Label Studio sync conflict (the same reviewer's
  verdict changed in both places since the last sync; view ``review_conflicts``).
* All agree and there are at least the *required* number of them (default 2
  for items in Tier 1–2 of the current audit, 1 otherwise; see
  :func:`audit.review.set_required_reviews`) → ``done`` (settled).
* All agree but fewer than required → ``needs_second_review``.
* No current verdict (no review, or only skips) → ``unreviewed``.
"""
from __future__ import annotations

import pandas as pd

from audit._util.text import clean_name
from audit.analyze.inputs import CURRENT_AUDIT_SQL
from audit.review._common import run
from audit.review.settings import FLAGGED_TIERS, required_reviews_from
from audit.store import DbPath, connect

UNREVIEWED = "unreviewed"
NEEDS_SECOND_REVIEW = "needs_second_review"
DISPUTED = "disputed"
DONE = "done"
STATUSES = (UNREVIEWED, NEEDS_SECOND_REVIEW, DISPUTED, DONE)

# The settlement rule's building blocks.  Parameters: $benchmark, $reviewer
# (may be NULL), and $question_id for the one-item variant.
_CORE = """
rv AS (
    SELECT * FROM reviews WHERE benchmark = $benchmark {item_filter}
),
cur AS (   -- each reviewer's current verdict on an item
    SELECT *, verdict || coalesce(':' || corrected_answer, '') AS opinion
    FROM rv
    WHERE verdict <> 'skip' AND NOT is_adjudication
    QUALIFY row_number() OVER (PARTITION BY question_id, reviewer ORDER BY review_id DESC) = 1
),
adj AS (   -- the latest adjudication of an item
    SELECT * FROM rv WHERE is_adjudication
    QUALIFY row_number() OVER (PARTITION BY question_id ORDER BY review_id DESC) = 1
),
conflicts AS (   -- open Label Studio sync conflicts (view of 004_label_studio.sql) also dispute an item
    SELECT DISTINCT question_id FROM review_conflicts WHERE benchmark = $benchmark {item_filter}
),"""

# Status only (queue, status page, item page).  Relation: review_summary.
_SLIM = """
cur_agg AS (
    SELECT question_id, count(*) AS n_verdicts, count(DISTINCT opinion) AS n_opinions FROM cur GROUP BY question_id
),
all_agg AS (
    SELECT question_id,
           count(*) FILTER (WHERE verdict <> 'skip') AS n_reviews,
           count(DISTINCT reviewer) FILTER (WHERE verdict <> 'skip') AS n_reviewers,
           max(created_at) AS last_reviewed_at,
           coalesce(bool_or(reviewer = $reviewer AND verdict <> 'skip'), false) AS reviewed_by_me
    FROM rv GROUP BY question_id
),
review_summary AS (
    SELECT g.*, coalesce(c.n_verdicts, 0) AS n_verdicts, coalesce(c.n_opinions, 0) AS n_opinions,
           a.review_id IS NOT NULL AS adjudicated, k.question_id IS NOT NULL AS in_conflict
    FROM all_agg g
    LEFT JOIN cur_agg c USING (question_id)
    LEFT JOIN adj a USING (question_id)
    LEFT JOIN conflicts k USING (question_id)
)"""

# Status plus the settled verdict's content (settled_verdicts, exports).
_FULL = """
cur_agg AS (
    SELECT question_id,
           count(*) AS n_verdicts,
           count(DISTINCT opinion) AS n_opinions,
           min(verdict) AS verdict,
           min(corrected_answer) AS corrected_answer,
           string_agg(reviewer || ': ' || rationale, ' | ' ORDER BY reviewer) AS rationale,
           string_agg(reviewer || ': ' || proposed_fix, ' | ' ORDER BY reviewer) AS proposed_fix
    FROM cur GROUP BY question_id
),
cur_cause AS (   -- the cause most current verdicts name (ties: the latest)
    SELECT question_id, cause
    FROM (SELECT question_id, cause, count(*) AS k, max(review_id) AS last_id
          FROM cur WHERE cause IS NOT NULL GROUP BY question_id, cause)
    QUALIFY row_number() OVER (PARTITION BY question_id ORDER BY k DESC, last_id DESC) = 1
),
opinion_cause AS (   -- per opinion: the cause its reviewers name most (ties: the latest), and their fixes
    SELECT question_id, opinion, arg_max(cause, k * 1000000000 + last_id) FILTER (WHERE cause IS NOT NULL) AS cause, any_value(fix) AS fix
    FROM (SELECT question_id, opinion, cause, count(*) OVER (PARTITION BY question_id, opinion, cause) AS k,
                 max(review_id) OVER (PARTITION BY question_id, opinion, cause) AS last_id,
                 string_agg(reviewer || ': ' || proposed_fix, ' | ' ORDER BY reviewer)
                     OVER (PARTITION BY question_id, opinion) AS fix
          FROM cur)
    GROUP BY question_id, opinion
),
all_agg AS (
    SELECT question_id,
           count(*) FILTER (WHERE verdict <> 'skip') AS n_reviews,
           count(DISTINCT reviewer) FILTER (WHERE verdict <> 'skip') AS n_reviewers,
           array_to_string(list_sort(list_distinct(list(reviewer) FILTER (WHERE verdict <> 'skip'))), ', ') AS reviewers,
           min(created_at) FILTER (WHERE verdict <> 'skip') AS first_reviewed_at,
           max(created_at) AS last_reviewed_at,
           coalesce(bool_or(reviewer = $reviewer AND verdict <> 'skip'), false) AS reviewed_by_me
    FROM rv GROUP BY question_id
),
review_summary AS (
    SELECT g.question_id, g.n_reviews, g.n_reviewers, g.reviewers, g.first_reviewed_at, g.last_reviewed_at,
           g.reviewed_by_me,
           coalesce(c.n_verdicts, 0) AS n_verdicts,
           coalesce(c.n_opinions, 0) AS n_opinions,
           a.review_id IS NOT NULL AS adjudicated,
           k.question_id IS NOT NULL AS in_conflict,
           a.reviewer AS adjudicator,
           CASE WHEN a.review_id IS NOT NULL THEN a.verdict WHEN c.n_opinions = 1 THEN c.verdict END AS verdict,
           CASE WHEN a.review_id IS NOT NULL THEN a.corrected_answer
                WHEN c.n_opinions = 1 THEN c.corrected_answer END AS corrected_answer,
           CASE WHEN a.review_id IS NOT NULL THEN coalesce(a.cause, oc.cause)
                WHEN c.n_opinions = 1 THEN cc.cause END AS cause,
           CASE WHEN a.review_id IS NOT NULL THEN
                     CASE WHEN a.cause IS NOT NULL THEN 'adjudication' WHEN oc.cause IS NOT NULL THEN 'reviewers' END
                WHEN c.n_opinions = 1 AND cc.cause IS NOT NULL THEN 'reviewers' END AS cause_from,
           CASE WHEN a.review_id IS NOT NULL THEN a.rationale WHEN c.n_opinions = 1 THEN c.rationale END AS rationale,
           CASE WHEN a.review_id IS NOT NULL THEN coalesce(a.proposed_fix, oc.fix)
                WHEN c.n_opinions = 1 THEN c.proposed_fix END AS proposed_fix
    FROM all_agg g
    LEFT JOIN cur_agg c USING (question_id)
    LEFT JOIN cur_cause cc USING (question_id)
    LEFT JOIN adj a USING (question_id)
    LEFT JOIN opinion_cause oc ON oc.question_id = g.question_id
                              AND oc.opinion = a.verdict || coalesce(':' || a.corrected_answer, '')
    LEFT JOIN conflicts k USING (question_id)
)"""


def summary_ctes(*, one_item: bool = False, full: bool = False) -> str:
    """CTEs ending in ``review_summary`` (one row per item with reviews) for
    a whole benchmark, or for the one item ``$question_id``.  ``full`` adds
    the settled verdict's content (verdict, answer, cause, reviewers,
    rationale…); the default computes only what the status needs."""
    core = _CORE.replace("{item_filter}", "AND question_id = $question_id" if one_item else "")
    return core + (_FULL if full else _SLIM)


# The current audit's tier per item ($benchmark).  Relation name: cur_audit.
AUDIT_CTE = """
cur_audit AS (""" + CURRENT_AUDIT_SQL + """
)"""

FLAGGED_SQL = ", ".join(str(t) for t in FLAGGED_TIERS)


def required_expr(tier: str = "a.tier") -> str:
    """SQL for the number of reviews an item needs ($req_flagged, $req_other)."""
    return f"(CASE WHEN {tier} IN ({FLAGGED_SQL}) THEN $req_flagged ELSE $req_other END)"


def status_expr(s: str = "s", tier: str = "a.tier") -> str:
    """SQL CASE giving an item's status from ``review_summary`` alias ``s``."""
    return (
        f"(CASE WHEN coalesce({s}.adjudicated, false) THEN '{DONE}'"
        f" WHEN coalesce({s}.in_conflict, false) THEN '{DISPUTED}'"
        f" WHEN coalesce({s}.n_verdicts, 0) = 0 THEN '{UNREVIEWED}'"
        f" WHEN {s}.n_opinions > 1 THEN '{DISPUTED}'"
        f" WHEN {s}.n_verdicts >= {required_expr(tier)} THEN '{DONE}'"
        f" ELSE '{NEEDS_SECOND_REVIEW}' END)"
    )


def base_params(con, benchmark: str, reviewer: str | None = None) -> dict:
    req = required_reviews_from(con)
    return {
        "benchmark": benchmark,
        "reviewer": clean_name(reviewer) or None,
        "req_flagged": req.flagged,
        "req_other": req.other,
    }


def review_status(benchmark: str, *, reviewer: str | None = None, db: DbPath = None) -> pd.DataFrame:
    """Review status of every item of a benchmark, in import order.

    Columns: ``question_id, subject, tier, required, n_reviews`` (non-skip
    review rows, adjudications included), ``n_reviewers`` (distinct people
    with a non-skip review), ``n_verdicts`` (current verdicts counted by the
    settlement rule), ``status`` (unreviewed / needs_second_review / disputed
    / done), ``adjudicated, reviewed_by_me`` (``reviewer`` has a non-skip
    review of the item; False when ``reviewer`` is None), ``last_reviewed_at``.
    """
    with connect(db, read_only=True) as con:
        params = base_params(con, benchmark, reviewer)
        sql = f"""
        WITH {summary_ctes()}, {AUDIT_CTE}
        SELECT q.question_id, q.subject, a.tier, {required_expr()} AS required,
               coalesce(s.n_reviews, 0) AS n_reviews, coalesce(s.n_reviewers, 0) AS n_reviewers,
               coalesce(s.n_verdicts, 0) AS n_verdicts, {status_expr()} AS status,
               coalesce(s.adjudicated, false) AS adjudicated, coalesce(s.reviewed_by_me, false) AS reviewed_by_me,
               s.last_reviewed_at
        FROM questions q
        LEFT JOIN cur_audit a USING (question_id)
        LEFT JOIN review_summary s USING (question_id)
        WHERE q.benchmark = $benchmark
        ORDER BY q.seq, q.question_id"""
        return run(con, sql, params).df()


def settled_verdicts(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """The settled verdict of every settled item (status ``done``), in import order.

    Columns: ``question_id, verdict`` (key_correct / key_wrong / ambiguous /
    defective), ``corrected_answer`` (set for key_wrong), ``cause`` (the
    adjudication's; an adjudication that names none takes the cause most of
    the reviewers whose verdict it upholds name; else the cause most current
    verdicts name), ``cause_from`` (``adjudication`` or ``reviewers``: which
    of these rules gave the cause; NULL without a cause),
    ``reviewers`` (everyone with a non-skip review, sorted, comma-separated),
    ``n_reviews`` (non-skip review rows), ``adjudicated``,
    ``last_reviewed_at`` (UTC) and further ``first_reviewed_at,
    adjudicator, rationale, proposed_fix`` (rationales and fixes as
    ``"name: text | name: text"`` unless adjudicated; an adjudication
    without a fix takes the fixes of the reviewers whose verdict it upholds), ``answer_key`` (the
    original key), ``tier``.  Exports derive corrected versions from this.
    """
    with connect(db, read_only=True) as con:
        params = base_params(con, benchmark)
        sql = f"""
        WITH {summary_ctes(full=True)}, {AUDIT_CTE}
        SELECT q.question_id, s.verdict, s.corrected_answer, s.cause, s.cause_from, s.reviewers, s.n_reviews,
               s.adjudicated, s.last_reviewed_at, s.first_reviewed_at, s.adjudicator,
               s.rationale, s.proposed_fix, q.answer_key, a.tier
        FROM questions q
        JOIN review_summary s USING (question_id)
        LEFT JOIN cur_audit a USING (question_id)
        WHERE q.benchmark = $benchmark AND {status_expr()} = '{DONE}'
        ORDER BY q.seq, q.question_id"""
        return run(con, sql, params).df()
