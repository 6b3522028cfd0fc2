"""audit.export._manifest: the file hashes (recomputed here with hashlib),
the data digest (the ``sha256sum`` text hashed), the manifest's fixed shape,
and verify_version's problems for every way a folder can drift."""
from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime, timedelta, timezone

import pytest

from audit.export._manifest import (
    FORMAT,
    MANIFEST_NAME,
    build_manifest,
    data_digest,
    file_hashes,
    read_manifest,
    verify_version,
    write_manifest,
)
from audit.export.policy import get_policy

COUNTS = {"items": 3, "corrected": 1, "excluded": 1, "unchanged": 1, "reviewed": 2, "extra": 9}


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "1.1"
    (d / "hf" / "data").mkdir(parents=True)
    (d / "questions.csv").write_bytes("\ufeff\"id\"\n\"ཀ\"\n".encode("utf-8"))
    (d / "excluded.txt").write_bytes(b"")
    (d / "hf" / "README.md").write_text("card", encoding="utf-8")
    (d / "hf" / "data" / "test.parquet").write_bytes(b"PAR1\x00\x01PAR1")
    return d


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write(folder):
    files = file_hashes(folder)
    m = build_manifest(benchmark="toy", source="generic", version="1.1", parent="1.0", policy=get_policy("default"),
                       counts=COUNTS, files=files, audit_run=None)
    write_manifest(folder, m)
    return m


def test_file_hashes_match_hashlib_and_list_subfolders_by_path(folder):
    _write(folder)  # the manifest itself is never listed
    files = file_hashes(folder)
    assert list(files) == ["excluded.txt", "hf/README.md", "hf/data/test.parquet", "questions.csv"]
    for name, entry in files.items():
        assert entry == {"sha256": _sha(folder / name), "bytes": (folder / name).stat().st_size}
    assert files["excluded.txt"]["sha256"] == hashlib.sha256(b"").hexdigest()


def test_data_digest_is_the_sha256sum_text_hashed(folder):
    files = file_hashes(folder)
    text = "".join(f"{_sha(folder / n)}  {n}\n" for n in sorted(files))
    assert data_digest(files) == hashlib.sha256(text.encode()).hexdigest()
    assert data_digest(dict(reversed(list(files.items())))) == data_digest(files)   # order-free
    assert data_digest({}) == hashlib.sha256(b"").hexdigest()


def test_build_manifest_fixed_shape_utc_time_and_counts(folder):
    t = datetime(2026, 3, 1, 12, 30, 15, 999, tzinfo=timezone(timedelta(hours=8)))
    m = build_manifest(benchmark="toy", source="generic", version="1.1", parent=None, policy=get_policy("original"),
                       counts=COUNTS, files=file_hashes(folder),
                       audit_run={"run_id": 4, "models": ("a", "b"), "config": {"rule": "x"}}, created_at=t)
    assert list(m) == ["format", "format_version", "benchmark", "source", "version", "parent", "created_at", "tool",
                       "policy", "counts", "audit_run", "data_sha256", "files"]
    assert m["format"] == FORMAT and m["created_at"] == "2026-03-01T04:30:15Z"
    assert m["counts"] == {k: COUNTS[k] for k in ("items", "corrected", "excluded", "unchanged", "reviewed")}
    assert m["audit_run"] == {"run_id": 4, "models": ["a", "b"], "tier_rule": {"rule": "x"}}
    assert m["policy"]["name"] == "original" and m["data_sha256"] == data_digest(m["files"])


def test_write_and_read_round_trip_utf8(folder):
    m = _write(folder)
    raw = (folder / MANIFEST_NAME).read_bytes()
    assert raw.endswith(b"\n") and json.loads(raw) == m == read_manifest(folder)


def test_an_intact_folder_verifies_against_its_digest(folder):
    m = _write(folder)
    assert verify_version(folder) == []
    assert verify_version(folder, m["data_sha256"]) == []


def test_every_drift_is_one_sorted_problem_line(folder, tmp_path):
    m = _write(folder)
    (folder / "questions.csv").write_bytes(b"changed")
    (folder / "excluded.txt").unlink()
    (folder / "new.txt").write_text("x")
    (folder / "hf" / "data" / "extra.parquet").write_bytes(b"x")
    (folder / "other").mkdir()
    (folder / "other" / "f").write_text("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    os.symlink(outside, folder / "link.txt")
    assert verify_version(folder, m["data_sha256"]) == sorted([
        "excluded.txt: missing", "questions.csv: sha256 differs", "new.txt: not in the manifest",
        "hf/data/extra.parquet: not in the manifest", "other/: a subfolder, not in the manifest",
        "other/f: in a subfolder, not in the manifest",
        "link.txt: a symbolic link, not in the manifest",
    ])


def test_a_file_edited_with_its_manifest_entry_is_caught_by_the_database_digest(folder):
    m = _write(folder)
    (folder / "questions.csv").write_bytes(b"forged")
    m["files"]["questions.csv"] = {"sha256": _sha(folder / "questions.csv"), "bytes": 6}
    write_manifest(folder, m)
    assert verify_version(folder) == []
    assert verify_version(folder, m["data_sha256"]) == [
        "manifest.json: the data differ from the database's record (data_sha256)"]


@pytest.mark.parametrize("content, problem", [
    (b"\xff\xfe not utf-8", "manifest.json: unreadable (UnicodeDecodeError)"),
    (b"{not json", "manifest.json: unreadable (JSONDecodeError)"),
    (b"[1, 2]", "manifest.json: 'files' is not a mapping of file names to hashes"),
    (b'{"files": {"../escape.txt": {"sha256": "00"}}}', "manifest.json: the entry '../escape.txt' is not a file name"),
    (b'{"files": {"hf/x/y.txt": {"sha256": "00"}}}', "manifest.json: the entry 'hf/x/y.txt' is not a file name"),
    (b'{"files": {"a.txt": "00"}}', "manifest.json: the entry 'a.txt' is not a file name"),
    (b'{"files": {"manifest.json": {"sha256": "00"}}}', "manifest.json: the entry 'manifest.json' is not"),
])
def test_a_garbage_manifest_is_one_problem_never_an_exception(folder, content, problem):
    (folder / MANIFEST_NAME).write_bytes(content)
    got = verify_version(folder)
    assert len(got) == 1 and got[0].startswith(problem)


def test_missing_manifest_and_missing_folder(folder, tmp_path):
    assert verify_version(folder) == ["manifest.json: missing or not a regular file"]
    assert verify_version(tmp_path / "nope") == [f"{tmp_path / 'nope'}: not a folder"]
