"""Published file shapes the importer does not read yet, each from a real benchmark.

GAOKAO-Bench wraps its records in a JSON object; JMMLU and MMLU's own
``data/test/*.csv`` have no header row; ParsiNLU's ``id`` is the source page,
so it repeats within a file; an MM-Eval file sits in a folder beside
multiple-choice files; JSON strings may hold U+0085, U+2028 and U+2029.
``audit import auto`` with no flags must read each, every stem, option and
key equal to the file as ``json``/``csv`` read it, ids unique and stable.
"""
from __future__ import annotations

import json

import pytest

from tests.conftest import db_snapshot
from tests.support.cli import run_cli
from tests.support.layouts import (
    assert_item,
    embedded_options,
    letter,
    read_csv_rows,
    read_jsonl,
    stored_items,
    write_gaokao,
    write_gaokao_math,
    write_jmmlu,
    write_jsonl_line_separators,
    write_mm_eval_folder,
    write_mmlu_test,
    write_parsinlu,
)


def _auto(capsys, path, bench, db, *flags) -> str:
    code, out, err = run_cli(capsys, "import", "auto", path, "-b", bench, "--db", db, *flags)
    assert code == 0, err
    return out


def _reimport_changes_nothing(capsys, path, bench, db) -> None:
    before = db_snapshot(db)
    _auto(capsys, path, bench, db)
    assert db_snapshot(db) == before, "importing the same source again changed the database (ids moved?)"


@pytest.mark.parametrize("write", [write_gaokao, write_gaokao_math], ids=["biology", "math-latex"])
def test_gaokao_records_inside_a_json_object(tmp_path, db_path, capsys, write):
    src = write(tmp_path)
    _auto(capsys, src, "gaokao", db_path)
    doc = json.loads(src.read_text(encoding="utf-8"))
    assert set(doc) == {"keywords", "example"}
    records = doc["example"]
    got = stored_items(db_path, "gaokao")
    assert len(got) == len(records), "each record of 'example' is one item"
    for (qid, item), rec in zip(got.items(), records):
        stem, options = embedded_options(rec["question"])
        assert len(options) == 4, rec["index"]
        assert_item(item, stem=stem, options=options, key=rec["answer"][0], where=f"index {rec['index']} ({qid})")
    _reimport_changes_nothing(capsys, src, "gaokao", db_path)


def test_jmmlu_csv_without_a_header_row(tmp_path, db_path, capsys):
    src = write_jmmlu(tmp_path)
    out = _auto(capsys, src, "jmmlu", db_path)
    assert "no header row" in out, "the choice is said, as every other choice of import auto"
    rows = read_csv_rows(src, header=False)
    assert all(len(r) == 6 for r in rows)
    got = stored_items(db_path, "jmmlu")
    assert len(got) == len(rows), "the first row is an item, not a header"
    for i, ((qid, item), row) in enumerate(zip(got.items(), rows)):
        assert_item(item, stem=row[0], options=row[1:5], key=row[5].strip(), where=f"row {i} ({qid})")
    _reimport_changes_nothing(capsys, src, "jmmlu", db_path)


def test_mmlu_data_test_folder_without_header_rows(tmp_path, db_path, capsys):
    folder = write_mmlu_test(tmp_path)
    out = _auto(capsys, folder, "mmlu", db_path)
    assert "no header row" in out
    rows = read_csv_rows(folder / "global_facts_test.csv", header=False)
    got = stored_items(db_path, "mmlu")
    assert len(got) == len(rows)
    for i, ((qid, item), row) in enumerate(zip(got.items(), rows)):
        assert_item(item, stem=row[0], options=row[1:5], key=row[5], where=f"row {i} ({qid})")
    assert got[next(iter(got))]["options"] == ["10%", "20%", "40%", "80%"]
    _reimport_changes_nothing(capsys, folder, "mmlu", db_path)


def test_parsinlu_ids_that_repeat_within_a_file(tmp_path, db_path, capsys):
    src = write_parsinlu(tmp_path)
    out = _auto(capsys, src, "parsinlu", db_path)
    records = read_jsonl(src)
    assert len({r["id"] for r in records}) < len(records), "the fixture's ids repeat, as published"
    assert any("repeat" in line and "id" in line for line in out.splitlines()), "a note says the ids repeat"
    got = stored_items(db_path, "parsinlu")
    assert len(got) == len(records), "no record is lost or merged"
    for i, ((qid, item), rec) in enumerate(zip(got.items(), records)):
        options = list(rec["candidates"])
        while options and not options[-1].strip():      # empty trailing candidates are no options
            options.pop()
        assert_item(item, stem=rec["question"], options=options, key=letter(int(rec["answer"]) - 1),
                    where=f"line {i + 1} ({qid})")
        assert item["source"]["id"] == rec["id"], "the file's id is kept in the source record"
    _reimport_changes_nothing(capsys, src, "parsinlu", db_path)


def test_folder_with_a_file_that_is_not_multiple_choice(tmp_path, db_path, capsys):
    folder = write_mm_eval_folder(tmp_path)
    out = _auto(capsys, folder, "ko", db_path)
    named = [line for line in out.splitlines() if "mm_eval_ko.jsonl" in line]
    assert named and "skip" in named[0].lower(), f"one line names the skipped file: {out}"
    rows = read_csv_rows(folder / "Agricultural-Sciences-dev.csv")
    got = stored_items(db_path, "ko")
    assert len(got) == len(rows), "the multiple-choice file is imported, the other one is not"
    for (qid, item), row in zip(got.items(), rows):
        assert_item(item, stem=row["question"], options=[row[x] for x in "ABCD"], key=letter(int(row["answer"]) - 1),
                    where=qid)


def test_jsonl_strings_holding_nel_line_and_paragraph_separators(tmp_path, db_path, capsys):
    src = write_jsonl_line_separators(tmp_path)
    _auto(capsys, src, "seps", db_path)
    records = read_jsonl(src)
    text = src.read_text(encoding="utf-8")
    assert all(ch in text for ch in "\u0085\u2028\u2029") and text.count("\n") == len(records)
    got = stored_items(db_path, "seps")
    assert len(got) == len(records)
    for (qid, item), rec in zip(got.items(), records):
        assert_item(item, stem=rec["question"], options=rec["choices"], key=rec["answer"], where=qid)
