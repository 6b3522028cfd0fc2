"""Benchmarks published as archives, read in place, and archives that must be refused.

EXAMS publishes ``*.jsonl.tar.gz`` and DZEN a ``.zip`` (Dzongkha and English
of an item in one row, column names with '.' and a trailing space).  ``audit
import auto`` with no flags reads the members where they are — nothing is
extracted to disk — and names the member in every error.  A member path that
escapes the archive, a link, a member expanding past 1 GiB and an archive
inside the archive are each refused with one line, and nothing is written.
Expectations come from ``tarfile``/``zipfile``/``csv`` reading the archive.
"""
from __future__ import annotations

import csv
import io
import json
import tarfile
import time
import zipfile

import pytest

from tests.conftest import db_snapshot
from tests.support.cli import run_cli
from tests.support.layouts import (
    DZEN_HEADER,
    DZEN_ROWS,
    EXAMS,
    assert_item,
    nfc,
    query,
    stored_items,
    watch_writes,
    write_dzen_zip,
    write_exams_tar,
    write_hostile_archive,
)


def _auto(capsys, path, bench, db, *flags) -> str:
    code, out, err = run_cli(capsys, "import", "auto", path, "-b", bench, "--db", db, *flags)
    assert code == 0, err
    return out


def _written_members(writes: list[str], names: set[str]) -> list[str]:
    return [w for w in writes if w.rsplit("/", 1)[-1] in names or w.endswith((".jsonl", ".csv"))]


def test_exams_jsonl_tar_gz_read_in_place(tmp_path, db_path, capsys):
    src = write_exams_tar(tmp_path)
    with watch_writes() as writes:
        _auto(capsys, src, "exams", db_path)
    with tarfile.open(src) as tf:
        assert tf.getnames() == ["dev.jsonl"]
        records = [json.loads(line) for line in tf.extractfile("dev.jsonl").read().decode("utf-8").split("\n") if line]
    assert not _written_members(writes, {"dev.jsonl"}), f"a member was extracted to disk: {writes}"
    got = stored_items(db_path, "exams")
    assert set(got) == {r["id"] for r in records}, "EXAMS's own ids"
    for r in records:
        choices = r["question"]["choices"]
        assert [c["label"] for c in choices] == list("ABCDE"[:len(choices)])
        assert_item(got[r["id"]], stem=r["question"]["stem"], options=[c["text"] for c in choices],
                    key=r["answerKey"], where=r["id"])
        assert got[r["id"]]["subject"] == r["info"]["subject"]
    before = db_snapshot(db_path)
    _auto(capsys, src, "exams", db_path)
    assert db_snapshot(db_path) == before


def test_dropping_one_nested_field_keeps_the_rest_of_its_object_recognised(tmp_path, db_path, capsys):
    """EXAMS's ``info.language`` holds language names, not tags: ``--map
    info.language=`` drops it, and ``info.subject`` is still read as the subject."""
    src = write_exams_tar(tmp_path)
    _auto(capsys, src, "exams", db_path, "--map", "info.language=")
    with tarfile.open(src) as tf:
        records = [json.loads(line) for line in tf.extractfile("dev.jsonl").read().decode("utf-8").split("\n") if line]
    got = stored_items(db_path, "exams")
    assert {q: (v["subject"], v["language"]) for q, v in got.items()} == {
        r["id"]: (r["info"]["subject"], None) for r in records}
    for r in records:
        assert got[r["id"]]["source"]["info"] == r["info"], "the dropped field stays in the source record"


def test_jsonl_gz_read_in_place(tmp_path, db_path, capsys):
    """A single gzip-compressed JSONL file (``dev.jsonl.gz``), the records of EXAMS's dev.jsonl."""
    import gzip

    src = tmp_path / "dev.jsonl.gz"
    src.write_bytes(gzip.compress("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in EXAMS).encode("utf-8")))
    with watch_writes() as writes:
        _auto(capsys, src, "exams", db_path)
    records = [json.loads(line) for line in gzip.decompress(src.read_bytes()).decode("utf-8").split("\n") if line]
    assert not _written_members(writes, {"dev.jsonl"}), f"the file was decompressed to disk: {writes}"
    got = stored_items(db_path, "exams")
    assert set(got) == {r["id"] for r in records}
    for r in records:
        assert_item(got[r["id"]], stem=r["question"]["stem"], options=[c["text"] for c in r["question"]["choices"]],
                    key=r["answerKey"], where=r["id"])


def test_an_error_inside_an_archive_names_the_member_and_line(tmp_path, db_path, capsys):
    data = (json.dumps(EXAMS[0], ensure_ascii=False) + "\n" + '{"id": "35dd6a19", "question": {"stem": \n').encode()
    src = tmp_path / "dev.jsonl.tar.gz"
    with tarfile.open(src, "w:gz") as tf:
        info = tarfile.TarInfo("dev.jsonl")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    before = db_path.read_bytes()
    code, out, err = run_cli(capsys, "import", "auto", src, "-b", "exams", "--db", db_path)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "dev.jsonl.tar.gz" in lines[0] and "dev.jsonl:2" in lines[0], f"archive, member and line: {lines[0]}"
    assert db_path.read_bytes() == before


def _dzen_rows(src) -> list[dict]:
    with zipfile.ZipFile(src) as zf:
        members = [n for n in zf.namelist() if n.endswith(".csv")]
        assert len(members) == 1
        with zf.open(members[0]) as fh:
            return list(csv.DictReader(io.TextIOWrapper(fh, encoding="utf-8", newline="")))


def test_dzen_zip_two_languages_of_an_item_in_one_row(tmp_path, db_path, capsys):
    """Dzongkha is the benchmark's text; the English of the same row is its
    parallel version, stored with the item as ``import parallel`` stores
    CMMLU's Chinese beside TLUE's Tibetan (table ``parallel_links``)."""
    src = write_dzen_zip(tmp_path)
    _auto(capsys, src, "dzen", db_path)
    rows = _dzen_rows(src)
    assert "Answer " in rows[0] and "Question.1" in rows[0]
    got = stored_items(db_path, "dzen")
    assert len(got) == len(rows)
    by_stem = {item["stem"]: qid for qid, item in got.items()}
    links = {r[0]: r[1:] for r in query(
        db_path, "SELECT question_id, counterpart_stem, [o.text FOR o IN counterpart_options], counterpart_key, "
                 "key_match FROM parallel_links WHERE benchmark = 'dzen'")}
    for row in rows:
        qid = by_stem.get(nfc(row["Question"]))
        assert qid is not None, f"no item with the Dzongkha stem {row['Question']!r}"
        key = row["Answer "].strip()
        assert_item(got[qid], stem=row["Question"], options=[row[x] for x in "ABCD"], key=key, where=qid)
        assert got[qid]["script"] == "Tibt" and got[qid]["subject"] == row["Subject"]
        assert links.get(qid) == (nfc(row["Question.1"]), [nfc(row[x + ".1"]) for x in "ABCD"], key, True), qid


def test_column_names_with_a_dot_or_a_trailing_space_can_be_mapped(tmp_path, db_path, capsys):
    """``--map 'a.b '=question`` names a column, not a nested path, and keeps
    the space: DZEN's English columns read as the item, its Dzongkha ones dropped."""
    src = tmp_path / "dzen_science.csv"
    with open(src, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(DZEN_HEADER)
        w.writerows(DZEN_ROWS)
    flags = ["--map", "Question.1=question", "--map", "Answer =answer", "--map", "Question=", "--map", "Grade="]
    for x in "ABCD":
        flags += ["--map", f"{x}=", "--map", f"{x}.1={x}"]
    _auto(capsys, src, "en", db_path, *flags)
    with open(src, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    got = stored_items(db_path, "en")
    assert len(got) == len(rows)
    for (qid, item), row in zip(got.items(), rows):
        assert_item(item, stem=row["Question.1"], options=[row[x + ".1"] for x in "ABCD"], key=row["Answer "].strip(),
                    where=qid)


HOSTILE = {
    # kind: (what the one line names, the words that say why)
    "escape": ("../../escaped.jsonl", "outside the archive"),
    "absolute": ("absolute_target.jsonl", "outside the archive"),
    "symlink": ("dev.jsonl", "link"),
    "bomb": ("dev.jsonl", "expand"),
    "nested": ("inner.zip", "archive inside an archive"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_archive_is_refused_with_one_line_and_nothing_written(tmp_path, db_path, capsys, kind):
    src = write_hostile_archive(tmp_path, kind)
    before = db_path.read_bytes()
    files_before = {p for p in tmp_path.rglob("*") if not p.name.startswith(db_path.name)}
    started = time.monotonic()
    with watch_writes() as writes:
        code, out, err = run_cli(capsys, "import", "auto", src, "-b", "b", "--db", db_path)
    elapsed = time.monotonic() - started
    member, why = HOSTILE[kind]
    assert code == 1, out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert member in lines[0] and why in lines[0].lower(), f"the line names the member and why: {lines[0]}"
    assert db_path.read_bytes() == before, "nothing is written"
    assert {p for p in tmp_path.rglob("*") if not p.name.startswith(db_path.name)} == files_before
    assert not (src.parent / "../../escaped.jsonl").resolve().exists()
    assert not _written_members(writes, {"dev.jsonl", "escaped.jsonl", "absolute_target.jsonl", "inner.zip"}), writes
    assert elapsed < 60, f"refused after {elapsed:.0f} s: the member was read rather than refused"
