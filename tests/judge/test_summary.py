"""audit.judge.summary: the per-item judge verdict text exports embed —
"judge: key correct; judge: key wrong -> C", one line per item, judges in
order — and its defensive fallback when the table is absent or lacks
columns (a database from another tool version)."""
import duckdb

from audit.judge._store import save_verdicts
from audit.judge.summary import verdict_summary_sql
from audit.store import connect
from tests.support.tiny import tiny_benchmark


def _embedded(con, benchmark):
    """The SQL embedded as an export does: in a query that binds $benchmark itself."""
    sql = f"WITH v AS ({verdict_summary_sql(con)}) SELECT * FROM v WHERE $benchmark IS NOT NULL ORDER BY 1"
    return con.execute(sql, {"benchmark": benchmark}).fetchall()


def _v(qid, judge, ok, answer=None, parse_ok=True):
    return {"benchmark": "tiny", "question_id": qid, "judge": judge, "prompt_version": "p1",
            "answer_key_correct": ok, "correct_answer": answer, "parse_ok": parse_ok, "source": "run"}


def test_verdict_text_per_item(db_path, tmp_path):
    tiny_benchmark(db_path, tmp_path / "w", n=3)
    with connect(db_path) as con:
        save_verdicts(con, [_v("q1", "zeta", True), _v("q1", "alpha", False, "C"), _v("q2", "alpha", False),
                            _v("q3", "alpha", None, parse_ok=False)])
        rows = dict(_embedded(con, "tiny"))
        assert _embedded(con, "other") == []
    assert rows == {"q1": "alpha: key wrong -> C; zeta: key correct", "q2": "alpha: key wrong",
                    "q3": "alpha: no verdict"}


def test_missing_table_or_columns_give_no_rows():
    con = duckdb.connect()
    assert _embedded(con, "x") == []
    con.execute("CREATE TABLE judge_verdicts (benchmark VARCHAR, question_id VARCHAR, judge VARCHAR)")
    assert _embedded(con, "x") == []
    con.execute("ALTER TABLE judge_verdicts ADD COLUMN answer_key_correct BOOLEAN")
    con.execute("INSERT INTO judge_verdicts VALUES ('x', 'q1', 'j', false)")
    # an older table without correct_answer: the verdict without the corrected answer
    assert _embedded(con, "x") == [("q1", "j: key wrong")]
