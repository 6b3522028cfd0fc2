"""audit.ingest._duck: prediction files opened by DuckDB as a view with a
``_line`` column that points at the record in the file (CSV: header = 1;
JSONL: the physical line; Parquet: row from 1), every problem one InputError
naming the file; identifiers quoted safely."""
import duckdb
import pandas as pd
import pytest

from audit.errors import InputError
from audit.ingest._duck import _as_text, one, open_source, sql_ident


@pytest.fixture
def con():
    c = duckdb.connect()
    yield c
    c.close()


def _rows(con, name):
    return con.execute(f"SELECT * FROM {name} ORDER BY _line").fetchall()


def test_csv_lines_count_the_header(con, tmp_path):
    f = tmp_path / "p.csv"
    f.write_text('question_id,model,answer\nq1,m,A\n"q,2",m,"ཁ"\n', encoding="utf-8")
    assert open_source(con, f, "src") == ["question_id", "model", "answer"]
    assert _rows(con, "src") == [("q1", "m", "A", 2), ("q,2", "m", "ཁ", 3)]


def test_tsv(con, tmp_path):
    f = tmp_path / "p.tsv"
    f.write_text("question_id\tanswer\nq1\tB\n", encoding="utf-8")
    assert open_source(con, f, "src") == ["question_id", "answer"]
    assert _rows(con, "src") == [("q1", "B", 2)]


def test_jsonl_lines_are_physical_and_values_text(con, tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"question_id": "q1", "answer": "A", "extra": {"k": [1]}}\n\n'
                 '{"question_id": 2, "answer": null}\n', encoding="utf-8")
    cols = open_source(con, f, "src")
    assert cols == ["question_id", "answer", "extra"]
    assert _rows(con, "src") == [("q1", "A", '{"k": [1]}', 1), ("2", None, None, 3)]


def test_parquet_rows_from_one(con, tmp_path):
    f = tmp_path / "p.parquet"
    pd.DataFrame({"question_id": ["q1", "q2", "q3"], "answer": ["A", None, "C"]}).to_parquet(f)
    assert open_source(con, f, "src") == ["question_id", "answer"]
    assert [r[-1] for r in _rows(con, "src")] == [1, 2, 3]


@pytest.mark.parametrize("name,content,message", [
    ("p.txt", "a", "unsupported file type '.txt'"),
    ("p.csv", "question_id,answer\n", "no rows"),
    ("p.csv", "a,a\n1,2\n", "a"),                     # a column named twice
    ("p.jsonl", '{"a": 1}\n{"a": \n', "p.jsonl:2"),
    ("p.parquet", "not parquet", "cannot read Parquet"),
    ("p.csv", b"a,b\n\xff,1\n", "UTF-8"),
])
def test_problems_name_the_file(con, tmp_path, name, content, message):
    f = tmp_path / name
    (f.write_bytes if isinstance(content, bytes) else f.write_text)(content)
    with pytest.raises(InputError, match=message) as e:
        open_source(con, f, "src")
    assert name in str(e.value)


def test_reserved_column_in_parquet(con, tmp_path):
    f = tmp_path / "p.parquet"
    pd.DataFrame({"_line": [1], "answer": ["A"]}).to_parquet(f)
    with pytest.raises(InputError, match="_line"):
        open_source(con, f, "src")


def test_missing_file(con, tmp_path):
    with pytest.raises(InputError, match="missing.csv: file not found"):
        open_source(con, tmp_path / "missing.csv", "src")


def test_sql_ident_quotes_hostile_names(con):
    name = 'a"; DROP TABLE x; --'
    con.execute(f"CREATE TABLE t ({sql_ident(name)} INTEGER)")
    assert [r[0] for r in con.execute("DESCRIBE t").fetchall()] == [name]


def test_as_text():
    assert _as_text(None) is None and _as_text(float("nan")) is None
    assert _as_text(3) == "3" and _as_text(["ཀ", 1]) == '["ཀ", 1]' and _as_text({"a": None}) == '{"a": null}'


def test_one_consumes_the_result(con):
    assert one(con, "SELECT 1, 2") == (1, 2)
    assert one(con, "SELECT 1 WHERE false") is None
    assert one(con, "SELECT ?::INTEGER + 1", [41]) == (42,)
