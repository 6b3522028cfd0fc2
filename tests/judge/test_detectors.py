"""Published judge verdicts come in through `audit import auto`:
MMLU-Redux detector CSVs (linked to items by question text) and plain
verdict tables; all-or-nothing, idempotent, unmatched rows named."""
from __future__ import annotations

import duckdb
import pytest

from tests.conftest import shared_path
from tests.support.cli_process import run_audit

DET = "binary_mini_mmlu_groundtruth_correctness_zeroshot_cot_gpt4_geo_enwiki-paragraphs.csv"


def _cli(*args, cwd):
    return run_audit(args, module="audit", cwd=cwd)


def _counts(db):
    with duckdb.connect(str(db), read_only=True) as c:
        return c.execute("SELECT (SELECT count(*) FROM judge_verdicts), (SELECT count(*) FROM judge_runs)").fetchall()[
            0
        ]


@pytest.fixture
def geo(tmp_path):
    from audit.ingest._questions import import_questions

    db = tmp_path / "x.duckdb"
    (tmp_path / "q.csv").write_text("id,question,A,B,C,answer\nq1,Capital of France?,Rome,Paris,Oslo,B\n"
                                    "q2,Capital of Norway?,Oslo,Rome,Paris,A\n")
    import_questions(tmp_path / "q.csv", benchmark="geo", db=db)
    return tmp_path, db


@pytest.mark.slow
def test_detector_file_linked_by_text_and_verdict_kept(geo):
    d, db = geo
    f = d / DET
    f.write_text('question,choices,model_answer,predicted_error_type\n'
                 '"Capital of\n  France?","[\'Paris\', \'Rome\', \'Oslo\']","{""Classification"": ""Wrong""}",notok\n'
                 '"Capital of Norway?","[\'Oslo\', \'Rome\', \'Paris\']",fine,ok\n')
    r = _cli("import", "auto", str(f), "--benchmark", "geo", "--db", str(db), cwd=d)
    assert r.returncode == 0, r.stderr
    assert "judge-detectors" in r.stdout
    with duckdb.connect(str(db), read_only=True) as c:
        rows = c.execute("SELECT question_id, judge, prompt_version, answer_key_correct, raw_reply, explanation "
                         "FROM judge_verdicts ORDER BY question_id").fetchall()
    assert rows == [("q1", "gpt4", "zeroshot_cot/enwiki-paragraphs", False, '{"Classification": "Wrong"}',
                     "predicted_error_type=notok"),
                    ("q2", "gpt4", "zeroshot_cot/enwiki-paragraphs", True, "fine", "predicted_error_type=ok")]
    before = _counts(db)
    r2 = _cli("import", "auto", str(f), "--benchmark", "geo", "--db", str(db), cwd=d)
    assert r2.returncode == 0 and "already imported" in r2.stdout
    assert _counts(db) == before


@pytest.mark.slow
def test_unmatched_row_named_with_file_and_line_nothing_written(geo):
    d, db = geo
    f = d / DET
    f.write_text('question,choices,model_answer,predicted_error_type\n'
                 '"Capital of France?","[\'Paris\', \'Rome\', \'Oslo\']",x,ok\n'
                 '"Capital of Spain?","[\'Madrid\', \'Rome\', \'Oslo\']",x,ok\n')
    r = _cli("import", "auto", str(f), "--benchmark", "geo", "--db", str(db), cwd=d)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{f}:3" in r.stderr and "nothing was imported" in r.stderr
    assert _counts(db) == (0, 0)
    r = _cli("import", "auto", str(f), "--benchmark", "geo", "--db", str(db), "--skip-unmatched", cwd=d)
    assert r.returncode == 0 and f"{f}:3" in r.stdout
    assert _counts(db) == (1, 1)


@pytest.mark.slow
def test_plain_verdict_table(geo):
    from audit.judge import import_detectors

    d, db = geo
    f = d / "verdicts.jsonl"
    f.write_text(
        '{"question_id": "q1", "judge": "j1", "key_correct": false, "correct_answer": "A", "explanation": "e"}\n'
        '{"question_id": "q2", "judge": "j1", "key_correct": true}\n'
    )
    s = import_detectors(f, benchmark="geo", db=db)
    assert s.stored == 2 and s.runs == {"j1 imported": 2}
    c = d / "verdicts.csv"
    c.write_text("question_id,judge,key_correct\nq1,j2,maybe\n")
    r = _cli("import", "auto", str(c), "--benchmark", "geo", "--db", str(db), cwd=d)
    assert r.returncode == 1 and f"{c}:2" in r.stderr and "key_correct" in r.stderr
    c.write_text("question_id,judge,key_correct\nq9,j2,true\n")
    r = _cli("import", "auto", str(c), "--benchmark", "geo", "--db", str(db), cwd=d)
    assert r.returncode == 1 and f"{c}:2" in r.stderr
    assert _counts(db) == (2, 1)


@pytest.mark.slow
def test_real_detector_files(tmp_path):
    """The 100 published files: 20 runs, each row linked, importing twice changes nothing."""
    from audit.ingest import import_mmlu_redux
    from audit.judge import import_detectors

    dev, det = shared_path("mmlu_redux_dev"), shared_path("mmlu_redux_detectors")
    db = tmp_path / "x.duckdb"
    import_mmlu_redux(dev, db=db)
    with pytest.raises(Exception) as e:
        import_detectors(det, benchmark="mmlu-redux", db=db)
    assert "match no item" in str(e.value) and ".csv:" in str(e.value)
    s = import_detectors(det, benchmark="mmlu-redux", db=db, skip_unmatched=True)
    assert len(s.runs) == 20 and s.files == 100
    assert s.stored + len(s.unmatched) == 10_000
    assert len(s.unmatched) <= 100     # items whose text differs from the dev copy (stray control bytes)
    with duckdb.connect(str(db), read_only=True) as c:
        # each run judges each linked item once; agreement with the published human label is above chance
        n, items = c.execute("SELECT count(*), count(DISTINCT question_id) FROM judge_verdicts").fetchall()[0]
    assert items >= 495 and n == s.stored
    before = _counts(db)
    again = import_detectors(det, benchmark="mmlu-redux", db=db, skip_unmatched=True)
    assert again.stored == 0 and len(again.already_imported) == 100 and _counts(db) == before
