"""Per-model accuracy over the items the model was asked, with the coverage shown.

TUMLU's questions come per subject and a model's outputs may cover one
subject only.  A model asked 3 of the benchmark's 9 items and right on all 3
has an accuracy of 100% on what it was asked, shown with "answered 3 of 9
items"; dividing by all 9 items (33%) charges it for questions it never saw.
The expected figures are counted here from the predictions and keys in the
database, with plain SQL.
"""
from __future__ import annotations

import audit
from tests.support.cli import run_cli
from tests.support.layouts import TUMLU_OUTPUTS_GEMINI, query, write_tumlu_outputs, write_tumlu_subject


def _run(capsys, *args) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return out


def test_accuracy_counts_the_items_asked_and_says_how_many(tmp_path, db_path, capsys):
    questions = tmp_path / "uyghur" / "test"
    write_tumlu_subject(questions, "biology")
    write_tumlu_subject(questions, "chemistry")
    _run(capsys, "import", "auto", questions, "-b", "tumlu", "--db", db_path)
    outputs = tmp_path / "outputs" / "no_cot_instruct"
    write_tumlu_outputs(outputs, "gemini-1.5-pro", "biology", TUMLU_OUTPUTS_GEMINI)
    _run(capsys, "import", "auto", outputs, "-b", "tumlu", "--db", db_path)

    (n_items,), = query(db_path, "SELECT count(*) FROM questions WHERE benchmark = 'tumlu'")
    (asked, correct), = query(db_path, "SELECT count(*), count(*) FILTER (WHERE p.valid AND p.answer = q.answer_key) "
                                       "FROM predictions p JOIN questions q USING (benchmark, question_id) "
                                       "WHERE p.benchmark = 'tumlu' AND p.model = 'gemini-1.5-pro'")
    assert (n_items, asked, correct) == (9, 3, 3), "the fixture: 3 of 9 items asked, all 3 right"

    m = audit.model_metrics("tumlu", db=db_path).set_index("model").loc["gemini-1.5-pro"]
    assert m["accuracy"] == correct / asked, f"accuracy {m['accuracy']:.3f} is not over the {asked} items asked"

    _run(capsys, "analyze", "-b", "tumlu", "--db", db_path)
    report = _run(capsys, "report", "-b", "tumlu", "--db", db_path)
    assert f"answered {asked} of {n_items} items" in report, "the coverage is shown beside the accuracy"
    line = next(x for x in report.splitlines() if x.strip().startswith("gemini-1.5-pro"))
    assert "100.00%" in line and "33.33%" not in line, line
