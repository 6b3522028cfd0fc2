"""audit.auto: ``audit import auto`` through the library.  Pins, on small
files and a real DuckDB file: the detection handed to the importer that
owns the format, ``--benchmark`` required for question and prediction
files (one line naming the format), a dry run that writes nothing to the
database (questions checked read-only; predictions imported into a
temporary copy that is removed) while its summary counts what a real run
stores, a folder of prediction files refused, and a dry run against a
database that does not exist yet creating none."""
from __future__ import annotations

import duckdb
import pytest

from audit.auto import AutoImport, _scratch_copy, detect_and_import, import_auto
from audit.errors import InputError
from audit.ingest import detect

QUESTIONS = "id,question,A,B,C,D,answer\nq1,ལྷ་ས་གང་དུ་ཡོད།,x,y,z,w,B\nq2,1+1?,1,2,3,4,B\n"
PREDICTIONS = "question_id,model,response\nq1,m-a,The answer is B.\nq2,m-a,I pick A\nq1,m-b,C\n"


def count(db, sql):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "questions.csv"
    q.write_text(QUESTIONS, encoding="utf-8")
    p = tmp_path / "preds.csv"
    p.write_text(PREDICTIONS, encoding="utf-8")
    return q, p


def test_detection_chooses_the_owner(files):
    q, p = files
    assert detect(q).format == "questions"
    assert detect(p).format == "predictions-long"


@pytest.mark.parametrize("which, fmt", [(0, "questions"), (1, "predictions-long")])
def test_benchmark_is_required(files, db_path, which, fmt):
    with pytest.raises(InputError, match=f"^{files[which]}: {fmt}: pass --benchmark") as e:
        import_auto(files[which], db=db_path)
    assert "\n" not in str(e.value)


def test_questions_dry_run_writes_nothing_then_imports(files, db_path):
    q, _ = files
    dry = detect_and_import(q, benchmark="b", dry_run=True, db=db_path)
    assert isinstance(dry, AutoImport) and dry.detection.format == "questions"
    assert str(dry.summary).startswith("would import 2 questions into 'b'")
    assert count(db_path, "SELECT count(*) FROM questions") == 0
    assert count(db_path, "SELECT count(*) FROM benchmarks") == 0
    real = detect_and_import(q, benchmark="b", db=db_path)
    assert real.dry_run is False
    assert count(db_path, "SELECT count(*) FROM questions WHERE benchmark = 'b'") == 2
    assert count(db_path, "SELECT stem FROM questions WHERE question_id = 'q1'") == "ལྷ་ས་གང་དུ་ཡོད།"


def test_predictions_dry_run_uses_a_scratch_copy(files, db_path):
    q, p = files
    detect_and_import(q, benchmark="b", db=db_path)
    before = db_path.stat().st_mtime_ns
    dry = detect_and_import(p, benchmark="b", dry_run=True, db=db_path)
    assert dry.dry_run is True and dry.detection.format == "predictions-long"
    assert "3 predictions of 2 model(s) into 'b': 3 valid" in str(dry.summary)
    assert count(db_path, "SELECT count(*) FROM predictions") == 0
    assert db_path.stat().st_mtime_ns == before
    detect_and_import(p, benchmark="b", db=db_path)
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        got = con.execute("SELECT model, question_id, answer FROM predictions ORDER BY 1, 2").fetchall()
    finally:
        con.close()
    assert got == [("m-a", "q1", "B"), ("m-a", "q2", "A"), ("m-b", "q1", "C")]


def test_a_folder_of_prediction_files_is_refused(tmp_path, db_path):
    d = tmp_path / "preds"
    d.mkdir()
    (d / "a.csv").write_text(PREDICTIONS, encoding="utf-8")
    det = detect(d / "a.csv")
    with pytest.raises(InputError, match="a folder of prediction files: import them one at a time"):
        import_auto(d, benchmark="b", db=db_path, detection=det)


def test_scratch_copy_of_a_missing_database_creates_none(tmp_path):
    missing = tmp_path / "none.duckdb"
    with _scratch_copy(missing) as scratch:
        assert not scratch.exists() and scratch.name == "dry-run.duckdb"
        folder = scratch.parent
    assert not folder.exists() and not missing.exists()


def test_scratch_copy_holds_the_rows(files, db_path):
    detect_and_import(files[0], benchmark="b", db=db_path)
    with _scratch_copy(db_path) as scratch:
        assert count(scratch, "SELECT count(*) FROM questions") == 2
