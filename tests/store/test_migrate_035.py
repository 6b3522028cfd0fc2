"""Migration 035: audit_results and key_error_scores lose their
PRIMARY KEY (an index no query used, costly on every analyze) and keep
their rows, columns, NOT NULLs and defaults; the views still read them."""
from __future__ import annotations

import duckdb
import pytest

from audit.store import connect
from tests.conftest import database_before


def _constraints(con, table: str) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT constraint_type FROM duckdb_constraints() WHERE table_name = ?", [table]).fetchall()}


def test_035_keeps_rows_drops_primary_keys(tmp_path):
    db = tmp_path / "old.duckdb"
    con = database_before(db, 35)
    assert "PRIMARY KEY" in _constraints(con, "audit_results")
    assert "PRIMARY KEY" in _constraints(con, "key_error_scores")
    con.execute("INSERT INTO audit_runs (run_id, benchmark, config, models) VALUES (1, 'b', '{}', ['m'])")
    con.execute("INSERT INTO audit_results VALUES (1, 'b', 'q1', 1, 'tier1', 'B', 3, 2, 3, 3, 0), "
                "(1, 'b', 'q2', NULL, 'incomplete', NULL, 0, 0, 3, 1, 1)")
    con.execute("INSERT INTO key_error_scores (run_id, benchmark, question_id, score, alternative, p_reject, n_judges) "
                "VALUES (1, 'b', 'q1', 0.9, 'B', 0.95, 2), (1, 'b', 'q2', NULL, NULL, NULL, 0)")
    before_r = con.execute("SELECT * FROM audit_results ORDER BY question_id").fetchall()
    before_s = con.execute("SELECT * FROM key_error_scores ORDER BY question_id").fetchall()
    cols_r = con.execute("SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns "
                         "WHERE table_name = 'audit_results' ORDER BY ordinal_position").fetchall()
    cols_s = con.execute("SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns "
                         "WHERE table_name = 'key_error_scores' ORDER BY ordinal_position").fetchall()
    con.close()

    with connect(db) as con:          # migrates
        assert con.execute("SELECT max(version) FROM schema_version").fetchall()[0][0] >= 35
        # the columns of version 35 keep their rows and types (later migrations may add columns after them)
        for table, cols, before in (("audit_results", cols_r, before_r), ("key_error_scores", cols_s, before_s)):
            names = ", ".join(c[0] for c in cols)
            assert con.execute(f"SELECT {names} FROM {table} ORDER BY question_id").fetchall() == before
            now = con.execute(
                "SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns "
                "WHERE table_name = ? ORDER BY ordinal_position",
                [table],
            ).fetchall()
            assert now[:len(cols)] == cols
            assert "PRIMARY KEY" not in _constraints(con, table)
            assert "NOT NULL" in _constraints(con, table)
        assert con.execute("SELECT count(*) FROM current_audit").fetchall()[0][0] == 2
        assert con.execute("SELECT count(*) FROM current_key_error").fetchall()[0][0] == 2
        # defaults kept
        con.execute("INSERT INTO key_error_scores (run_id, benchmark, question_id) VALUES (1, 'b', 'q3')")
        assert con.execute("SELECT llr_parallel, llr_lint, llr_judges, n_judges FROM key_error_scores "
                           "WHERE question_id = 'q3'").fetchall() == [(0.0, 0.0, 0.0, 0)]
        with pytest.raises(duckdb.ConstraintException):   # NOT NULL kept
            con.execute("INSERT INTO audit_results (run_id, benchmark, question_id) VALUES (1, 'b', 'q4')")


def test_analyze_writes_one_row_per_item_and_run(tmp_path):
    """Without the key, uniqueness rests on the writers: two analyses and a
    rescore of the same run leave one row per (run, item) in each table."""
    from audit.analyze import analyze_benchmark
    from audit.analyze.inputs import model_set
    from audit.analyze.keyerror import score_run

    db = tmp_path / "t.duckdb"
    with connect(db) as con:
        con.execute("INSERT INTO benchmarks VALUES ('b', 'demo', NULL, now())")
        con.execute("INSERT INTO questions (benchmark, question_id, seq, stem, options, answer_key) "
                    "SELECT 'b', 'q' || i, i, 'stem', [{'label': 'A', 'text': 'x'}, {'label': 'B', 'text': 'y'}], "
                    "CASE WHEN i % 3 = 0 THEN 'B' ELSE 'A' END FROM range(30) t(i)")
        con.execute("INSERT INTO models SELECT 'm' || i, 'f' || (i % 3), NULL, 'set' FROM range(6) t(i)")
        con.execute("INSERT INTO predictions SELECT 'b', 'q' || q, 'm' || m, 'default', NULL, "
                    "CASE WHEN (q + m) % 4 = 0 THEN 'B' ELSE 'A' END, 'given', true FROM range(30) a(q), range(6) b(m)")
    runs = [analyze_benchmark("b", db=db).runs[0].run_id for _ in range(2)]
    with connect(db) as con:
        con.execute("BEGIN")
        con.register("_ms", model_set(con, "b").arrow())
        score_run(con, runs[-1], "b", model_set(con, "b"))      # a rescore replaces the run's rows
        con.unregister("_ms")
        con.execute("COMMIT")
        for table in ("audit_results", "key_error_scores"):
            dup = con.execute(f"SELECT count(*) FROM (SELECT run_id, question_id FROM {table} "
                              "GROUP BY ALL HAVING count(*) > 1)").fetchall()[0][0]
            per_run = con.execute(f"SELECT run_id, count(*) FROM {table} GROUP BY run_id ORDER BY run_id").fetchall()
            assert dup == 0, table
            assert per_run == [(r, 30) for r in runs], table
