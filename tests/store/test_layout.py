"""cluster_predictions rewrites predictions in item order without changing
their content or the table definition."""
from __future__ import annotations

from audit.review import item_view
from audit.store import connect
from audit.store.layout import cluster_predictions
from tests.support.review_bench import bench_copy


def test_cluster_keeps_rows_and_schema(tmp_path):
    db = bench_copy(tmp_path)
    with connect(db) as con:  # store some rows out of item order
        con.execute("INSERT INTO predictions (benchmark, question_id, model, response, answer, method, valid) "
                    "VALUES ('bench', 'q01', 'late-model', 'B', 'B', 'caa', true)")
        before = sorted(con.execute("SELECT * FROM predictions").fetchall())
        ddl = con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'predictions'").fetchall()[0][0]
    s = cluster_predictions(db=db)
    assert s.rows == len(before)
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT * FROM predictions").fetchall()
        assert sorted(rows) == before
        assert [r[:3] for r in rows] == sorted(r[:3] for r in rows)   # benchmark, question_id, model order
        assert con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'predictions'").fetchall()[0][0] == ddl
        assert con.execute("SELECT column_default FROM information_schema.columns "
                           "WHERE table_name = 'predictions' AND column_name = 'run'").fetchall()[0][0] is not None
    assert "late-model" in [a.model for f in item_view("bench", "q01", db=db).families for a in f.answers]
