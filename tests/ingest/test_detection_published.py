"""With no flags, ``audit import auto`` imports every
entry of ``../shared/data/real_formats/`` and what is stored equals the
source, row for row.  The source is read here independently (Python's csv
and json modules, not the importer's readers), and every stem, option and
key is compared; ids are distinct; CMMLU's subject comes from its file name;
UzLiB's 1-based keys are read right; HellaSwag is in Mongolian script.
"""
from __future__ import annotations

import csv
import json
import unicodedata
from pathlib import Path

import pytest

from audit.store import connect
from tests.conftest import db_snapshot, shared_path
from tests.support.common import run_cli

LETTERS = "ABCDEF"


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s).strip()


def _stored(db: Path, benchmark: str) -> dict[str, tuple]:
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT question_id, stem, [o.text FOR o IN options], answer_key, subject, script, flags "
                           "FROM questions WHERE benchmark = ? ORDER BY seq", [benchmark]).fetchall()
    return {r[0]: r[1:] for r in rows}


def _auto(capsys, path: Path, benchmark: str, db: Path, *extra: str) -> str:
    code, out, err = run_cli(capsys, "import", "auto", path, "-b", benchmark, "--db", db, *extra)
    assert code == 0, err
    return out


def test_cmmlu_folder_as_one_benchmark(tmp_path, db_path, capsys):
    src = shared_path("real_formats/cmmlu_native")
    out = _auto(capsys, src, "cmmlu", db_path)
    # the unnamed first column numbers each file's rows: <file>/<value>, whatever else the folder holds
    assert "Unnamed: 0 → id" in out and "ids: <file>/<value of 'Unnamed: 0'>" in out
    got = _stored(db_path, "cmmlu")
    want = {}
    for f in sorted(src.glob("*.csv")):
        with open(f, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                want[f"{f.stem}/{row['']}"] = (_nfc(row["Question"]), [_nfc(row[x]) for x in "ABCD"],
                                               row["Answer"].strip(), f.stem)
    assert len(want) == 481 and set(got) == set(want)          # distinct ids: nothing overwritten
    for qid, (stem, options, key, subject) in want.items():
        assert got[qid][:4] == (stem, options, key, subject), qid
    assert {v[4] for v in got.values()} == {"Hans"}
    # the same folder again: a no-op that says so
    before = db_snapshot(db_path)
    out = _auto(capsys, src, "cmmlu", db_path)
    assert "nothing to import into 'cmmlu': all 481 questions are already stored with this content" in out
    assert db_snapshot(db_path) == before


def test_uzlib_one_based_keys_and_row_ids(db_path, capsys):
    src = shared_path("real_formats/uzlib_processed.csv")
    out = _auto(capsys, src, "uzlib", db_path)
    assert "answers: option numbers counted from 1" in out and "ids: <file>/<row>" in out
    got = _stored(db_path, "uzlib")
    with open(src, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(got) == len(rows) == 1861
    for i, row in enumerate(rows):
        options = [_nfc(row[f"option_{k}"]) for k in range(1, 5)]
        key = LETTERS[int(row["answer"]) - 1]
        qid = f"{src.stem}/{i}"      # no id field: <file>/<row>
        assert got[qid][:3] == (_nfc(row["question"]), options, key), i
        # the key read is the option the file means: the text at position `answer` (1-based)
        assert got[qid][1][LETTERS.index(got[qid][2])] == options[int(row["answer"]) - 1]
    assert sum(v[2] == "A" for v in got.values()) > 0                  # keys counted from 0 would have no A
    assert not any("key_not_in_options" in v[5] for v in got.values())


def test_hellaswag_mongolian_array_without_ids(db_path, capsys):
    src = shared_path("real_formats/tmbench_HellaSwag.json")
    out = _auto(capsys, src, "hs", db_path)
    assert "query → question, choices → options, gold → answer" in out
    got = _stored(db_path, "hs")
    records = json.loads(src.read_text(encoding="utf-8"))
    assert len(got) == len(records)
    for i, rec in enumerate(records):
        assert got[f"{src.stem}/{i}"][:3] == (_nfc(rec["query"]), [_nfc(c) for c in rec["choices"]],
                                              rec["gold"].strip()), i
    assert {v[4] for v in got.values()} == {"Mong"}


@pytest.mark.parametrize("entry", ["cmmlu_native", "uzlib_processed.csv", "tmbench_HellaSwag.json"])
def test_dry_run_checks_everything_and_writes_nothing(tmp_path, db_path, capsys, entry):
    src = shared_path(f"real_formats/{entry}")
    before = db_path.read_bytes()
    out = _auto(capsys, src, "b", db_path, "--dry-run")
    assert "would import" in out and "nothing was written" in out
    assert db_path.read_bytes() == before
