"""Inter-reviewer agreement: Cohen's kappa between every two reviewers on
the items both reviewed, and one pooled figure for the dashboard.

Each reviewer's label on an item is their *current verdict* (latest
non-skip, non-adjudication row), compared as in the settlement rule:
``key_wrong`` verdicts naming different corrected answers disagree
(``compare="opinion"``, the default); ``compare="verdict"`` compares the
verdict categories only.  Kappa comes from
:func:`audit.analyze.cohen_kappa` (statsmodels ``cohens_kappa``,
asymptotic SE, Wald 95% CI).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from audit.analyze import agreement_matrix, cohen_kappa
from audit.analyze.kappa import KappaResult
from audit.errors import AuditError
from audit.review._common import run
from audit.store import DbPath, connect

_CURRENT = """
SELECT question_id AS item, reviewer AS rater, {label} AS label
FROM reviews
WHERE benchmark = $benchmark AND verdict <> 'skip' AND NOT is_adjudication
QUALIFY row_number() OVER (PARTITION BY question_id, reviewer ORDER BY review_id DESC) = 1
"""
MIN_KAPPA_ITEMS = 10
"""Below this many items reviewed by both people, kappa is too unstable to
report as a number (its 95% interval spans most of [-1, 1]; see Sim &
Wright 2005, *Phys Ther* 85:257, on sample sizes for kappa)."""

_LABELS = {"opinion": "verdict || coalesce(':' || corrected_answer, '')", "verdict": "verdict"}


@dataclass(frozen=True)
class ReviewerAgreement:
    """``pairs``: one row per pair of reviewers with common items —
    ``rater_a, rater_b, n, agreement, kappa, se, ci_low, ci_high``.
    ``overall``: Cohen's kappa pooled over every (item, reviewer pair), the
    two reviewers of a pair in alphabetical order; ``overall.n`` counts those
    pairs.  ``n_items``: items with at least two current verdicts.
    ``min_items``: the fewest items reviewed by both for a kappa to be
    reported (:data:`MIN_KAPPA_ITEMS` unless asked otherwise)."""

    pairs: pd.DataFrame
    overall: KappaResult
    n_items: int
    n_reviewers: int
    min_items: int = MIN_KAPPA_ITEMS

    @property
    def enough(self) -> bool:
        """Whether enough items were reviewed twice for kappa to mean something."""
        k = self.overall
        return self.n_items >= self.min_items and k.n > 0 and k.kappa == k.kappa

    @property
    def label(self) -> str:
        k = self.overall
        if k.n == 0 or k.kappa != k.kappa:
            return f"kappa not available ({self.n_items} items reviewed twice)"
        if self.n_items < self.min_items:
            return (f"too few items for kappa: {self.n_items} reviewed twice "
                    f"(at least {self.min_items} are needed for the figure to mean anything)")
        return f"{k.describe()}, {self.n_items} items"


def reviewer_agreement(benchmark: str, *, compare: str = "opinion", min_items: int | None = None,
                       db: DbPath = None) -> ReviewerAgreement:
    """Cohen's kappa between reviewers (pairwise and pooled) on a benchmark.

    ``min_items``: a pair of reviewers with fewer items in common keeps its
    counts and raw agreement, but its ``kappa``, ``se``, ``ci_low`` and
    ``ci_high`` are NaN — on so few items the figure would mislead (its
    interval spans most of [-1, 1]; see :data:`MIN_KAPPA_ITEMS`) — and the
    pooled figure needs that many items reviewed twice (``enough``).
    ``None`` masks no pair and keeps :data:`MIN_KAPPA_ITEMS` for ``enough``.

    >>> import tempfile, os
    >>> from audit.store import init_db
    >>> r = reviewer_agreement("none", db=init_db(os.path.join(tempfile.mkdtemp(), "a.duckdb")))
    >>> r.n_items, r.pairs.empty
    (0, True)
    """
    if compare not in _LABELS:
        raise AuditError(f"compare must be one of {', '.join(_LABELS)}, not {compare!r}")
    if min_items is not None and min_items < 1:
        raise AuditError(f"min_items must be at least 1, not {min_items}")
    cur = _CURRENT.format(label=_LABELS[compare])
    with connect(db, read_only=True) as con:
        ratings = run(con, cur + " ORDER BY item, rater", {"benchmark": benchmark}).df()
        pooled = run(con, f"""
            WITH c AS ({cur})
            SELECT a.label, b.label FROM c a JOIN c b ON a.item = b.item AND a.rater < b.rater
            ORDER BY a.item, a.rater, b.rater""", {"benchmark": benchmark}).fetchall()
    multi = ratings.groupby("item")["rater"].nunique() if not ratings.empty else pd.Series(dtype=int)
    n_items = int((multi >= 2).sum())
    pairs = agreement_matrix(ratings)
    pairs = pairs[pairs["n"] > 0].sort_values(["n", "rater_a", "rater_b"], ascending=[False, True, True])
    if min_items is not None:
        pairs = pairs.copy()
        pairs.loc[pairs["n"] < min_items, ["kappa", "se", "ci_low", "ci_high"]] = float("nan")
    overall = cohen_kappa([a for a, _ in pooled], [b for _, b in pooled])
    return ReviewerAgreement(pairs.reset_index(drop=True), overall, n_items, int(ratings["rater"].nunique()),
                             MIN_KAPPA_ITEMS if min_items is None else int(min_items))


__all__ = ["MIN_KAPPA_ITEMS", "ReviewerAgreement", "reviewer_agreement"]
