"""Reading passages in their own field, and keys that are not in the usual field.

AGIEval's LogiQA files give the passage in ``passage`` and the key in
``label`` beside an ``answer`` that is null in every row; CLIcK gives the
passage in ``paragraph`` and the key as the option's text ("112" for the
police's phone number).  ``audit import auto`` with no flags must store every
passage with its item (a ``context`` column, or before the stem), read the
filled key field, read a key given as text even when the text is a number,
and keep ids unique and stable.  Every expectation is computed from the file
itself, read back with ``json``.
"""
from __future__ import annotations

import json

import pytest

from tests.conftest import db_snapshot
from tests.support.cli import run_cli
from tests.support.layouts import assert_item, letter, read_jsonl, stored_items, write_agieval_logiqa, write_click


def _auto(capsys, path, bench, db, *flags) -> str:
    code, out, err = run_cli(capsys, "import", "auto", path, "-b", bench, "--db", db, *flags)
    assert code == 0, err
    return out


def _reimport_changes_nothing(capsys, path, bench, db, *flags) -> None:
    before = db_snapshot(db)
    _auto(capsys, path, bench, db, *flags)
    assert db_snapshot(db) == before, "importing the same source again changed the database (ids moved?)"


def _click_records(root) -> dict[str, dict]:
    return {rec["id"]: rec for f in sorted(root.rglob("*.json")) for rec in json.loads(f.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_agieval_label_is_the_key_beside_a_null_answer(tmp_path, db_path, capsys, lang):
    src = write_agieval_logiqa(tmp_path, lang)
    _auto(capsys, src, "logiqa", db_path)
    records = read_jsonl(src)
    assert all(r["answer"] is None for r in records) and all(r["label"] for r in records)
    got = stored_items(db_path, "logiqa")
    assert len(got) == len(records), "every record is one item"
    assert [v["key"] for v in got.values()] == [r["label"] for r in records], "the filled key field is read"
    assert not any("key_not_in_options" in v["flags"] for v in got.values())
    _reimport_changes_nothing(capsys, src, "logiqa", db_path)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_agieval_passage_is_stored_with_the_item(tmp_path, db_path, capsys, lang):
    src = write_agieval_logiqa(tmp_path, lang)
    out = _auto(capsys, src, "logiqa", db_path)
    records = read_jsonl(src)
    got = stored_items(db_path, "logiqa")
    assert len(got) == len(records)
    # no id field: the items are the file's records in file order
    for i, ((qid, item), rec) in enumerate(zip(got.items(), records)):
        assert_item(item, stem=rec["question"], options=rec["options"], context=rec["passage"],
                    where=f"{src.name} record {i} ({qid})")
    kept = [line for line in out.splitlines() if "kept only in each item's source record" in line]
    assert not any("passage" in line for line in kept), f"the passage is only in the source record: {kept}"


def test_click_paragraph_is_stored_with_the_item(tmp_path, db_path, capsys):
    """The TOPIK file alone (its keys are plain texts), so that only the passage is at stake."""
    topik = write_click(tmp_path) / "Language" / "Textual" / "Textual_TOPIK.json"
    _auto(capsys, topik, "click", db_path)
    got = stored_items(db_path, "click")
    for rec in json.loads(topik.read_text(encoding="utf-8")):
        assert_item(got[rec["id"]], stem=rec["question"], options=rec["choices"], context=rec["paragraph"],
                    where=rec["id"])


def test_click_keys_given_as_option_text_even_a_number(tmp_path, db_path, capsys):
    root = write_click(tmp_path)
    code, out, err = run_cli(capsys, "import", "auto", root, "-b", "click", "--db", db_path)
    assert code == 0, err
    assert "--key-base" not in err + out, "a flag that cannot help is never advised"
    want = {}
    for qid, rec in _click_records(root).items():
        hits = [i for i, c in enumerate(rec["choices"]) if c == rec["answer"]]
        assert len(hits) == 1, qid
        want[qid] = letter(hits[0])
    got = stored_items(db_path, "click")
    assert set(got) == set(want), "CLIcK's own ids, unchanged and unique"
    assert {q: v["key"] for q, v in got.items()} == want
    assert want["KIIP_law_11"] == "B", "'112' is the text of option B, not option number 112"
    _reimport_changes_nothing(capsys, root, "click", db_path)


def test_map_on_a_folder_adds_to_the_automatic_recognition(tmp_path, db_path, capsys):
    """``--map paragraph+question=question`` works on the CLIcK folder as on
    each of its files, and the fields it does not name (``choices``, the key
    as text) are still recognised."""
    root = write_click(tmp_path)
    _auto(capsys, root, "click", db_path, "--map", "paragraph+question=question")
    got = stored_items(db_path, "click")
    for qid, rec in _click_records(root).items():
        stem = "\n\n".join(x for x in (rec["paragraph"].strip(), rec["question"].strip()) if x)
        assert_item(got[qid], stem=stem, options=rec["choices"], key=letter(rec["choices"].index(rec["answer"])),
                    where=qid)
