"""audit.ingest.formats._lm_eval: lm-evaluation-harness ``--log_samples``
files built in tmp_path in the published layout — the task from the file
name, the model from ``results_*.json``, the log-likelihood choice (argmax,
first on a tie, NaN/+inf no answer; checked against numpy), generated text
extracted, questions from the logged documents (or the scored continuations),
several tasks prefixed, and the refusals naming file and line.  (Logs written
by lm-eval itself: tests/test_import_harness.py.)"""
import json
import math

import numpy as np
import pytest

from audit.errors import InputError
from audit.ingest.formats._lm_eval import _loglik_choice, find_samples, import_lm_eval, model_of, task_of
from tests.support.tiny import rows

DOCS = [
    {"id": "q1", "question": "2+2?", "choices": ["3", "4", "5", "6"], "label": 1},
    {"id": "q2", "question": "ལྷ་ས་གང་དུ་ཡོད།", "choices": ["བོད།", "རྒྱ་ནག", "ཨིན་ཇི།"], "label": 0},
]


def _ll_line(i, doc, lls):
    return {"doc_id": i, "doc": doc, "target": doc["label"],
            "arguments": {f"gen_args_{j}": {"arg_0": doc["question"] + "\nAnswer:", "arg_1": " " + c}
                          for j, c in enumerate(doc["choices"])},
            "resps": [[[v, False]] for v in lls], "filtered_resps": [[v, False] for v in lls]}


def _write(folder, task, lines, results=None):
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / f"samples_{task}_2026-11-23T03-30-26.152105.jsonl"
    f.write_text("".join(json.dumps(x, ensure_ascii=False, allow_nan=True) + "\n" for x in lines), encoding="utf-8")
    if results is not None:
        (folder / "results_2026-11-23T03-30-26.152105.json").write_text(json.dumps(results), encoding="utf-8")
    return f


@pytest.mark.parametrize("lls", [[-3.0, -1.0, -2.0], [-1.0, -1.0, -5.0], [-math.inf, -4.0, -9.0], [-0.5, -0.5]])
def test_loglik_choice_is_numpys_argmax(lls):
    assert _loglik_choice([[v, False] for v in lls]) == int(np.argmax(lls))


def test_loglik_choice_without_a_score():
    assert _loglik_choice([[-1.0, False], [math.nan, False]]) is None
    assert _loglik_choice([[math.inf, True], [-1.0, False]]) is None
    assert _loglik_choice([["x", False], [-1.0, False]]) is None
    assert _loglik_choice([]) is None
    assert _loglik_choice([[[-2.0, False]], [[-1.0, True]]]) == 1       # the unfiltered `resps` nesting


def test_task_and_model_names(tmp_path):
    from pathlib import Path

    assert task_of(Path("samples_mmlu_bo_2026-01-01T10-00-00.123.jsonl")) == "mmlu_bo"
    assert task_of(Path("samples_custom.jsonl")) == "custom"
    f = _write(tmp_path / "a", "t", [], {"config": {"model": "hf", "model_args": "pretrained=org/tiny-bo,dtype=bf16"}})
    assert model_of(f) == "org/tiny-bo"
    f = _write(tmp_path / "b", "t", [], {"config": {"model_args": {"pretrained": "org/x"}}})
    assert model_of(f) == "org/x"
    f = _write(tmp_path / "c", "t", [], {"config": {"model": "dummy", "model_args": ""}})
    assert model_of(f) == "dummy"
    assert model_of(_write(tmp_path / "d", "t", [])) is None


def test_loglikelihood_questions_from_documents(tmp_path, db_path):
    lines = [_ll_line(0, DOCS[0], [-3.0, -0.5, -2.0, -4.0]), _ll_line(1, DOCS[1], [-1.0, math.nan, -2.0])]
    f = _write(tmp_path / "out", "tiny_mc", lines, {"config": {"model_args": "pretrained=org/tiny"}})
    s = import_lm_eval(f, db=db_path)
    assert (s.benchmark, s.model, s.questions_created, s.predictions, s.valid) == ("tiny_mc", "org/tiny", 2, 2, 1)
    assert "2 questions from the logged documents" in str(s)
    q = rows(db_path, "SELECT question_id, stem, [o.text FOR o IN options], answer_key FROM questions ORDER BY seq")
    assert q == [(d["id"], d["question"], d["choices"], "ABCD"[d["label"]]) for d in DOCS]
    assert rows(db_path, "SELECT question_id, answer, method FROM predictions ORDER BY 1") == [
        ("q1", "B", "given"), ("q2", None, "given")]


def test_options_from_scored_continuations(tmp_path, db_path):
    doc = {"query": "Pick one", "gold": 2}
    line = _ll_line(5, {**doc, "question": "Pick one", "choices": ["x", "y", "z"], "label": 2}, [-2, -1, -3])
    line["doc"] = doc                      # no choices in the document: the continuations are the options
    s = import_lm_eval(_write(tmp_path, "t", [line]), model="m", db=db_path)
    assert s.questions_created == 1
    assert rows(db_path, "SELECT question_id, stem, [o.text FOR o IN options] FROM questions") == [
        ("5", "Pick one", ["x", "y", "z"])]


def test_generated_answers_into_an_existing_benchmark(tmp_path, db_path):
    import_lm_eval(_write(tmp_path / "mc", "tiny_mc", [_ll_line(0, DOCS[0], [-3.0, -0.5, -2.0, -4.0])]),
                   model="m", db=db_path)
    gen = [{"doc_id": 0, "doc": DOCS[0], "target": "B", "arguments": {}, "resps": [["The answer is B"]],
            "filtered_resps": ["The answer is B"]}]
    s = import_lm_eval(_write(tmp_path / "gen", "tiny_gen", gen), benchmark="tiny_mc", model="m", run="gen",
                       method="da", db=db_path)
    assert s.questions_created == 0 and s.valid == 1
    assert rows(db_path, "SELECT response, answer, method FROM predictions WHERE run = 'gen'") == [
        ("The answer is B", "B", "da")]


def test_several_tasks_need_a_benchmark_and_get_prefixed(tmp_path, db_path):
    out = tmp_path / "out"
    _write(out / "a", "task_a", [_ll_line(0, DOCS[0], [-1, -2, -3, -4])])
    _write(out / "b", "task_b", [_ll_line(0, DOCS[0], [-4, -3, -2, -1])])
    with pytest.raises(InputError, match="2 tasks in these logs .task_a, task_b.; pass --benchmark"):
        import_lm_eval(out, db=db_path)
    s = import_lm_eval(out, benchmark="both", model="m", db=db_path)
    assert s.tasks == ["task_a", "task_b"]
    assert rows(db_path, "SELECT question_id, answer FROM predictions ORDER BY 1") == [
        ("task_a/q1", "A"), ("task_b/q1", "D")]


def test_refusals_name_the_file_and_line(tmp_path, db_path):
    f = _write(tmp_path, "t", [_ll_line(0, DOCS[0], [-1, -2, -3, -4]), {"doc_id": 1, "doc": {}}])
    with pytest.raises(InputError, match="missing field 'filtered_resps'") as e:
        import_lm_eval(f, model="m", db=db_path)
    assert f"{f.name}:2" in str(e.value)
    f = _write(tmp_path, "t", [{"doc_id": 0, "doc": {"question": "Q"}, "filtered_resps": ["A"]}])
    with pytest.raises(InputError, match="no options in the logged document"):
        import_lm_eval(f, model="m", db=db_path)
    f = _write(tmp_path, "t", [_ll_line(0, {"id": "q", "question": "Q", "choices": list("abcdefg"), "label": 0},
                                        [-9, -9, -9, -9, -9, -9, -1])])
    with pytest.raises(InputError):
        import_lm_eval(f, model="m", db=db_path)
    assert rows(db_path, "SELECT count(*) FROM predictions") == [(0,)]


def test_find_samples(tmp_path):
    with pytest.raises(InputError, match="not found"):
        find_samples(tmp_path / "nope")
    with pytest.raises(InputError, match="--log_samples"):
        find_samples(tmp_path)
    f = _write(tmp_path / "deep" / "er", "t", [])
    assert find_samples(tmp_path) == [f]
