"""Review progress of a benchmark in one call (``audit review status``):
items per status, the disputed items, reviewer agreement and, in an
evidence-blind campaign, each reviewer's blind agreement with the settled
keys (:func:`audit.review.blind.blind_agreement`)."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import pandas as pd

from audit.i18n import label
from audit.review.agreement import ReviewerAgreement, reviewer_agreement
from audit.review.blind import blind_agreement
from audit.review.queue import QueueProgress, queue_progress, review_queue
from audit.store import DbPath
from audit.store.benchmarks import resolves_benchmark


@dataclass
class ReviewOverview:
    """Progress of the review of one benchmark.

    ``progress``: items per status (:class:`~audit.review.queue.QueueProgress`);
    ``disputed``: ids of the disputed items (queue order); ``agreement``:
    Cohen's kappa between reviewers (:func:`~audit.review.reviewer_agreement`).
    """

    benchmark: str
    all_tiers: bool
    progress: QueueProgress
    disputed: list[str] = field(default_factory=list)
    agreement: ReviewerAgreement | None = None
    blind: pd.DataFrame | None = None      # blind_agreement(); None when nobody answered blind

    def lines(self, max_disputed: int = 20) -> list[str]:
        """The report in plain words, one line each."""
        p = self.progress
        out = [f"{self.benchmark} ({'all items' if self.all_tiers else 'Tier 1–2'}): {p.label}"]
        for key, n in (("unreviewed", p.unreviewed), ("needs_second_review", p.needs_second_review),
                       ("disputed", p.disputed), ("done", p.done)):
            out.append(f"  {label('status', key):<24}{n:>7}")
        if self.disputed:
            out.append("disputed: " + ", ".join(self.disputed[:max_disputed])
                       + (" …" if len(self.disputed) > max_disputed else ""))
        if self.agreement is not None:
            out.append(f"reviewer agreement: {self.agreement.label}")
        if self.blind is not None and len(self.blind):
            out.append("answered blind (before the evidence):")
            for r in self.blind.itertuples(index=False):
                agree = (f"{r.n_agree} of {r.n_settled} agree with the settled key ({_pct(r.agreement)})"
                         if r.n_settled else "no settled key yet")
                changed = (f"verdict differs from the blind answer on {r.n_changed} of {r.n_verdicts} "
                           f"({_pct(r.changed)})" if r.n_verdicts else "no verdict yet")
                out.append(f"  {r.reviewer}: {r.n_blind} answered; {agree}; {changed}")
        return out

    def as_dict(self) -> dict:
        """The report as plain JSON-able values (``audit review status
        --format json``): shares as fractions (null when undefined)."""
        k = self.agreement
        return {
            "benchmark": self.benchmark, "all_tiers": self.all_tiers, "progress": asdict(self.progress),
            "disputed": list(self.disputed),
            "reviewer_agreement": None if k is None else {
                "n_items": int(k.n_items), "n_reviewers": int(k.n_reviewers), "enough": bool(k.enough),
                "kappa": _num(k.overall.kappa), "ci_low": _num(k.overall.ci_low), "ci_high": _num(k.overall.ci_high)},
            "blind": [] if self.blind is None else [
                {c: (_num(v) if isinstance(v, float) else (int(v) if c.startswith("n_") else v))
                 for c, v in row.items()} for row in self.blind.to_dict("records")],
        }


def _num(x) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else round(x, 4)


def _pct(x) -> str:
    return "–" if x is None or x != x else f"{100 * x:.0f}%"


@resolves_benchmark
def review_overview(benchmark: str | None = None, *, all_tiers: bool = False, db: DbPath = None) -> ReviewOverview:
    """Review progress of *benchmark* (None: the only one): Tier 1–2 items
    unless *all_tiers*.

    >>> import tempfile, os
    >>> from audit.store import init_db
    >>> from audit.ingest.storing import store_questions
    >>> from audit.store.records import Option, Question
    >>> from audit.store import connect
    >>> db = os.path.join(tempfile.mkdtemp(), "a.duckdb"); _ = init_db(db)
    >>> with connect(db) as con:
    ...     _ = store_questions(con, "b", "test", [Question("b", "q1", "?", [Option("A", "x"), Option("B", "y")], "A")])
    >>> review_overview(db=db, all_tiers=True).lines()[0]
    'b (all items): 0 of 1 reviewed'
    """
    tiers = None if all_tiers else (1, 2)
    progress = queue_progress(benchmark, tiers=tiers, db=db)
    disputed = review_queue(benchmark, tiers=tiers, status="disputed", db=db)
    blind = blind_agreement(benchmark, db=db)
    return ReviewOverview(benchmark=benchmark, all_tiers=all_tiers, progress=progress,
                          disputed=list(disputed["question_id"]), agreement=reviewer_agreement(benchmark, db=db),
                          blind=blind if len(blind) else None)


__all__ = ["ReviewOverview", "review_overview"]
