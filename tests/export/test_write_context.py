"""Passages travel with their items into a release.

A file in AGIEval LogiQA's published layout (the passage in its own field)
is imported with ``audit import auto`` and exported; ``questions.csv``,
``questions.jsonl`` and ``questions.parquet`` carry each passage in a
``context`` column, read back with ``csv``, ``json`` and pyarrow and
compared with the source file read with ``json``.  The JSONL, imported
again into another benchmark, gives the same passages.
"""
from __future__ import annotations

import csv
import json

import pyarrow.parquet as pq

from tests.support.cli import run_cli
from tests.support.layouts import nfc, read_jsonl, stored_items, write_agieval_logiqa


def _ok(capsys, *args) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    return out


def test_the_passage_is_in_every_export_file_and_comes_back_in(tmp_path, db_path, capsys):
    src = write_agieval_logiqa(tmp_path, "zh")
    _ok(capsys, "import", "auto", src, "-b", "logiqa", "--db", db_path)
    records = read_jsonl(src)
    exports = tmp_path / "exports"
    _ok(capsys, "export", "create", "-b", "logiqa", "-v", "1.0", "--exports-dir", exports, "--db", db_path)
    folder = exports / "logiqa" / "1.0"
    want = [(nfc(r["passage"]), nfc(r["question"])) for r in records]

    with open(folder / "questions.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:6] == ["id", "subject", "language", "script", "context", "question"]
    assert [(r["context"], r["question"]) for r in rows] == want

    lines = [json.loads(x) for x in (folder / "questions.jsonl").read_text(encoding="utf-8").split("\n") if x]
    assert [(x["context"], x["question"]) for x in lines] == want

    table = pq.read_table(folder / "questions.parquet")
    assert list(zip(table.column("context").to_pylist(), table.column("stem").to_pylist())) == want

    _ok(capsys, "import", "questions", folder / "questions.jsonl", "-b", "again", "--db", db_path)
    again = stored_items(db_path, "again")
    assert [(v["context"], v["stem"]) for v in again.values()] == want
    assert [v["key"] for v in again.values()] == [r["label"] for r in records]
