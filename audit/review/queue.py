"""The triage queue: which items to review next, filtered and ordered in one
SQL query, its progress figures, and previous/next within a filter.

Orderings are pluggable: :data:`QUEUE_ORDERS` maps a name to an ``ORDER BY``
over the queue's columns, and :func:`register_order` adds one (e.g. a
key-error score once it exists as a column).

Three things a review campaign adds (:mod:`audit.review.gold`,
:mod:`audit.review.weighted`, :mod:`audit.review.reports`):

* an item with an open error report from a reader passes the tier filter
  and the queue entry, and comes first in the campaign's orders;
* under the weighted settlement rule, the ``information`` order (the
  default then) asks for second reviews first where one more verdict is
  expected to tell most (``info_gain``, bits); an item that one verdict and
  the evidence settle needs none;
* :func:`next_for_reviewer` mixes known-answer items into a reviewer's flow
  at the campaign's rate; the queue itself lists them where their columns
  put them, as ordinary items.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable

import pandas as pd

from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts.roles import effective_role
from audit.errors import AuditError
from audit.review._common import run
from audit.review._status import (
    AUDIT_CTE,
    DISPUTED,
    DONE,
    NEEDS_SECOND_REVIEW,
    STATUSES,
    UNREVIEWED,
    base_params,
    required_expr,
    status_expr,
    summary_ctes,
)
from audit.review.campaign import entry_condition
from audit.review.evidence import EVIDENCE_CTE
from audit.review.sample import SAMPLE_ITEMS_SQL
from audit.review.trust import trust_from
from audit.review.weighted import PRIOR_RIGHT, PRIOR_WRONG, information_gain_sql
from audit.store import DbPath, connect
from audit.store.benchmarks import resolves_benchmark

REVIEWED_BY_ME = "reviewed_by_me"
NOT_REVIEWED_BY_ME = "not_reviewed_by_me"
NEEDS_ME = "needs_me"
QUEUE_STATUSES = STATUSES + (REVIEWED_BY_ME, NOT_REVIEWED_BY_ME, NEEDS_ME)
# An item still needs a reviewer's verdict when nobody has settled or disputed
# it yet and that reviewer has no (non-skip) verdict on it; for a reviewer who
# may adjudicate (a lead or admin), also every disputed item.
NEEDS_ME_SQL = f"(NOT reviewed_by_me AND status IN ('{UNREVIEWED}', '{NEEDS_SECOND_REVIEW}'))"
_DISPUTED_SQL = f"(status = '{DISPUTED}')"


def _needs_me_sql(may_settle: bool) -> str:
    return f"({NEEDS_ME_SQL} OR {_DISPUTED_SQL})" if may_settle else NEEDS_ME_SQL


def _disputes_first(may_settle: bool) -> str:
    """ORDER BY prefix: a lead's disputes before everything else."""
    return f"{_DISPUTED_SQL} DESC, " if may_settle else ""


def _may_settle(con, reviewer: str | None) -> bool:
    """Whether ``reviewer`` is a named lead or admin (not the "anyone" of a
    database without accounts or lead list)."""
    name = clean_name(reviewer) if reviewer else None
    return bool(name) and effective_role(con, name) in ("lead", "admin")


@dataclass(frozen=True)
class QueueOrder:
    """A named queue ordering: ``order_by`` is SQL over the queue columns;
    ``reports_first``: items with an open error report come first."""

    name: str
    label: str
    order_by: str
    reports_first: bool = True


QUEUE_ORDERS: dict[str, QueueOrder] = {}


def register_order(name: str, order_by: str, label: str | None = None, *, reports_first: bool = True) -> QueueOrder:
    """Add (or replace) a named ordering.  ``order_by`` is an SQL ``ORDER BY``
    list over the columns :func:`review_queue` returns; ``seq,
    question_id`` is appended so every ordering is total.  Unless
    ``reports_first`` is False, items with an open error report from a
    reader come first.

    >>> register_order("subject", "subject NULLS LAST, tier NULLS LAST").name
    'subject'
    """
    order = QueueOrder(name, label or name, order_by, reports_first)
    QUEUE_ORDERS[name] = order
    return order


register_order("priority", "tier ASC NULLS LAST, agreement_count DESC NULLS LAST",
               "Priority: tier, then most models agreeing on another answer")
register_order("agreement", "agreement_count DESC NULLS LAST, agreeing_families DESC NULLS LAST, tier ASC NULLS LAST",
               "Most models agreeing on another answer first")
register_order("id", "seq", "Import order", reports_first=False)
register_order("recent", "last_reviewed_at DESC NULLS LAST", "Most recently reviewed first", reports_first=False)
register_order("evidence", "key_error DESC NULLS LAST, tier ASC NULLS LAST, agreement_count DESC NULLS LAST",
               "Evidence: most likely wrong key first")
# Second reviews where one more verdict tells most (expected information
# gain, audit.review.weighted), then the evidence order.
register_order("information", f"(status = '{NEEDS_SECOND_REVIEW}') DESC, info_gain DESC NULLS LAST, "
                              "key_error DESC NULLS LAST, tier ASC NULLS LAST, agreement_count DESC NULLS LAST",
               "Second reviews that tell most first")
# The default: the key-error score with all evidence so far; items without a
# score (an audit run made with score=False) fall back to the priority order.
# Under the weighted settlement rule the default is the information order.
DEFAULT_ORDER = "evidence"
WEIGHTED_DEFAULT_ORDER = "information"


def _has_sample_table(con) -> bool:
    return table_exists(con, "audit_sample_frame")


def _as_list(value) -> list | None:
    if value is None:
        return None
    if isinstance(value, (str, int)):
        return [value]
    return list(value)


def queue_relation(benchmark: str, *, tiers, subjects, status, reviewer, structure_suspect,
                    parallel_mismatch, include: str | None = None, may_settle: bool = False,
                    con) -> tuple[str, dict]:
    """``WITH … queue AS (…)``: the filtered queue as SQL, and its parameters.
    ``include`` (a question id) is kept even when the filters drop it."""
    params = base_params(con, benchmark, reviewer)
    # a named lead or admin (not "anyone" of a database without accounts or lead list)
    where = []
    # the random audit sample's items enter every reviewer's queue, whatever the tiers, the entry setting or
    # the reviewer's assignments (and nothing in the queue's columns tells them apart)
    or_sample = f" OR question_id IN {SAMPLE_ITEMS_SQL}" if _has_sample_table(con) else ""
    tiers = _as_list(tiers)
    if tiers is not None:   # an empty selection matches nothing; a reader's open report lets an item in
        params["tiers"] = [int(t) for t in tiers]
        where.append(f"(list_contains($tiers::INTEGER[], tier) OR n_reports > 0{or_sample})")
    subjects = _as_list(subjects)
    if subjects is not None:
        params["subjects"] = [str(s) for s in subjects]
        where.append("list_contains($subjects::VARCHAR[], subject)")
    if structure_suspect is not None:
        where.append("structure_suspect" if structure_suspect else "NOT structure_suspect")
    if parallel_mismatch is not None:
        where.append("coalesce(parallel_key_match = false, false)" if parallel_mismatch
                     else "coalesce(parallel_key_match, true)")
    statuses = _as_list(status)
    if statuses:
        unknown = [s for s in statuses if s not in QUEUE_STATUSES]
        if unknown:
            raise AuditError(f"unknown review status {unknown[0]!r} (use one of: {', '.join(QUEUE_STATUSES)})")
        if any(s in (REVIEWED_BY_ME, NOT_REVIEWED_BY_ME, NEEDS_ME) for s in statuses) and params["reviewer"] is None:
            raise AuditError("the 'reviewed by me' and 'needs me' filters need the reviewer's name")
        parts = []
        plain = [s for s in statuses if s in STATUSES]
        if plain:
            params["statuses"] = plain
            parts.append("list_contains($statuses, status)")
        if REVIEWED_BY_ME in statuses:
            parts.append("reviewed_by_me")
        if NOT_REVIEWED_BY_ME in statuses:
            parts.append("NOT reviewed_by_me")
        if NEEDS_ME in statuses:
            parts.append(_needs_me_sql(may_settle))
        where.append("(" + " OR ".join(parts) + ")")
    entry = entry_condition(con, params)          # the campaign: queue entry and assignments
    if entry != "true":
        where.append(f"({entry} OR n_reports > 0{or_sample})")
    cond = " AND ".join(where) if where else "true"
    prior_mean = PRIOR_RIGHT / (PRIOR_RIGHT + PRIOR_WRONG)
    # one more verdict by a reviewer of average reliability: on a reviewed item, about
    # the posterior of the agreed opinion; on an unreviewed one, about the evidence
    belief = ("CASE WHEN s.posterior IS NOT NULL THEN s.posterior WHEN ke.key_error IS NOT NULL "
              "THEN greatest(ke.key_error, 1 - ke.key_error) ELSE 0.5 END")
    # the gain is computed over the item's columns one level up: inlined, its belief expression is repeated
    # some forty times and binding the query took longer than running it
    info = (f"CASE WHEN status IN ('{UNREVIEWED}', '{NEEDS_SECOND_REVIEW}') "
            f"THEN {information_gain_sql('_belief', repr(prior_mean))} END"
            if params.get("rule") == "weighted" else "NULL::DOUBLE")
    sql = f"""
    WITH {summary_ctes(params=params)}, {AUDIT_CTE}, {EVIDENCE_CTE},
    par AS (
        SELECT question_id, bool_and(key_match) AS parallel_key_match
        FROM parallel_links WHERE benchmark = $benchmark GROUP BY question_id
    ),
    rep AS (   -- open error reports from readers
        SELECT question_id, count(*) AS n_reports FROM error_reports
        WHERE benchmark = $benchmark AND status = 'open' GROUP BY question_id
    ),
    item_rows AS (
        SELECT q.question_id, q.seq, q.subject, q.language, q.script,
               q.answer_key,
               a.tier, a.bucket, a.top_answer, a.agreement_count, a.agreeing_families, a.n_models, a.n_valid,
               ke.key_error, q.structure_suspect,
               p.question_id IS NOT NULL AS has_parallel, p.parallel_key_match,
               coalesce(s.n_reviews, 0) AS n_reviews, coalesce(s.n_reviewers, 0) AS n_reviewers,
               coalesce(s.n_verdicts, 0) AS n_verdicts, {required_expr()} AS required,
               {status_expr()} AS status,
               coalesce(s.reviewed_by_me, false) AS reviewed_by_me,
               coalesce(s.adjudicated, false) AS adjudicated, s.last_reviewed_at,
               coalesce(rp.n_reports, 0) AS n_reports, {belief} AS _belief,
               gp.question_id IS NOT NULL AS is_gold
        FROM questions q
        LEFT JOIN cur_audit a USING (question_id)
        LEFT JOIN cur_evidence ke USING (question_id)
        LEFT JOIN par p USING (question_id)
        LEFT JOIN review_summary s USING (question_id)
        LEFT JOIN rep rp USING (question_id)
        LEFT JOIN gold_period gp USING (question_id)
        WHERE q.benchmark = $benchmark
    ),
    items AS (SELECT * EXCLUDE (_belief, is_gold), {info} AS info_gain, is_gold FROM item_rows),
    queue AS (SELECT * FROM items WHERE {cond})"""
    if include is not None:
        # A separate branch keeps the filters pushed down into the joins.
        params["include"] = include
        sql = sql.replace("queue AS (", "queue_f AS (", 1) + """,
    queue AS (
        SELECT * FROM queue_f
        UNION ALL
        SELECT * FROM items WHERE question_id = $include AND question_id NOT IN (SELECT question_id FROM queue_f)
    )"""
    return sql, params


def _order_sql(order: str | None, params: dict) -> str:
    """The ORDER BY of ``order`` (None: the campaign's default order)."""
    if order is None:
        order = WEIGHTED_DEFAULT_ORDER if params.get("rule") == "weighted" else DEFAULT_ORDER
    if order not in QUEUE_ORDERS:
        raise AuditError(f"unknown queue order {order!r} (use one of: {', '.join(QUEUE_ORDERS)})")
    o = QUEUE_ORDERS[order]
    return ("(n_reports > 0) DESC, " if o.reports_first else "") + o.order_by + ", seq, question_id"


@resolves_benchmark
def review_queue(
    benchmark: str | None,
    *,
    tiers: Iterable[int] | int | None = (1, 2),
    subjects: Iterable[str] | str | None = None,
    status: Iterable[str] | str | None = None,
    reviewer: str | None = None,
    structure_suspect: bool | None = None,
    parallel_mismatch: bool | None = None,
    order: str | None = None,
    limit: int | None = None,
    offset: int = 0,
    db: DbPath = None,
) -> pd.DataFrame:
    """Items to review, filtered and ordered, in one query.

    Filters (None = no filter): ``tiers`` of the current audit (default
    Tier 1–2; None includes unaudited items), ``subjects``, ``status`` (one
    or several of unreviewed / needs_second_review / disputed / done /
    reviewed_by_me / not_reviewed_by_me / needs_me — the last three need
    ``reviewer``; ``needs_me``: not yet settled or disputed and without a
    verdict by ``reviewer``, and for a lead or admin also every disputed
    item, listed first),
    ``structure_suspect``, ``parallel_mismatch`` (True: a linked parallel
    item has a different key).  An item with an open error report from a
    reader passes the tier filter.  ``order`` names an entry of
    :data:`QUEUE_ORDERS` (default ``evidence``: the probability that the
    key is wrong, highest first, then tier ascending and agreement count
    descending; ``information`` under the weighted settlement rule;
    ``priority`` is the tier order); items with an open report come first.

    Columns: ``position`` (1-based rank in the filtered queue),
    ``question_id, seq, subject, language, script, stem_preview,
    answer_key, tier, bucket, top_answer, agreement_count,
    agreeing_families, n_models, n_valid, key_error (the probability that
    the key is wrong, with all evidence so far), structure_suspect,
    structure_reason, has_parallel, parallel_key_match, n_reviews,
    n_reviewers, n_verdicts, required, status, reviewed_by_me,
    adjudicated, last_reviewed_at, n_reports`` (open error reports from
    readers), ``info_gain`` (under the weighted rule: the expected
    information, in bits, of one more verdict).
    """
    with connect(db, read_only=True) as con:
        lead = NEEDS_ME in (_as_list(status) or []) and _may_settle(con, reviewer)
        rel, params = queue_relation(
            benchmark, tiers=tiers, subjects=subjects, status=status, reviewer=reviewer,
            structure_suspect=structure_suspect, parallel_mismatch=parallel_mismatch, may_settle=lead, con=con)
        page = ""
        if limit is not None:
            params["limit"], params["offset"] = int(limit), int(offset)
            page = "LIMIT $limit OFFSET $offset"
        elif offset:
            params["offset"] = int(offset)
            page = "OFFSET $offset"
        o = _disputes_first(lead) + _order_sql(order, params)
        # Text columns are read for the page only: left(stem) over 100,000
        # Tibetan stems alone costs ~0.5 s.
        sql = f"""{rel},
        page AS (SELECT * EXCLUDE (is_gold) FROM queue ORDER BY {o} {page})
        SELECT page.*, t.stem_preview, t.structure_reason
        FROM page JOIN (SELECT question_id AS _qid, left(stem, 160) AS stem_preview, structure_reason
                        FROM questions WHERE benchmark = $benchmark) t ON t._qid = page.question_id
        ORDER BY {o}"""
        df = run(con, sql, params).df()
    df.insert(0, "position", range(int(offset) + 1, int(offset) + 1 + len(df)))
    return df


@dataclass(frozen=True)
class QueueProgress:
    """Review progress within a queue filter (status filter not applied)."""

    total: int
    reviewed: int            # at least one current verdict or an adjudication
    done: int                # settled
    disputed: int
    needs_second_review: int
    unreviewed: int
    reviewed_by_me: int

    @property
    def fraction(self) -> float:
        return self.reviewed / self.total if self.total else 0.0

    @property
    def label(self) -> str:
        return f"{self.reviewed} of {self.total} reviewed"


def queue_progress(
    benchmark: str,
    *,
    tiers: Iterable[int] | int | None = (1, 2),
    subjects: Iterable[str] | str | None = None,
    reviewer: str | None = None,
    structure_suspect: bool | None = None,
    parallel_mismatch: bool | None = None,
    db: DbPath = None,
) -> QueueProgress:
    """How far the review of the items matching the filters has got
    ("37 of 107 reviewed"), in one query.  Takes the filters of
    :func:`review_queue` except ``status`` (progress is across statuses)."""
    with connect(db, read_only=True) as con:
        rel, params = queue_relation(
            benchmark, tiers=tiers, subjects=subjects, status=None, reviewer=reviewer,
            structure_suspect=structure_suspect, parallel_mismatch=parallel_mismatch, con=con)
        sql = f"""{rel}
        SELECT count(*), count(*) FILTER (WHERE status <> '{UNREVIEWED}'),
               count(*) FILTER (WHERE status = '{DONE}'), count(*) FILTER (WHERE status = '{DISPUTED}'),
               count(*) FILTER (WHERE status = '{NEEDS_SECOND_REVIEW}'),
               count(*) FILTER (WHERE status = '{UNREVIEWED}'), count(*) FILTER (WHERE reviewed_by_me)
        FROM queue"""
        row = run(con, sql, params).fetchall()[0]
    return QueueProgress(*(int(x) for x in row))


def neighbours(
    benchmark: str,
    question_id: str,
    *,
    tiers: Iterable[int] | int | None = (1, 2),
    subjects: Iterable[str] | str | None = None,
    status: Iterable[str] | str | None = None,
    reviewer: str | None = None,
    structure_suspect: bool | None = None,
    parallel_mismatch: bool | None = None,
    order: str | None = None,
    db: DbPath = None,
) -> tuple[str | None, str | None]:
    """(previous id, next id) of ``question_id`` within the queue filter and
    order (None at either end).  The item itself need not match the filter
    any more (e.g. it left the "unreviewed" filter when its verdict was
    saved): it keeps its place in the ordering."""
    with connect(db, read_only=True) as con:
        lead = NEEDS_ME in (_as_list(status) or []) and _may_settle(con, reviewer)
        rel, params = queue_relation(
            benchmark, tiers=tiers, subjects=subjects, status=status, reviewer=reviewer,
            structure_suspect=structure_suspect, parallel_mismatch=parallel_mismatch,
            include=question_id, may_settle=lead, con=con)
        params["question_id"] = question_id
        o = _disputes_first(lead) + _order_sql(order, params)
        sql = f"""{rel}
        SELECT prev_id, next_id FROM (
            SELECT question_id, lag(question_id) OVER w AS prev_id, lead(question_id) OVER w AS next_id
            FROM queue WINDOW w AS (ORDER BY {o})
        ) WHERE question_id = $question_id"""
        rows = run(con, sql, params).fetchall()
    return (rows[0][0], rows[0][1]) if rows else (None, None)


def next_for_reviewer(
    benchmark: str,
    reviewer: str,
    *,
    after: str | None = None,
    tiers: Iterable[int] | int | None = (1, 2),
    subjects: Iterable[str] | str | None = None,
    structure_suspect: bool | None = None,
    parallel_mismatch: bool | None = None,
    order: str | None = None,
    db: DbPath = None,
) -> str | None:
    """The next item (in the queue order, within the filters) that still
    needs ``reviewer``'s verdict — unreviewed or waiting for a second review,
    and not yet reviewed by them; for a lead or admin, the disputed items
    they may settle come first.  ``after``: start looking after this item
    (wrapping round to the top of the queue); None: the first such item.
    None when nothing is left for this reviewer.

    Known-answer items come at the campaign's rate (``gold_rate``): the
    next item is one when the reviewer's answers to known-answer items fall
    short of that share of their verdicts (randomised rounding, so they do
    not come at a fixed period); otherwise they are passed over.  A lead or
    admin, who knows them, is never sent one.

    >>> import tempfile, os
    >>> from audit.store import init_db
    >>> next_for_reviewer("none", "Pema", db=init_db(os.path.join(tempfile.mkdtemp(), "a.duckdb"))) is None
    True
    """
    name = clean_name(reviewer)
    if not name:
        raise AuditError("next_for_reviewer needs the reviewer's name")
    with connect(db, read_only=True) as con:
        lead = _may_settle(con, name)
        rel, params = queue_relation(
            benchmark, tiers=tiers, subjects=subjects, status=None, reviewer=name,
            structure_suspect=structure_suspect, parallel_mismatch=parallel_mismatch,
            include=after, con=con)
        params["after"] = after
        params["want_gold"] = params["mask_gold"] and _wants_gold(con, benchmark, name)
        o = _disputes_first(lead) + _order_sql(order, params)
        dispute = _DISPUTED_SQL if lead else "false"
        sql = f"""{rel},
        ranked AS (SELECT question_id, {_needs_me_sql(lead)} AS needs, {dispute} AS dispute, is_gold,
                          row_number() OVER (ORDER BY {o}) AS pos FROM queue),
        here AS (SELECT coalesce(max(pos) FILTER (WHERE question_id = $after), 0) AS p FROM ranked)
        SELECT question_id FROM ranked, here
        WHERE needs AND question_id IS DISTINCT FROM $after AND (NOT is_gold OR $want_gold)
        ORDER BY dispute DESC, is_gold DESC, (pos <= here.p), pos
        LIMIT 1"""
        rows = run(con, sql, params).fetchall()
    return rows[0][0] if rows else None


def _wants_gold(con, benchmark: str, reviewer: str) -> bool:
    """Whether ``reviewer``'s next item should be a known-answer item: their
    answers to known-answer items so far, plus a number in [0, 1) drawn from
    their name and verdict count (the same every time it is asked), fall
    short of the rate times their verdicts with the next one."""
    rate = trust_from(con).gold_rate
    if rate <= 0:
        return False
    n_all, n_gold = con.execute(
        "SELECT count(DISTINCT r.question_id), "
        "count(DISTINCT r.question_id) FILTER (WHERE r.review_id > g.after_review_id) "
        "FROM reviews r LEFT JOIN gold_items g ON g.benchmark = r.benchmark AND g.question_id = r.question_id "
        "WHERE r.benchmark = ? AND r.reviewer = ? AND r.verdict <> 'skip' AND NOT r.is_adjudication",
        [benchmark, reviewer]).fetchall()[0]
    u = int.from_bytes(hashlib.sha256(f"{reviewer}\x00{n_all}".encode()).digest()[:4], "big") / 2 ** 32
    return n_gold + u < rate * (n_all + 1)


__all__ = [
    "REVIEWED_BY_ME", "NOT_REVIEWED_BY_ME", "NEEDS_ME", "QUEUE_STATUSES", "NEEDS_ME_SQL", "QueueOrder",
    "QUEUE_ORDERS", "register_order", "DEFAULT_ORDER", "WEIGHTED_DEFAULT_ORDER", "queue_relation", "review_queue",
    "QueueProgress",
    "queue_progress", "neighbours", "next_for_reviewer",
]
