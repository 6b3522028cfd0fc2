"""audit.export.archive: a published version as one deterministic zip —
exactly the manifest's files (contents byte-equal, hashes recomputed with
hashlib) under ``<benchmark>-<version>/``, fixed timestamps, and refusals
for unknown, missing and changed versions."""
from __future__ import annotations

import hashlib
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from audit.errors import AuditError, InputError, NotFoundError
from audit.export import create_version, release_zip
from audit.export.archive import release_name
from tests.support.toy_release import BENCH, toy_db


@pytest.fixture(scope="module")
def version(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("archive")
    db = toy_db(tmp, migrated_template, predictions=False)
    s = create_version(BENCH, "1.1", db=db, exports_dir=tmp / "exports")
    return db, Path(s.path)


def test_release_name():
    assert release_name("toy", "2.0.1") == "toy-2.0.1.zip"


def test_the_zip_holds_exactly_the_manifests_files(version):
    db, folder = version
    data = release_zip(BENCH, "1.1", db=db)
    zf = zipfile.ZipFile(io.BytesIO(data))
    manifest = json.loads(zf.read("toy-1.1/manifest.json"))
    names = zf.namelist()
    assert names == sorted(names)
    assert names == sorted(["toy-1.1/manifest.json", *(f"toy-1.1/{n}" for n in manifest["files"])])
    assert "toy-1.1/hf/data/test.parquet" in names
    for name, entry in manifest["files"].items():
        body = zf.read(f"toy-1.1/{name}")
        assert body == (folder / name).read_bytes()
        assert hashlib.sha256(body).hexdigest() == entry["sha256"]
    assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in zf.infolist()} == {0o644}
    assert zf.testzip() is None


def test_the_same_version_gives_the_same_bytes(version):
    db, _ = version
    assert release_zip(BENCH, "1.1", db=db) == release_zip(BENCH, "1.1", db=db)
    assert release_zip(BENCH, "1.0", db=db) != release_zip(BENCH, "1.1", db=db)


def test_an_extra_file_is_never_shipped_and_a_changed_version_is_refused(version):
    db, folder = version
    extra = folder / "notes.txt"
    extra.write_text("private")
    try:
        with pytest.raises(AuditError, match="notes.txt: not in the manifest"):
            release_zip(BENCH, "1.1", db=db)
    finally:
        extra.unlink()
    changelog = folder / "CHANGELOG.csv"
    saved = changelog.read_bytes()
    try:
        changelog.write_bytes(saved.replace(b"key_slip", b"nothing!"))
        with pytest.raises(AuditError, match="no longer matches its manifest"):
            release_zip(BENCH, "1.1", db=db)
    finally:
        changelog.write_bytes(saved)


def test_unknown_gone_and_invalid_versions(version):
    db, folder = version
    with pytest.raises(NotFoundError, match="has no version 3.0"):
        release_zip(BENCH, "3.0", db=db)
    with pytest.raises(InputError):
        release_zip(BENCH, "1.1/../1.0", db=db)
    moved = folder.with_name("elsewhere")
    shutil.move(folder, moved)
    try:
        with pytest.raises(NotFoundError, match="no longer on disk"):
            release_zip(BENCH, "1.1", db=db)
    finally:
        shutil.move(moved, folder)
