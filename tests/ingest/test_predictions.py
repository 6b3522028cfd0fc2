"""import_predictions: long / wide / seed layouts, extraction, validity,
replacement, refusal of unknown ids (real DuckDB files)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from audit.errors import InputError
from audit.ingest import import_predictions, import_questions
from audit.ingest.extract import extract_answer
from tests.support.common import copy_db, rows


def _bench(db, folder):
    f = folder / "q.csv"
    f.write_text("id,question,A,B,C,D,answer\nq1,x,a,b,c,d,A\nq2,x,a,b,c,d,B\nq3,x,a,b,c,d,C\nq4,x,a,b,,,A\n")
    import_questions(f, benchmark="b", db=db)


@pytest.fixture
def bench(db_path, db_template):
    """Benchmark 'b': q1..q3 with 4 options, q4 with 2 options."""
    return copy_db(db_template(_bench), db_path)


def preds(db, where="true"):
    return rows(db, f"SELECT question_id, model, run, response, answer, method, valid FROM predictions "
                    f"WHERE {where} ORDER BY model, run, question_id")


def test_long_given_and_raw_responses(tmp_path, bench):
    responses = ["The answer is **C**.", "<think>A or B?</think> Answer: (B)", "ABCD", "I pick D"]
    df = pd.DataFrame({
        "question_id": ["q1", "q2", "q3", "q4", "q1", "q2", "q3", "q4"],
        "model": ["m1"] * 4 + ["m2"] * 4,
        "response": responses + [None] * 4,
        "answer": [None] * 4 + ["a", "ཁ", "Z", "C"],   # q4 has 2 options: C is not a label
    })
    f = tmp_path / "p.parquet"
    df.to_parquet(f)
    s = import_predictions(f, benchmark="b", db=bench, method="caa")
    assert (s.predictions, s.extracted, s.models) == (8, 4, ["m1", "m2"])
    expected_m1 = [extract_answer(r, 2 if q == "q4" else 4, "caa") for q, r in zip(["q1", "q2", "q3", "q4"], responses)]
    got = preds(bench)
    m1 = [r for r in got if r[1] == "m1"]
    assert [r[4] for r in m1] == expected_m1
    assert [r[5] for r in m1] == ["caa"] * 4
    assert [r[3] for r in m1] == responses          # raw text kept
    m2 = [r for r in got if r[1] == "m2"]
    assert [(r[4], r[5], r[6]) for r in m2] == [("A", "given", True), ("B", "given", True),
                                                 (None, "given", False), (None, "given", False)]
    assert [r[3] for r in m2] == [None, None, "Z", "C"]  # an invalid given answer keeps its raw cell
    assert s.valid == sum(r[6] for r in got)
    fam = rows(bench, "SELECT name, family FROM models ORDER BY name")
    assert fam == [("m1", "m1"), ("m2", "m2")]


def test_long_da_method_and_run_column(tmp_path, bench):
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,response,run\nq1,m,A or B,r1\nq1,m,B,r2\n")
    import_predictions(f, benchmark="b", method="da", db=bench)
    got = preds(bench)
    assert [(r[2], r[4], r[5]) for r in got] == [("r1", extract_answer("A or B", 4, "da"), "da"), ("r2", "B", "da")]


def test_model_option_for_file_without_model_column(tmp_path, bench):
    f = tmp_path / "p.jsonl"
    f.write_text("\n".join(json.dumps({"question_id": q, "answer": "A"}) for q in ["q1", "q2"]) + "\n")
    s = import_predictions(f, benchmark="b", model="gpt-4o", run="t0", db=bench)
    assert s.models == ["gpt-4o"]
    assert rows(bench, "SELECT DISTINCT model, run FROM predictions") == [("gpt-4o", "t0")]
    assert rows(bench, "SELECT family FROM models WHERE name = 'gpt-4o'") == [("openai",)]


def test_wide_layout_unpivots_and_keeps_empty_cells_as_invalid(tmp_path, bench):
    f = tmp_path / "w.csv"
    f.write_text("question_id,claude-3,gemini-pro\nq1,A,B\nq2,,b\nq3,C,E\n")
    s = import_predictions(f, benchmark="b", layout="wide", db=bench)
    assert (s.predictions, s.valid) == (6, 4)
    got = {(r[0], r[1]): (r[4], r[6]) for r in preds(bench)}
    assert got == {("q1", "claude-3"): ("A", True), ("q2", "claude-3"): (None, False), ("q3", "claude-3"): ("C", True),
                   ("q1", "gemini-pro"): ("B", True), ("q2", "gemini-pro"): ("B", True),
                   ("q3", "gemini-pro"): (None, False)}


def test_reimport_replaces_same_model_and_run_only(tmp_path, bench):
    f = tmp_path / "w.csv"
    f.write_text("question_id,m1,m2\nq1,A,B\nq2,B,B\n")
    import_predictions(f, benchmark="b", layout="wide", db=bench)
    import_predictions(f, benchmark="b", layout="wide", run="other", db=bench)
    f.write_text("question_id,m1\nq1,C\n")
    s = import_predictions(f, benchmark="b", layout="wide", db=bench)
    assert s.replaced == 2
    counts = rows(bench, "SELECT model, run, count(*) FROM predictions GROUP BY ALL ORDER BY ALL")
    assert counts == [("m1", "default", 1), ("m1", "other", 2), ("m2", "default", 2), ("m2", "other", 2)]
    assert rows(bench, "SELECT answer FROM predictions WHERE model='m1' AND run='default'") == [("C",)]
    # no duplicates after importing the same file twice
    import_predictions(f, benchmark="b", layout="wide", db=bench)
    assert rows(bench, "SELECT count(*) FROM predictions WHERE model='m1' AND run='default'") == [(1,)]


def test_seed_layout(tmp_path, bench):
    f = tmp_path / "qwen-max_combined_results.jsonl"
    recs = [{"loc": "q1", "extracted_answer": ["A", "C"], "answer": "A", "polished_ti_content": "…"},
            {"loc": "q2", "extracted_answer": [], "answer": "B", "polished_ti_content": "…"},
            {"loc": "q3", "extracted_answer": ["ག"], "answer": "D", "polished_ti_content": "…"}]
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n", encoding="utf-8")
    s = import_predictions(f, benchmark="b", layout="seed", db=bench)
    assert s.models == ["qwen-max"] and s.key_mismatches == 1   # q3: seed says D, stored key is C
    got = [(r[0], r[4], r[5], r[6]) for r in preds(bench)]
    assert got == [("q1", "A", "given", True), ("q2", None, "given", False), ("q3", "C", "given", True)]


def test_seed_needs_model_name(tmp_path, bench):
    f = tmp_path / "results.jsonl"
    f.write_text(json.dumps({"loc": "q1", "extracted_answer": ["A"]}) + "\n")
    with pytest.raises(InputError, match=r"results\.jsonl: cannot tell the model"):
        import_predictions(f, benchmark="b", layout="seed", db=bench)
    s = import_predictions(f, benchmark="b", layout="seed", model="m", db=bench)
    assert s.models == ["m"]


def test_duplicate_prediction_rows_are_refused(tmp_path, bench):
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,answer\nq1,m,A\nq2,m,B\nq1,m,C\n")
    with pytest.raises(
        InputError, match=r"p\.csv:2: lines 2 and 4 both give a prediction for question 'q1', model 'm'"
    ):
        import_predictions(f, benchmark="b", db=bench)


def test_questions_must_exist(tmp_path, db_path):
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,answer\nq1,m,A\n")
    with pytest.raises(InputError, match="benchmark 'nope' has no questions"):
        import_predictions(f, benchmark="nope", db=db_path)


def test_long_layout_rejects_a_wide_file(tmp_path, bench):
    f = tmp_path / "w.csv"
    f.write_text("question_id,m1,m2\nq1,A,B\n")
    with pytest.raises(InputError, match=r"unknown column\(s\) for the long layout: m1, m2 .*--layout wide"):
        import_predictions(f, benchmark="b", db=bench)
