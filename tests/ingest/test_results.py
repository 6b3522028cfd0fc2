"""A model's published result files that carry their items
(:mod:`audit.ingest._results`, MMLU-Pro's layout): the items once each
across the files, one model per file, named by the file, and the refusals
that keep a result set from mixing two versions of an item.  Expectations
come from the records as written here, read back with ``json``."""
from __future__ import annotations

import json

import duckdb
import pytest

from audit.errors import InputError
from audit.ingest import import_results
from audit.ingest._results import model_of

LETTERS = "ABCDEFGHIJ"


def _rec(qid: int, n: int, key: int, reply_letter: str, field: str = "model_outputs") -> dict:
    return {"question_id": qid, "question": f"Which is item {qid}?", "options": [f"opt {qid}.{i}" for i in range(n)],
            "answer": LETTERS[key], "answer_index": key, "category": "physics", "src": "ori_mmlu-physics",
            "pred": reply_letter, field: f"Let's think step by step. The answer is ({reply_letter})."}


def _write(folder, name: str, elements: list) -> None:
    (folder / name).write_text(json.dumps(elements, ensure_ascii=False, indent=1), encoding="utf-8")


@pytest.mark.parametrize("name, model", [("model_outputs_Llama-2-7b-hf_5shots.json", "Llama-2-7b-hf"),
                                         ("model_outputs_gemini-1.5-pro-002_5shots.json", "gemini-1.5-pro-002"),
                                         ("results_gpt-4o.jsonl", "gpt-4o"), ("mine.json", "mine")])
def test_the_model_is_named_by_the_file(name, model):
    assert model_of(name) == model


def test_items_once_across_files_and_each_files_predictions(tmp_path):
    a = [_rec(1, 10, 9, "J"), "other", _rec(2, 4, 0, "B")]
    b = [_rec(2, 4, 0, "A", "generated_text"), _rec(3, 7, 6, "G", "generated_text"), "total"]
    _write(tmp_path, "model_outputs_m-a_5shots.json", a)
    _write(tmp_path, "model_outputs_m-b_5shots.json", b)
    db = tmp_path / "x.duckdb"
    s = import_results(tmp_path, benchmark="pro", db=db)
    assert (s.items, s.models) == (3, {"m-a": 2, "m-b": 2})
    assert any("skipped 1 element of the array that is not a record (strings: 'other')" in n for n in s.notes)
    with duckdb.connect(str(db), read_only=True) as con:
        items = {q: (len(o), k, subj) for q, o, k, subj in con.execute(
            "SELECT question_id, options, answer_key, subject FROM questions WHERE benchmark = 'pro'").fetchall()}
        preds = sorted(con.execute("SELECT model, question_id, answer FROM predictions WHERE benchmark = 'pro'")
                       .fetchall())
    records = {str(r["question_id"]): r for r in [*a, *b] if isinstance(r, dict)}
    assert items == {q: (len(r["options"]), r["answer"], r["category"]) for q, r in records.items()}
    want = sorted((m, str(r["question_id"]), r["pred"]) for m, recs in (("m-a", a), ("m-b", b))
                  for r in recs if isinstance(r, dict))
    assert preds == want, "each reply's letter, J included, read by the 'final' method"


def test_one_id_with_two_contents_is_refused_naming_it(tmp_path):
    _write(tmp_path, "model_outputs_m-a_5shots.json", [_rec(5, 4, 1, "B")])
    other = _rec(5, 4, 1, "B")
    other["options"][3] = "changed"
    _write(tmp_path, "model_outputs_m-b_5shots.json", [other])
    db = tmp_path / "x.duckdb"
    with pytest.raises(InputError) as exc:
        import_results(tmp_path, benchmark="pro", db=db)
    assert "'5'" in str(exc.value)
    assert not db.exists() or not duckdb.connect(str(db), read_only=True).execute(
        "SELECT count(*) FROM questions").fetchone()[0], "nothing is written"
