"""Archives read in place (:mod:`audit._util.archives`): kinds told by their
magic bytes, members listed and read into memory, and the refusals that
come before any member is read.  Every expectation is computed with
``zipfile``, ``tarfile`` and ``gzip`` themselves."""
from __future__ import annotations

import gzip
import io
import tarfile
import zipfile

import pytest

from audit._util.archives import archive_kind, members, sources
from audit.errors import InputError

LINES = b'{"id": "a", "question": "1+1?", "options": ["2", "3"], "answer": "A"}\n'


def _tar(path, entries: dict[str, bytes], mode: str = "w:gz"):
    with tarfile.open(path, mode) as tf:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_kinds_are_told_by_their_bytes_not_their_names(tmp_path):
    z = tmp_path / "renamed.bin"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a.jsonl", LINES)
    tgz = _tar(tmp_path / "data.tgz", {"a.jsonl": LINES})
    plain_tar = _tar(tmp_path / "data.tar", {"a.jsonl": LINES}, "w")
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(LINES))
    text = tmp_path / "a.jsonl"
    text.write_bytes(LINES)
    assert [archive_kind(p) for p in (z, tgz, plain_tar, gz, text)] == ["zip", "tar.gz", "tar", "gzip", None]


def test_members_are_read_into_memory_and_named_after_their_archive(tmp_path):
    src = _tar(tmp_path / "dev.jsonl.tar.gz", {"dev.jsonl": LINES, "README.md": b"# not data\n",
                                               "sub/test.jsonl": LINES * 2})
    got = sources(src)
    with tarfile.open(src) as tf:
        want = {n: tf.extractfile(n).read() for n in tf.getnames() if n.endswith(".jsonl")}
    assert [s.member for s in got] == sorted(want)
    assert {s.member: s.read_bytes() for s in got} == want
    assert str(got[0]) == f"{src}/dev.jsonl" and got[0].name == "dev.jsonl" and got[0].stem == "dev"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev.jsonl.tar.gz"], "nothing is extracted"


def test_a_folder_lists_its_files_and_the_members_of_its_archives(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(LINES)
    with zipfile.ZipFile(tmp_path / "more.zip", "w") as zf:
        zf.writestr("b.jsonl", LINES)
        zf.writestr("notes.txt", "x")
    (tmp_path / ".hidden.jsonl").write_bytes(LINES)
    assert [s.relative(tmp_path) for s in sources(tmp_path)] == ["a.jsonl", "more.zip/b.jsonl"]


@pytest.mark.parametrize("name, why", [("../escape.jsonl", "points outside the archive"),
                                       ("/abs.jsonl", "points outside the archive"),
                                       ("inner.zip", "is an archive inside an archive")])
def test_unsafe_member_names_are_refused_before_reading(tmp_path, name, why):
    src = tmp_path / "x.zip"
    with zipfile.ZipFile(src, "w") as zf:
        zf.writestr(name, LINES)
    with pytest.raises(InputError) as exc:
        members(src)
    assert f"member '{name}' {why}" in str(exc.value) and "nothing was imported" in str(exc.value)


def test_a_link_member_is_refused(tmp_path):
    src = tmp_path / "x.tar.gz"
    with tarfile.open(src, "w:gz") as tf:
        info = tarfile.TarInfo("dev.jsonl")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(info)
    with pytest.raises(InputError, match="member 'dev.jsonl' is a link"):
        members(src)


def test_a_member_larger_than_the_limit_is_refused(tmp_path, monkeypatch):
    src = tmp_path / "x.zip"
    with zipfile.ZipFile(src, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("dev.jsonl", LINES * 100)
    with zipfile.ZipFile(src) as zf:
        size = zf.getinfo("dev.jsonl").file_size
    monkeypatch.setenv("AUDIT_MAX_INPUT_BYTES", str(size - 1))
    with pytest.raises(InputError, match=f"member 'dev.jsonl' declares {size:,} bytes, more than the limit"):
        members(src)
    monkeypatch.setenv("AUDIT_MAX_INPUT_BYTES", str(size))
    assert [s.read_bytes() for s in members(src)] == [LINES * 100]
