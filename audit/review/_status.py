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

Known-answer items (:mod:`audit.review.gold`): a verdict given on one after
it was marked is an answer that measures its reviewer; it never settles,
disputes or changes the item.  Asked for one reviewer (``reviewer`` given,
not a lead or admin), a known-answer item reads as if that reviewer's own
verdicts were its only ones, so nothing tells it from an ordinary item.

The campaign's trust settings (:mod:`audit.review.trust`) may change two
things: under the **weighted** rule, agreeing verdicts settle an item when
their reliability-weighted posterior passes a threshold
(:mod:`audit.review.weighted`) instead of when there are enough of them;
under the count rule with ``second_review_flagged``, a verdict given while
its reviewer was flagged does not count toward the required number.
``settled_verdicts`` says which rule settled each item (``settled_by``).
"""
from __future__ import annotations

import pandas as pd

from audit._util.text import clean_name
from audit.accounts.roles import effective_role
from audit.analyze.inputs import CURRENT_AUDIT_SQL
from audit.errors import AuditError
from audit.review._common import run
from audit.review.settings import FLAGGED_TIERS, required_reviews_from
from audit.review.trust import GOLD_RECORD_CTES, GOLD_RUNNING_CTE, REVIEWER_WEIGHT_CTE, RULES, trust_params
from audit.review.weighted import PRIOR_RIGHT, PRIOR_WRONG, posterior_sql, prior_sql, weight_sql
from audit.store import DbPath, connect

UNREVIEWED = "unreviewed"
NEEDS_SECOND_REVIEW = "needs_second_review"
DISPUTED = "disputed"
DONE = "done"
STATUSES = (UNREVIEWED, NEEDS_SECOND_REVIEW, DISPUTED, DONE)

# The settlement rule's building blocks.  Parameters: $benchmark, $reviewer
# (may be NULL), and $question_id for the one-item variant.  {mask} keeps,
# of a known-answer item, only $reviewer's rows; {count_filter} leaves the
# answers to known-answer items out of the settlement.
_CORE = """
gold_period AS (   -- known-answer items, and the last review before each was marked
    SELECT question_id, after_review_id FROM gold_items WHERE benchmark = $benchmark
),
rv AS (
    SELECT r.*, coalesce(r.review_id > gp.after_review_id, false) AS gold_answer
    FROM reviews r LEFT JOIN gold_period gp ON gp.question_id = r.question_id
    WHERE r.benchmark = $benchmark {item_filter} {mask}
),
cur AS (   -- each reviewer's current verdict on an item
    SELECT *, verdict || coalesce(':' || corrected_answer, '') AS opinion
    FROM rv
    WHERE verdict <> 'skip' AND NOT is_adjudication {count_filter}
    QUALIFY row_number() OVER (PARTITION BY question_id, reviewer ORDER BY review_id DESC) = 1
),
adj AS (   -- the latest adjudication of an item
    SELECT * FROM rv WHERE is_adjudication {count_filter}
    QUALIFY row_number() OVER (PARTITION BY question_id ORDER BY review_id DESC) = 1
),
conflicts AS (   -- open Label Studio sync conflicts (view of 004_label_studio.sql) also dispute an item
    SELECT DISTINCT question_id FROM review_conflicts WHERE benchmark = $benchmark {conflict_filter}
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
           a.review_id IS NOT NULL AS adjudicated, k.question_id IS NOT NULL AS in_conflict, {trust_cols}
    FROM all_agg g
    LEFT JOIN cur_agg c USING (question_id)
    LEFT JOIN adj a USING (question_id)
    LEFT JOIN conflicts k USING (question_id) {trust_join}
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
    SELECT question_id, opinion, arg_max(cause, k * 1000000000 + last_id) FILTER (WHERE cause IS NOT NULL) AS cause,
           any_value(fix) AS fix
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
           array_to_string(list_sort(list_distinct(list(reviewer) FILTER (WHERE verdict <> 'skip'))), ', ')
               AS reviewers,
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
                WHEN c.n_opinions = 1 THEN c.proposed_fix END AS proposed_fix,
           {trust_cols}
    FROM all_agg g
    LEFT JOIN cur_agg c USING (question_id)
    LEFT JOIN cur_cause cc USING (question_id)
    LEFT JOIN adj a USING (question_id)
    LEFT JOIN opinion_cause oc ON oc.question_id = g.question_id
                              AND oc.opinion = a.verdict || coalesce(':' || a.corrected_answer, '')
    LEFT JOIN conflicts k USING (question_id) {trust_join}
)"""


def summary_ctes(*, one_item: bool = False, full: bool = False, params: dict | None = None) -> str:
    """CTEs ending in ``review_summary`` (one row per item with reviews) for
    a whole benchmark, or for the one item ``$question_id``.  ``full`` adds
    the settled verdict's content (verdict, answer, cause, reviewers,
    rationale…); the default computes only what the status needs.
    ``params`` (from :func:`base_params`) chooses the variant: the settlement
    rule, the second review of flagged reviewers' verdicts, and whether
    known-answer items read as one reviewer sees them (``mask_gold``); None:
    the count rule, as a lead sees the items."""
    p = params or {}
    mask = bool(p.get("mask_gold"))
    item = "AND r.question_id = $question_id" if one_item else ""
    core = _CORE.format(
        item_filter=item,
        mask="AND (gp.after_review_id IS NULL OR r.reviewer = $reviewer)" if mask else "",
        count_filter="" if mask else "AND NOT gold_answer",
        conflict_filter=" ".join(x for x in (
            "AND question_id = $question_id" if one_item else "",
            "AND question_id NOT IN (SELECT question_id FROM gold_period)" if mask else "") if x))
    extra, cols, join = _trust_parts(p, one_item)
    body = (_FULL if full else _SLIM).replace("{trust_cols}", cols).replace("{trust_join}", join)
    return core + extra + body


_COUNT_COLS = ("coalesce(c.n_verdicts, 0) AS n_credited, NULL::VARCHAR AS weighted_rule, NULL::DOUBLE AS posterior, "
               "true AS by_count")


def _trust_parts(p: dict, one_item: bool) -> tuple[str, str, str]:
    """(extra CTEs, review_summary columns, joins) for the campaign's trust
    settings: ``n_credited`` (verdicts that count toward the required
    number), ``weighted_rule`` (the weighted rule that settles the item, or
    NULL), ``posterior`` (of the agreed opinion, weighted rule only) and
    ``by_count`` (whether the count rule applies)."""
    rule = p.get("rule", "count")
    if rule == "weighted":
        prior_mean = PRIOR_RIGHT / (PRIOR_RIGHT + PRIOR_WRONG)
        acc = f"coalesce(w.accuracy, {prior_mean!r})"
        item = "AND k.question_id = $question_id" if one_item else ""
        extra = f"""{GOLD_RECORD_CTES}, {REVIEWER_WEIGHT_CTE},
ev_prior AS (   -- the evidence before any verdict: the audit fit's score (see audit.review.weighted)
    SELECT k.question_id, k.score AS p_wrong
    FROM key_error_scores k
    WHERE k.benchmark = $benchmark {item}
      AND k.run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = $benchmark)
),
wagg AS (   -- the agreeing verdicts' weights
    SELECT c.question_id, count(*) AS n, count(DISTINCT c.opinion) AS n_op, min(c.verdict) AS verdict,
           sum({weight_sql(acc)}) AS llr,
           bool_and({acc} >= $w_careful AND NOT coalesce(w.flagged, false)) AS careful
    FROM cur c LEFT JOIN reviewer_weight w ON w.reviewer = c.reviewer
    GROUP BY c.question_id
),
wprior AS (
    SELECT wg.*, {prior_sql('wg.verdict', 'ep.p_wrong')} AS prior
    FROM wagg wg LEFT JOIN ev_prior ep USING (question_id)
),
wsettle AS (
    SELECT question_id, posterior,
           CASE WHEN n_op = 1 AND n >= 2 AND posterior >= $w_threshold THEN 'weighted_agreement'
                WHEN n_op = 1 AND n = 1 AND $w_allow_lone AND careful AND prior > 0.5
                     AND posterior >= $w_lone_threshold THEN 'weighted_evidence' END AS weighted_rule
    FROM (SELECT *, {posterior_sql('prior', 'llr')} AS posterior FROM wprior)
),"""
        cols = "coalesce(c.n_verdicts, 0) AS n_credited, ws.weighted_rule, ws.posterior, false AS by_count"
        return extra, cols, "LEFT JOIN wsettle ws USING (question_id)"
    if p.get("second_review_flagged"):
        extra = f"""{GOLD_RECORD_CTES}, {GOLD_RUNNING_CTE},
credited AS (   -- verdicts given while their reviewer was not flagged
    SELECT c.question_id, count(*) FILTER (WHERE NOT coalesce(gr.flagged, false)) AS n_credited
    FROM cur c ASOF LEFT JOIN gold_running gr ON gr.reviewer = c.reviewer AND c.review_id > gr.review_id
    GROUP BY c.question_id
),"""
        cols = ("coalesce(cr.n_credited, 0) AS n_credited, NULL::VARCHAR AS weighted_rule, NULL::DOUBLE AS posterior, "
                "true AS by_count")
        return extra, cols, "LEFT JOIN credited cr USING (question_id)"
    return "", _COUNT_COLS, ""


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
        f" WHEN {s}.weighted_rule IS NOT NULL THEN '{DONE}'"
        f" WHEN coalesce({s}.by_count, true) AND {s}.n_credited >= {required_expr(tier)} THEN '{DONE}'"
        f" ELSE '{NEEDS_SECOND_REVIEW}' END)"
    )


def _has_gold(con, benchmark: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM gold_items WHERE benchmark = ?", [benchmark]).fetchall()[0][0])


def base_params(con, benchmark: str, reviewer: str | None = None, rule: str | None = None) -> dict:
    """The parameters of :func:`summary_ctes` and :func:`status_expr`: the
    required reviews, the campaign's trust settings (``rule`` overrides its
    settlement rule), and ``mask_gold`` — known-answer items read as
    ``reviewer`` sees them when ``reviewer`` is neither a lead nor an admin."""
    req = required_reviews_from(con)
    name = clean_name(reviewer) or None
    out = {
        "benchmark": benchmark,
        "reviewer": name,
        "req_flagged": req.flagged,
        "req_other": req.other,
        **trust_params(con),
        "mask_gold": (name is not None and _has_gold(con, benchmark)
                      and effective_role(con, name) not in ("lead", "admin")),
    }
    if rule is not None:
        if rule not in RULES:
            raise AuditError(f"unknown settlement rule '{rule}' (use one of: {', '.join(RULES)})")
        out["rule"] = rule
    return out


def review_status(benchmark: str, *, reviewer: str | None = None, rule: str | None = None,
                  db: DbPath = None) -> pd.DataFrame:
    """Review status of every item of a benchmark, in import order.

    Columns: ``question_id, subject, tier, required, n_reviews`` (non-skip
    review rows, adjudications included), ``n_reviewers`` (distinct people
    with a non-skip review), ``n_verdicts`` (current verdicts counted by the
    settlement rule), ``status`` (unreviewed / needs_second_review / disputed
    / done), ``adjudicated, reviewed_by_me`` (``reviewer`` has a non-skip
    review of the item; False when ``reviewer`` is None), ``last_reviewed_at``.
    ``rule`` (``count`` / ``weighted``): the settlement rule (default: the
    campaign's, :mod:`audit.review.trust`).  Known-answer items read as
    ``reviewer`` sees them unless ``reviewer`` is a lead or admin.
    """
    with connect(db, read_only=True) as con:
        params = base_params(con, benchmark, reviewer, rule)
        sql = f"""
        WITH {summary_ctes(params=params)}, {AUDIT_CTE}
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


def settled_verdicts(benchmark: str, *, rule: str | None = None, db: DbPath = None) -> pd.DataFrame:
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
    original key), ``tier``, ``settled_by`` (the rule that settled it, one of
    :data:`audit.vocab.SETTLEMENT_RULES`) and ``posterior`` (the weighted
    rule's posterior of the settled opinion; NULL under the count rule).
    Exports derive corrected versions from this.  ``rule``: the settlement
    rule (``count`` / ``weighted``; default: the campaign's).  Answers to
    known-answer items never settle anything.
    """
    with connect(db, read_only=True) as con:
        params = base_params(con, benchmark, rule=rule)
        sql = f"""
        WITH {summary_ctes(full=True, params=params)}, {AUDIT_CTE}
        SELECT q.question_id, s.verdict, s.corrected_answer, s.cause, s.cause_from, s.reviewers, s.n_reviews,
               s.adjudicated, s.last_reviewed_at, s.first_reviewed_at, s.adjudicator,
               s.rationale, s.proposed_fix, q.answer_key, a.tier,
               CASE WHEN s.adjudicated THEN 'adjudication' WHEN s.weighted_rule IS NOT NULL THEN s.weighted_rule
                    ELSE 'agreement' END AS settled_by,
               CASE WHEN NOT s.adjudicated THEN s.posterior END AS posterior
        FROM questions q
        JOIN review_summary s USING (question_id)
        LEFT JOIN cur_audit a USING (question_id)
        WHERE q.benchmark = $benchmark AND {status_expr()} = '{DONE}'
        ORDER BY q.seq, q.question_id"""
        return run(con, sql, params).df()
