"""Physical order of ``predictions`` for the item page.

The item page reads one item's ~100 predictions out of ~10 M.  DuckDB skips
row groups by their min/max (zone maps), which only helps when rows are
stored in item order.  Importers append model by model, so after a large
import a lookup scans the whole ``question_id`` column (~450 ms for 10 M rows
on a loaded 2-core machine); after :func:`cluster_predictions` it reads one
or two row groups (~10 ms).  An ART index was measured and rejected: every
per-operation connection reloads it (~210 ms cold) and it adds ~210 MB.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from audit.store import DbPath, connect, transaction


@dataclass(frozen=True)
class ClusterSummary:
    rows: int
    seconds: float
    row_groups_per_item_before: float
    row_groups_per_item_after: float


def _row_groups_per_item(con) -> float:
    """Average number of row groups a lookup of one item must read (1–2 when
    clustered; nearly all when not), from the storage min/max statistics of
    ``question_id`` for a sample of 200 items.  NaN when unavailable."""
    try:
        return float(con.execute("""
            WITH rg AS (
                SELECT row_group_id, min(stats.min::VARCHAR) AS lo, max(stats.max::VARCHAR) AS hi
                FROM pragma_storage_info('predictions')
                WHERE column_name = 'question_id' AND segment_type = 'VARCHAR' GROUP BY row_group_id),
            s AS (SELECT question_id FROM questions USING SAMPLE 200 ROWS (reservoir, 42))
            SELECT coalesce(avg(n), 0) FROM (
                SELECT s.question_id, count(rg.row_group_id) AS n FROM s
                LEFT JOIN rg ON s.question_id >= rg.lo AND left(s.question_id, length(rg.hi)) <= rg.hi
                GROUP BY s.question_id)""").fetchall()[0][0])
    except Exception:  # storage statistics differ between DuckDB versions; this is only a diagnostic
        return float("nan")


def cluster_predictions(*, db: DbPath = None) -> ClusterSummary:
    """Rewrite ``predictions`` ordered by (benchmark, question_id, model, run)
    in one transaction (all or nothing).  Run once after importing
    predictions (``audit review optimize``); about 45 s for 10 M rows.  The
    table definition is kept; rows and their content are unchanged."""
    t0 = time.perf_counter()
    with connect(db) as con:
        before = _row_groups_per_item(con)
        ddl = con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'predictions' "
                          "AND schema_name = 'main'").fetchall()[0][0]
        with transaction(con):
            con.execute(ddl.replace("CREATE TABLE predictions", "CREATE TABLE _predictions_sorted", 1))
            con.execute("INSERT INTO _predictions_sorted SELECT * FROM predictions "
                        "ORDER BY benchmark, question_id, model, run")
            con.execute("DROP TABLE predictions")
            con.execute("ALTER TABLE _predictions_sorted RENAME TO predictions")
        con.execute("CHECKPOINT")
        rows = con.execute("SELECT count(*) FROM predictions").fetchall()[0][0]
        after = _row_groups_per_item(con)
    return ClusterSummary(int(rows), time.perf_counter() - t0, before, after)


__all__ = ["ClusterSummary", "cluster_predictions"]
