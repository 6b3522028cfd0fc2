"""Model outputs that carry their question, where two items are identical.

TUMLU's outputs (``outputs/<setting>/<model>/<subject>.json``) name no item:
each record is linked to its item by question text and option set.  When a
subject file holds the same item twice, the model was asked it twice, and
its outputs hold two records that fit both items.  They are linked in order
of appearance (the first record to the item that comes first) when the
counts match, instead of refusing the whole import.
"""
from __future__ import annotations

import json

from tests.support.cli import run_cli
from tests.support.layouts import (
    TUMLU_BIOLOGY,
    TUMLU_OUTPUTS_GEMINI,
    query,
    read_jsonl,
    stored_items,
    write_tumlu_outputs,
    write_tumlu_subject,
)


def test_identical_items_are_linked_in_order_of_appearance(tmp_path, db_path, capsys):
    questions = tmp_path / "uyghur" / "test"
    rows = read_jsonl(write_tumlu_subject(questions, "biology", TUMLU_BIOLOGY + [TUMLU_BIOLOGY[1]]))
    assert rows[1] == rows[4], "the subject file holds item 1 again, as row 4"
    code, out, err = run_cli(capsys, "import", "auto", questions, "-b", "tumlu", "--db", db_path)
    assert code == 0, err
    items = stored_items(db_path, "tumlu")
    assert len(items) == 5
    first_id, second_id = [q for q, v in items.items() if v["stem"] == TUMLU_BIOLOGY[1]["question"].strip()]

    again = dict(TUMLU_OUTPUTS_GEMINI[1], choices=["ATP", "O₂", "ADP", "خلوروفىل"], answer="A",
                 output="جاۋاب: C) ADP")
    outputs = tmp_path / "outputs" / "no_cot_instruct"
    src = write_tumlu_outputs(outputs, "gemini-1.5-pro", "biology", TUMLU_OUTPUTS_GEMINI + [again])
    code, out, err = run_cli(capsys, "import", "auto", outputs, "-b", "tumlu", "--db", db_path)
    assert code == 0, err

    records = json.loads(src.read_text(encoding="utf-8"))
    got = dict(query(db_path, "SELECT question_id, answer FROM predictions WHERE benchmark = 'tumlu'"))
    assert len(got) == len(records), "every output record is one prediction"
    # the letter each record wrote, read against the choices it was shown, as the item's own label
    for qid, rec in ((first_id, records[1]), (second_id, records[3])):
        shown = rec["output"].split("جاۋاب:", 1)[1].strip().lstrip("*")[0]
        text = rec["choices"]["ABCD".index(shown)]
        assert got[qid] == "ABCD"[items[qid]["options"].index(text)], qid
    assert (got[first_id], got[second_id]) == ("C", "B"), "the first record to the first item, the second to the second"

