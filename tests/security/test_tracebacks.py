"""Hostile input is one line on stderr, exit 1 and the database
byte-identical — never a Python traceback.  Literals (``choices`` of
MMLU-Redux files and detector CSVs, ``options`` of question files) go
through one safe parser with size and depth limits; numbers written as
other digits, nulls from Parquet and answers outside every option are
named, not crashed on.

Each case runs the real ``audit`` command in a subprocess."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import db_snapshot
from tests.support.attack import cli

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

MEMORY_BOMB = "-" * 100_000 + "1"          # ast.literal_eval: MemoryError in the parser
DEEP = "~" * 5_000 + "1"                   # RecursionError


def file_hash(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def last(text: str, n: int = 2) -> str:
    return " | ".join(text.strip().splitlines()[-n:])


def one_line(r, db: Path, before: str, *, says: str | None = None) -> None:
    assert "Traceback" not in r.stderr, last(r.stderr)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    if says:
        assert says in lines[0], lines[0]
    assert file_hash(db) == before, "the database changed"


def _redux_csv(path: Path, choices: str, gt: str = "0") -> Path:
    path.write_text("question,choices,groundtruth_answer,error_type,m1\n"
                    f'What?,"{choices}",{gt},ok,A\n', encoding="utf-8")
    return path


# ---------------------------------------------------------------- the reported cases

def test_a_crafted_choices_literal_in_an_mmlu_redux_file(db_path, tmp_path):
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(_redux_csv(tmp_path / "s.csv", MEMORY_BOMB)), "-b", "rx")
    one_line(r, db_path, before, says="choices")


def test_a_crafted_choices_literal_in_a_detector_csv(db_path, tmp_path):
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\nq1,Question 1?,a,b,A\n")
    assert cli(db_path, "import", "questions", str(q), "-b", "geo").returncode == 0
    f = tmp_path / "binary_mini_mmlu_groundtruth_correctness_zeroshot_gpt4_geo_enwiki-paragraphs.csv"
    f.write_text(f'question,choices,model_answer,predicted_error_type\nQuestion 1?,"{MEMORY_BOMB}",x,ok\n')
    before = file_hash(db_path)
    r = cli(db_path, "import", "auto", str(f), "-b", "geo")
    one_line(r, db_path, before, says="choices")


def test_a_superscript_two_as_the_mmlu_redux_answer(db_path, tmp_path):
    """``'²'.isdigit()`` is true and ``int('²')`` fails."""
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(_redux_csv(tmp_path / "s.csv", "['a', 'b']", "²")), "-b", "rx")
    one_line(r, db_path, before, says="groundtruth_answer")


def test_a_null_question_in_an_mmlu_redux_parquet(db_path, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = tmp_path / "s.parquet"
    pq.write_table(pa.table({"question": ["Q1?", None], "choices": ["['a', 'b']"] * 2, "groundtruth_answer": [0, 1],
                             "error_type": ["ok", "ok"], "m1": ["A", "B"]}), f)
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(f), "-b", "rx")
    one_line(r, db_path, before, says="question")


def test_analyze_when_every_answer_is_outside_the_options(db_path, tmp_path):
    """The correct result (a run where no item has a usable prediction) or
    one line; never ``cannot reshape array of size 0``."""
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,C,D,answer\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\n" for i in range(3)))
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer\n" + "".join(f"q{i},m{j},{'EF'[(i + j) % 2]}\n"
                                                       for i in range(3) for j in range(2)))
    assert cli(db_path, "import", "questions", str(q), "-b", "b").returncode == 0
    assert cli(db_path, "import", "predictions", str(p), "-b", "b").returncode == 0
    before = db_snapshot(db_path)
    r = cli(db_path, "analyze", "-b", "b")
    assert "Traceback" not in r.stderr, last(r.stderr)
    if r.returncode:
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert db_snapshot(db_path) == before


# ---------------------------------------------------------------- further cases of our own

def test_a_crafted_options_literal_in_a_question_file(db_path, tmp_path):
    """The questions importer's own ``options`` list literal (correct today:
    a refusal; it must stay one)."""
    f = tmp_path / "q.csv"
    f.write_text(f'id,question,options,answer\nz1,What?,"{MEMORY_BOMB}",A\n')
    before = file_hash(db_path)
    one_line(cli(db_path, "import", "questions", str(f), "-b", "bo"), db_path, before, says="options")


def test_a_deeply_nested_choices_literal(db_path, tmp_path):
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(_redux_csv(tmp_path / "s.csv", DEEP)), "-b", "rx")
    one_line(r, db_path, before)


def test_a_choices_literal_of_a_million_options(db_path, tmp_path):
    """A size limit, not a slow parse of eight megabytes of literal."""
    big = "[" + "'a', " * 1_000_000 + "]"
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(_redux_csv(tmp_path / "s.csv", big)), "-b", "rx")
    one_line(r, db_path, before)


@pytest.mark.parametrize("gt", ["①", "¹"], ids=["circled-one", "superscript-one"])
def test_other_digits_as_the_mmlu_redux_answer(db_path, tmp_path, gt):
    """Characters ``isdigit()`` accepts and ``int()`` refuses: one line."""
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(_redux_csv(tmp_path / "s.csv", "['a', 'b', 'c', 'd']", gt)),
            "-b", "rx")
    one_line(r, db_path, before, says="groundtruth_answer")


def test_a_lone_surrogate_in_a_question(db_path, tmp_path):
    f = tmp_path / "q.jsonl"
    f.write_text('{"id": "s1", "question": "Bad \\ud800 text", "A": "x", "B": "y", "answer": "A"}\n')
    before = file_hash(db_path)
    one_line(cli(db_path, "import", "questions", str(f), "-b", "bs"), db_path, before)


def test_a_lone_surrogate_in_a_judge_explanation(db_path, tmp_path):
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\nq1,Question 1?,a,b,A\n")
    assert cli(db_path, "import", "questions", str(q), "-b", "tlue").returncode == 0
    f = tmp_path / "j.jsonl"
    f.write_text('{"loc": "q1", "llm_validation": {"answer_key_correct": true, "answer_explanation": "x \\udfff y"}}\n')
    before = file_hash(db_path)
    one_line(cli(db_path, "import", "judge", str(f), "--judge", "j1", "-b", "tlue"), db_path, before)


def test_analyze_with_one_model_whose_answers_are_all_invalid(db_path, tmp_path):
    """Valid answers from one model, nothing valid from the other: the
    correct result or one line."""
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\n" + "".join(f"q{i},Q{i}?,a,b,A\n" for i in range(3)))
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer\n" + "".join(f"q{i},m1,Z\n" for i in range(3)))
    assert cli(db_path, "import", "questions", str(q), "-b", "b").returncode == 0
    assert cli(db_path, "import", "predictions", str(p), "-b", "b").returncode == 0
    before = db_snapshot(db_path)
    r = cli(db_path, "analyze", "-b", "b")
    assert "Traceback" not in r.stderr, last(r.stderr)
    if r.returncode:
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert db_snapshot(db_path) == before


def test_a_huge_number_in_a_judge_file(db_path, tmp_path):
    """A JSON value Python refuses to turn into an int (more than 4,300
    digits) in an imported judge file."""
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\nq1,Question 1?,a,b,A\n")
    assert cli(db_path, "import", "questions", str(q), "-b", "tlue").returncode == 0
    f = tmp_path / "j.jsonl"
    f.write_text(json.dumps({"loc": "q1"})[:-1] + ', "llm_validation": {"answer_key_correct": true, "confidence": '
                 + "9" * 5000 + "}}\n")
    before = file_hash(db_path)
    one_line(cli(db_path, "import", "judge", str(f), "--judge", "j1", "-b", "tlue"), db_path, before)


# ---------------------------------------------------------------- messy errors (our own cases)

def test_a_bad_memory_limit_names_the_variable_not_the_database(db_path):
    """``$AUDIT_DB_MEMORY_LIMIT=lots`` was reported as "cannot open the
    database … (is it a DuckDB file, and complete?)"."""
    before = file_hash(db_path)
    r = cli(db_path, "models", "list", env={"AUDIT_DB_MEMORY_LIMIT": "lots"})
    one_line(r, db_path, before, says="AUDIT_DB_MEMORY_LIMIT")
    assert "DuckDB file" not in r.stderr, r.stderr


def test_numbers_in_an_mmlu_redux_model_column_are_not_called_empty(db_path, tmp_path):
    """A Parquet model column of numbers was refused as "entirely empty"."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = tmp_path / "s.parquet"
    pq.write_table(pa.table({"question": ["Q1?", "Q2?"], "choices": ["['a', 'b']"] * 2, "groundtruth_answer": [0, 1],
                             "error_type": ["ok", "ok"], "m1": [1.0, 0.0]}), f)
    before = file_hash(db_path)
    r = cli(db_path, "import", "mmlu-redux", str(f), "-b", "rx")
    one_line(r, db_path, before, says="m1")
    assert "empty" not in r.stderr, r.stderr


def test_a_csv_file_as_db_for_reading_says_what_it_is(tmp_path):
    """``--db questions.csv`` for a read: "Cannot launch in-memory database
    in read-only mode!" named DuckDB's internals, not the mistake."""
    f = tmp_path / "q.csv"
    f.write_text("a,b\n1,2\n")
    before = file_hash(f)
    r = cli(f, "models", "list")
    one_line(r, f, before)
    assert "in-memory" not in r.stderr, r.stderr
