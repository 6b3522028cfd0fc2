"""Review progress of a benchmark in one call (``audit review status``):
items per status, the disputed items and reviewer agreement."""
from __future__ import annotations

from dataclasses import dataclass, field

from audit.i18n import label
from audit.review.agreement import ReviewerAgreement, reviewer_agreement
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
        return out


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
    return ReviewOverview(benchmark=benchmark, all_tiers=all_tiers, progress=progress,
                          disputed=list(disputed["question_id"]), agreement=reviewer_agreement(benchmark, db=db))


__all__ = ["ReviewOverview", "review_overview"]
