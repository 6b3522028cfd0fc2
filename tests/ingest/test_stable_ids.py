"""Ids never move: TUMLU's per-subject files, imported as they grow.

TUMLU publishes ``data/<language>/test/<subject>.jsonl`` without ids, so an
item's id comes from where it is.  It must not depend on what else is in the
folder, nor on whether the file or its folder is imported; a folder imported
again after a file was added to it keeps every earlier id, stores no item
twice, and the predictions and verdicts recorded on the earlier ids stay on
the same items.  When a layout change would move ids that are already
stored, the import is refused, naming them.
"""
from __future__ import annotations

import csv

from tests.conftest import db_snapshot
from tests.support.cli import run_cli
from tests.support.layouts import TUMLU_BIOLOGY, TUMLU_CHEMISTRY, query, read_jsonl, stored_items, write_tumlu_subject


def _run(capsys, *args) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return out


def _content(item: dict) -> tuple:
    return item["stem"], tuple(item["options"]), item["key"]


def test_a_grown_folder_keeps_every_earlier_id_prediction_and_verdict(tmp_path, db_path, capsys):
    folder = tmp_path / "uyghur" / "test"
    write_tumlu_subject(folder, "biology")
    _run(capsys, "import", "auto", folder, "-b", "tumlu", "--db", db_path)
    first = stored_items(db_path, "tumlu")
    assert len(first) == len(read_jsonl(folder / "biology.jsonl"))
    ids = list(first)
    preds = tmp_path / "predictions.csv"
    with open(preds, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["question_id", "model", "answer"])
        w.writerows([[q, "gemini-1.5-pro", "A"] for q in ids])
    _run(capsys, "import", "predictions", preds, "-b", "tumlu", "--db", db_path)
    _run(capsys, "review", "add", "-q", ids[1], "-v", "key_correct", "-r", "alice", "-b", "tumlu", "--db", db_path)
    pred_rows = query(
        db_path, "SELECT question_id, model, answer FROM predictions WHERE benchmark = 'tumlu' ORDER BY 1"
    )

    write_tumlu_subject(folder, "chemistry")                       # the folder grows by one file
    _run(capsys, "import", "auto", folder, "-b", "tumlu", "--db", db_path)
    second = stored_items(db_path, "tumlu")
    n_records = sum(len(read_jsonl(f)) for f in folder.glob("*.jsonl"))
    assert len(second) == n_records, f"{len(second)} items stored for {n_records} distinct records"
    for qid, item in first.items():
        assert qid in second and _content(second[qid]) == _content(item), f"earlier id {qid!r} moved"
    assert query(db_path, "SELECT question_id, model, answer FROM predictions WHERE benchmark = 'tumlu' "
                          "ORDER BY 1") == pred_rows
    assert query(db_path, "SELECT question_id FROM reviews WHERE benchmark = 'tumlu'") == [(ids[1],)]
    assert set(second) >= {q for q, in query(db_path, "SELECT DISTINCT question_id FROM predictions")}

    before = db_snapshot(db_path)                                   # and once more: nothing changes
    _run(capsys, "import", "auto", folder, "-b", "tumlu", "--db", db_path)
    assert db_snapshot(db_path) == before


def test_a_file_and_its_folder_give_the_same_ids(tmp_path, db_path, capsys):
    folder = tmp_path / "uyghur" / "test"
    biology = write_tumlu_subject(folder, "biology")
    write_tumlu_subject(folder, "chemistry")
    _run(capsys, "import", "auto", biology, "-b", "alone", "--db", db_path)
    _run(capsys, "import", "auto", folder, "-b", "together", "--db", db_path)
    alone = stored_items(db_path, "alone")
    together = stored_items(db_path, "together")
    by_content = {_content(v): q for q, v in together.items()}
    assert len(alone) == len(TUMLU_BIOLOGY) and len(together) == len(TUMLU_BIOLOGY) + len(TUMLU_CHEMISTRY)
    for qid, item in alone.items():
        assert by_content[_content(item)] == qid, (
            f"biology.jsonl's item {qid!r} alone is {by_content[_content(item)]!r} in its folder")


def test_a_layout_change_that_would_move_stored_ids_is_refused_naming_them(tmp_path, db_path, capsys):
    """Items stored under ids of another rule (here the row number, as
    ``--id '{row}'`` or an earlier release gave them) are the same items
    when the folder is imported again: the import refuses rather than store
    them a second time, and names every id that would move."""
    folder = tmp_path / "uyghur" / "test"
    write_tumlu_subject(folder, "biology")
    _run(capsys, "import", "auto", folder, "-b", "tumlu", "--id", "{row}", "--db", db_path)
    legacy = stored_items(db_path, "tumlu")
    assert sorted(legacy) == [str(i) for i in range(len(TUMLU_BIOLOGY))]
    write_tumlu_subject(folder, "chemistry")
    before = db_path.read_bytes()
    code, out, err = run_cli(capsys, "import", "auto", folder, "-b", "tumlu", "--db", db_path)
    assert code == 1, f"the same items would be stored twice: {out}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    for qid in legacy:
        assert f"'{qid}'" in lines[0], f"the refusal names the stored id {qid!r}: {lines[0]}"
    assert db_path.read_bytes() == before
