"""Up to ten options: MMLU-Pro's published per-model result files.

``../shared/data/real_formats/mmlu_pro/`` (the fixture ``mmlu_pro_dir``) holds three of them as published:
one JSON array per model (``model_outputs_<model>_5shots.json``, the model
named only by the file name), items with up to 10 options A–J, the reply
under ``model_outputs`` or ``generated_text``, and in the DeepSeek file
stray strings between the records.  ``audit import auto`` on the folder
brings in the questions and each model's predictions together; the
expectations are read from the files with ``json``, and the letter of each
reply with MMLU-Pro's own convention ("the answer is (X)").
"""
from __future__ import annotations

import re

import audit
from tests.conftest import db_snapshot
from tests.support.cli import run_cli
from tests.support.layouts import mmlu_pro_records, nfc, query, stored_items

LABELS = "ABCDEFGHIJ"
ANSWER_IS = re.compile(r"answer is \(?([A-J])\)?")


def _run(capsys, *args) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return out


def test_option_labels_run_to_j_with_tibetan_labels_beyond_nga():
    assert [audit.normalize_label(x) for x in "GHIJ"] == list("GHIJ")
    assert [audit.normalize_label(x) for x in ("ཅ", "ཆ", "ཇ", "ཉ", "ཏ", "ཐ")] == list("EFGHIJ")


def test_j_is_extracted_from_a_reply():
    from audit.ingest.extract import extract_answer

    assert extract_answer("Let's think step by step. … The answer is (J).", n_options=10) == "J"
    assert extract_answer("The answer is (J).", n_options=9) is None, "J is not an option of a 9-option item"


def test_mmlu_pro_result_files_bring_questions_and_predictions(db_path, capsys, mmlu_pro_dir):
    folder = mmlu_pro_dir
    out = _run(capsys, "import", "auto", folder, "-b", "mmlu-pro", "--db", db_path)
    assert "skipped 6 elements of the array that are not records (strings: 'other', 'total'" in out
    assert "model 'Llama-2-7b-hf' (from the file name model_outputs_Llama-2-7b-hf_5shots.json)" in out
    per_model = mmlu_pro_records(folder)
    assert set(per_model) == {"DeepSeek-Coder-V2", "Llama-2-7b-hf", "gemini-1.5-pro-002"}

    items = {}
    for recs in per_model.values():
        for r in recs:
            assert items.setdefault(str(r["question_id"]), r)["options"] == r["options"]
    got = stored_items(db_path, "mmlu-pro")
    assert set(got) == set(items), "MMLU-Pro's question_id is the id; each item once, across the three files"
    assert max(len(r["options"]) for r in items.values()) == 10
    for qid, r in items.items():
        assert got[qid]["options"] == [nfc(o) for o in r["options"]], qid
        assert got[qid]["labels"] == list(LABELS[:len(r["options"])]), qid
        assert got[qid]["key"] == r["answer"] == LABELS[r["answer_index"]], qid

    stored = {(q, m): (resp, ans) for q, m, resp, ans in query(
        db_path, "SELECT question_id, model, response, answer FROM predictions WHERE benchmark = 'mmlu-pro'")}
    assert {m for _, m in stored} == set(per_model), "the model is named by its file"
    n_j = 0
    for model, recs in per_model.items():
        assert sum(1 for _, m in stored if m == model) == len(recs)
        for r in recs:
            reply = r["model_outputs"] if "model_outputs" in r else r["generated_text"]
            response, letter = stored[(str(r["question_id"]), model)]
            assert response == reply, (model, r["question_id"])
            said = set(ANSWER_IS.findall(reply))
            if len(said) == 1:
                assert letter == said.pop(), (model, r["question_id"], reply[-80:])
                n_j += letter == "J"
    assert n_j == 24, "every 'the answer is (J)' of the three files is read as J"

    _run(capsys, "analyze", "-b", "mmlu-pro", "--db", db_path)
    report = _run(capsys, "report", "-b", "mmlu-pro", "--db", db_path)
    for model, recs in per_model.items():
        assert f"answered {len(recs)} of {len(items)} items" in report, model
    before = db_snapshot(db_path)
    _run(capsys, "import", "auto", folder, "-b", "mmlu-pro", "--db", db_path)
    assert db_snapshot(db_path) == before, "importing the same files again changes nothing"
