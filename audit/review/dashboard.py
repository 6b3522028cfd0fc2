"""Data for the workbench dashboards: tiers per subject (heatmap), review
progress per reviewer and per subject.  Each is one SQL query."""
from __future__ import annotations

import pandas as pd

from audit.review._common import run
from audit.review._status import AUDIT_CTE
from audit.review.queue import queue_relation
from audit.store import DbPath, connect


def tier_by_subject(benchmark: str, *, pivot: bool = False, db: DbPath = None) -> pd.DataFrame:
    """Items per subject and tier of the current audit.

    Long form (default): columns ``subject, tier, bucket, n`` (``tier`` NULL
    with bucket ``incomplete`` for items set aside; subject NULL shown as
    ``'(none)'``).  ``pivot=True``: subject × bucket counts (0 where empty),
    rows sorted by subject, columns ``tier0 … tier5[, incomplete]`` — ready
    for a heatmap."""
    with connect(db, read_only=True) as con:
        df = run(con, f"""
            WITH {AUDIT_CTE}
            SELECT coalesce(q.subject, '(none)') AS subject, a.tier, a.bucket, count(*) AS n
            FROM questions q JOIN cur_audit a USING (question_id)
            WHERE q.benchmark = $benchmark
            GROUP BY ALL ORDER BY subject, a.tier NULLS LAST, a.bucket""", {"benchmark": benchmark}).df()
    if not pivot:
        return df
    if df.empty:
        return pd.DataFrame(index=pd.Index([], name="subject"))
    wide = df.pivot_table(index="subject", columns="bucket", values="n", aggfunc="sum", fill_value=0)
    cols = sorted(c for c in wide.columns if c.startswith("tier")) + [
        c for c in wide.columns if not c.startswith("tier")
    ]
    wide = wide[cols].astype("int64")
    wide.columns.name = None
    return wide


def progress_by_reviewer(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """One row per reviewer: ``reviewer, n_items`` (items with a non-skip
    review), ``n_reviews`` (all rows), ``key_correct, key_wrong, ambiguous,
    defective, skip`` (rows per verdict), ``adjudications,
    first_review_at, last_review_at`` (UTC); most items first."""
    with connect(db, read_only=True) as con:
        return run(con, """
            SELECT reviewer,
                   count(DISTINCT question_id) FILTER (WHERE verdict <> 'skip') AS n_items,
                   count(*) AS n_reviews,
                   count(*) FILTER (WHERE verdict = 'key_correct') AS key_correct,
                   count(*) FILTER (WHERE verdict = 'key_wrong') AS key_wrong,
                   count(*) FILTER (WHERE verdict = 'ambiguous') AS ambiguous,
                   count(*) FILTER (WHERE verdict = 'defective') AS defective,
                   count(*) FILTER (WHERE verdict = 'skip') AS skip,
                   count(*) FILTER (WHERE is_adjudication) AS adjudications,
                   min(created_at) AS first_review_at, max(created_at) AS last_review_at
            FROM reviews WHERE benchmark = $benchmark
            GROUP BY reviewer ORDER BY n_items DESC, reviewer""", {"benchmark": benchmark}).df()


def list_benchmarks(*, db: DbPath = None) -> list[str]:
    """Names of the benchmarks in the database, sorted (for pickers).

    >>> import tempfile, os
    >>> from audit.store import init_db
    >>> list_benchmarks(db=init_db(os.path.join(tempfile.mkdtemp(), "b.duckdb")))
    []
    """
    with connect(db, read_only=True) as con:
        return [r[0] for r in con.execute("SELECT name FROM benchmarks ORDER BY name").fetchall()]


def progress_by_subject(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """Campaign progress per subject over the items that enter the queue
    (the entry setting; no assignment): columns ``subject, total, reviewed,
    done, needs_second_review, disputed, unreviewed`` (counts of the
    settlement rule's statuses, :mod:`audit.review._status`), most items
    first.  One query."""
    with connect(db, read_only=True) as con:
        rel, params = queue_relation(benchmark, tiers=None, subjects=None, status=None, reviewer=None,
                                      structure_suspect=None, parallel_mismatch=None, con=con)
        return run(con, f"""{rel}
            SELECT subject, count(*) AS total, count(*) FILTER (WHERE status <> 'unreviewed') AS reviewed,
                   count(*) FILTER (WHERE status = 'done') AS done,
                   count(*) FILTER (WHERE status = 'needs_second_review') AS needs_second_review,
                   count(*) FILTER (WHERE status = 'disputed') AS disputed,
                   count(*) FILTER (WHERE status = 'unreviewed') AS unreviewed
            FROM queue GROUP BY subject ORDER BY total DESC, subject NULLS LAST""", params).df()


__all__ = ["tier_by_subject", "progress_by_reviewer", "list_benchmarks", "progress_by_subject"]
