"""A large question CSV is parsed in chunks into a
staging Parquet file and stored by one bulk insert.  Checked here on a file
of several chunks, through the real ``audit`` CLI and a real DuckDB file:

* a bad row in a late chunk: ``error: FILE:LINE``, exit 1, the database
  file byte-identical (it is not even opened) and no staging file left;
* what is stored equals what the per-chunk writer ``store_questions``
  stores for the same parsed rows (every column), and a re-import replaces
  the questions with ``seq`` continuing.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from audit._util.files import iter_table
from audit.ingest._questions import import_questions, parse_question_rows
from audit.ingest.storing import store_questions
from audit.store import connect, transaction
from tests.conftest import REPO

# 45,000-row files through the real CLI: several seconds each
pytestmark = pytest.mark.slow

ROWS = 45_000   # three chunks of iter_table's 20,000 rows


def _csv(path: Path, rows: int, *, dup_at: int | None = None) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("id,question,A,B,C,answer,subject\n")
        for i in range(rows):
            qid = "q8" if dup_at is not None and i == dup_at else f"q{i}"
            fh.write(f"{qid},ཀ་ What is {i}?,{i},{i + 1},\"{i}, or {i + 2}\",{'ABCX'[i % 4]},s{i % 7}\n")
    return path


def _rows(db: Path) -> list[tuple]:
    with connect(db, read_only=True) as con:
        return con.execute("SELECT * FROM questions ORDER BY seq").fetchall()


def test_bad_row_in_a_late_chunk_leaves_the_database_byte_identical(tmp_path):
    db = tmp_path / "s.duckdb"
    import_questions(_csv(tmp_path / "seed.csv", 50), benchmark="big", db=db)
    before = db.read_bytes()
    bad = _csv(tmp_path / "bad.csv", ROWS, dup_at=44_000)       # file line 44,002
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = subprocess.run(
        [sys.executable, "-m", "audit.cli", "import", "questions", str(bad), "--benchmark", "big", "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "TMPDIR": str(tmp), "HOME": str(tmp_path)},
        timeout=600,
    )
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines()[-1] == (
        f"error: {bad}:44002: duplicate question id 'q8' (first on line 10); build unique ids with "
        "--id '{file}/{row}'"), r.stderr
    assert db.read_bytes() == before
    assert list(tmp.iterdir()) == []   # the staging folder is gone


def test_staged_import_stores_what_the_chunk_writer_stores(tmp_path):
    src = _csv(tmp_path / "q.csv", ROWS)
    staged, direct = tmp_path / "staged.duckdb", tmp_path / "direct.duckdb"
    s = import_questions(src, benchmark="big", db=staged)
    assert (s.questions, s.key_not_in_options) == (ROWS, ROWS // 4)
    # the same rows through store_questions, chunk by chunk, in one transaction
    seen: dict[str, int] = {}
    with connect(direct) as con, transaction(con):
        for df in iter_table(src):
            store_questions(con, "big", "questions", parse_question_rows(df, src, "big", seen), source_path=str(src))
    got, want = _rows(staged), _rows(direct)
    assert len(got) == ROWS and got == want
    assert got[3][:3] == ("big", "q3", 3) and got[3][8] == "X"          # key kept as given, flagged
    assert [o["text"] for o in got[5][7]] == ["5", "6", "5, or 7"]       # a quoted comma stays in its cell
    # a re-import of the same content is a no-op that says so
    s = import_questions(src, benchmark="big", db=staged)
    assert (s.report.new, s.report.unchanged, s.report.changed) == (0, ROWS, [])
    assert str(s).startswith(f"nothing to import into 'big': all {ROWS:,} questions are already stored")
    assert _rows(staged) == got
