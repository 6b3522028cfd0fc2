"""Deriving a key version: one row per item with its key and inclusion.

:func:`derive_items` is a pure, set-based function of the database state,
the settled verdicts and the policy (DuckDB SQL; no per-item Python loop).
Rows are ordered by the item's import order (``seq``), so every file built
from them is deterministic.
"""
from __future__ import annotations

import pandas as pd

from audit._util.sql import unregister
from audit.export.policy import Policy
from audit.judge.summary import verdict_summary_sql
from audit.review.record import CAUSE_VERDICTS
from audit.review.summary import REVIEWER_SUMMARY_CTES

#: Columns of :func:`derive_items`.
ITEM_COLUMNS = [
    "seq", "question_id", "subject", "original_key", "answer_key", "included", "action", "exclusion_list",
    "verdict", "corrected_answer", "cause", "cause_from", "adjudicated", "settled", "reviewers", "n_reviewers",
    "rationale", "proposed_fix", "review_dates", "tier", "agreement_count", "top_answer", "judge_verdict", "settled_by",
]

SETTLED_COLUMNS = ["question_id", "verdict", "corrected_answer", "cause", "cause_from", "adjudicated"]


def _settled_frame(settled: pd.DataFrame | None) -> pd.DataFrame:
    if settled is None or len(settled) == 0:
        return pd.DataFrame({
            "question_id": pd.Series([], dtype=object), "verdict": pd.Series([], dtype=object),
            "corrected_answer": pd.Series([], dtype=object), "cause": pd.Series([], dtype=object),
            "cause_from": pd.Series([], dtype=object), "adjudicated": pd.Series([], dtype=bool),
            "settled_by": pd.Series([], dtype=object),
        })
    missing = [c for c in ("question_id", "verdict") if c not in settled.columns]
    if missing:
        raise ValueError(f"settled verdicts lack columns {missing}")
    out = pd.DataFrame(
        {"question_id": settled["question_id"].astype(object), "verdict": settled["verdict"].astype(object)}
    )
    for c in ("corrected_answer", "cause", "cause_from"):
        out[c] = settled[c].astype(object).where(settled[c].notna(), None) if c in settled.columns else None
    out["adjudicated"] = (
        settled["adjudicated"].fillna(False).astype(bool) if "adjudicated" in settled.columns else False
    )
    out["settled_by"] = (settled["settled_by"].astype(object) if "settled_by" in settled.columns
                         else out["adjudicated"].map({True: "adjudication", False: "agreement"}).astype(object))
    return out


#: The cause an export shows for a settled verdict: a cause beside a verdict it does not belong to
#: (audit.review.record.CAUSE_VERDICTS, the rule add_review enforces; key_slip only with key_wrong) is a
#: row written before that rule or edited by hand; it is shown as inconsistent, never as a cause.
INCONSISTENT_CAUSE = (
    "CASE WHEN s.cause IS NOT NULL AND (s.verdict NOT IN ("
    + ", ".join(f"'{v}'" for v in CAUSE_VERDICTS)
    + ") OR (s.cause = 'key_slip' AND s.verdict <> 'key_wrong')) "
    "THEN 'inconsistent: cause ' || s.cause || ' given with a ' || s.verdict || ' verdict' "
    "ELSE s.cause END")


def derive_items(con, benchmark: str, policy: Policy, settled: pd.DataFrame | None) -> pd.DataFrame:
    """Every item of *benchmark* with its key in the version *policy* derives.

    ``settled`` is ``audit.review.settled_verdicts(benchmark)`` (only settled
    items; columns question_id, verdict, corrected_answer, cause, adjudicated,
    and ``cause_from`` when known).
    Returns :data:`ITEM_COLUMNS`: ``action`` is 'corrected' | 'excluded' |
    'unchanged'; ``answer_key`` is the key in the version (the original key
    for excluded items, which stay in the native files); ``reviewers``,
    ``rationale``, ``proposed_fix`` and ``review_dates`` summarise each reviewer's latest
    non-skip review (adjudications marked), ``tier``/``agreement_count``
    come from the benchmark's current audit, ``judge_verdict`` from the LLM
    judges when present.
    """
    frame = _settled_frame(settled)
    con.register("_export_settled", frame)
    try:
        sql = f"""
        WITH {REVIEWER_SUMMARY_CTES}, judge AS ({verdict_summary_sql(con)}
        ), base AS (
            SELECT q.seq, q.question_id, q.subject, q.answer_key AS original_key,
                   s.verdict, s.corrected_answer, {INCONSISTENT_CAUSE} AS cause, s.cause_from,
                   coalesce(s.adjudicated, false) AS adjudicated,
                   s.verdict IS NOT NULL AS settled,
                   rv.reviewers, coalesce(rv.n_reviewers, 0) AS n_reviewers, rv.rationale, rv.proposed_fix,
                   rv.review_dates,
                   a.tier, a.agreement_count, a.top_answer, j.judge_verdict, s.settled_by,
                   s.verdict IS NOT NULL
                     AND (NOT $adjudicated_only OR coalesce(s.adjudicated, false))
                     AND (coalesce(s.adjudicated, false) OR coalesce(rv.n_reviewers, 0) >= $min_reviewers) AS counts
            FROM questions q
            LEFT JOIN _export_settled s USING (question_id)
            LEFT JOIN rv USING (question_id)
            LEFT JOIN current_audit a ON a.benchmark = q.benchmark AND a.question_id = q.question_id
            LEFT JOIN judge j ON j.question_id = q.question_id
            WHERE q.benchmark = $benchmark
        ), decided AS (
            SELECT *,
                   CASE WHEN counts AND $correct AND verdict = 'key_wrong' AND corrected_answer IS NOT NULL
                             AND corrected_answer IS DISTINCT FROM original_key THEN 'corrected'
                        WHEN counts AND list_contains($exclude, verdict) THEN 'excluded'
                        ELSE 'unchanged' END AS action
            FROM base
        )
        SELECT seq, question_id, subject, original_key,
               CASE WHEN action = 'corrected' THEN corrected_answer ELSE original_key END AS answer_key,
               action <> 'excluded' AS included, action,
               CASE WHEN action = 'excluded' THEN verdict END AS exclusion_list,
               verdict, corrected_answer, cause, cause_from, adjudicated, settled, reviewers, n_reviewers,
               rationale, proposed_fix, review_dates, tier, agreement_count, top_answer, judge_verdict, settled_by
        FROM decided ORDER BY seq, question_id
        """
        params = {
            "benchmark": benchmark,
            "adjudicated_only": bool(policy.adjudicated_only),
            "min_reviewers": int(policy.min_reviewers),
            "correct": bool(policy.correct),
            "exclude": list(policy.exclude) or [""],
        }
        df = con.execute(sql, params).df()
    finally:
        unregister(con, "_export_settled")
    return df[ITEM_COLUMNS]


def counts(items: pd.DataFrame) -> dict[str, int]:
    """corrected / excluded / unchanged / reviewed / items counts of a derived version."""
    return {
        "items": int(len(items)),
        "corrected": int((items["action"] == "corrected").sum()),
        "excluded": int((items["action"] == "excluded").sum()),
        "unchanged": int((items["action"] == "unchanged").sum()),
        "reviewed": int(items["reviewers"].notna().sum()),
    }
