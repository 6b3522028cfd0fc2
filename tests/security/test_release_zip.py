"""The release zip is built only from names just verified, from one view of
the version's folder: a ``manifest.json`` swapped between the check and the
packing never puts a file from outside the version (the session key beside
the database, ``/etc/hostname``) or a file the verified manifest does not
list into a zip.

Driven through the public API (``audit.export.release_zip``), the function
the workbench's download button calls."""
from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import zipfile
from pathlib import Path

import pytest

import audit
from audit.accounts.sessions import check_session_key, session_key_path
from audit.export import create_version, release_zip
from audit.export._manifest import SUBFOLDERS
from audit.ingest import import_questions
from audit.review import add_review

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

B = "rel"
ATTEMPTS = 200


@pytest.fixture
def version(tmp_path, db_path):
    """A published version 1.1 of a six-item benchmark, the database's
    session key beside it (as the workbench leaves it), and the folder."""
    q = tmp_path / "q.csv"
    q.write_text("id,subject,question,A,B,C,D,answer\n"
                 + "".join(f"q{i},s,Question {i}?,a,b,c,d,A\n" for i in range(6)), encoding="utf-8")
    import_questions(q, benchmark=B, db=db_path)
    add_review(B, "q1", "alice", "key_wrong", corrected_answer="C", cause="key_slip", db=db_path)
    exports = tmp_path / "exports"
    create_version(B, "1.1", db=db_path, exports_dir=exports)
    check_session_key(db=db_path)               # writes <db>.session-key
    return db_path, exports / B / "1.1"


def _entries_ok(data: bytes, prefix: str, verified: dict, good_manifest: bytes, forbidden: list[bytes]) -> list[str]:
    """What is wrong with one zip (empty: nothing)."""
    bad = []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            name = info.filename
            rel = name[len(prefix) + 1:] if name.startswith(prefix + "/") else None
            sub, _, base = (rel or "").rpartition("/")   # a plain name, or one in the version's hf/ subfolders
            if rel is None or sub not in ("", *SUBFOLDERS) or "\\" in rel or base in ("", ".", ".."):
                bad.append(f"entry outside the version: {name!r}")
                continue
            body = zf.read(info)
            if any(f and f in body for f in forbidden):
                bad.append(f"entry {name!r} holds a file from outside the version")
            if rel == "manifest.json":
                if body != good_manifest:
                    bad.append("the zipped manifest is not the verified one")
            elif rel not in verified:
                bad.append(f"entry {name!r} is not in the verified manifest")
            elif hashlib.sha256(body).hexdigest() != verified[rel]["sha256"]:
                bad.append(f"entry {name!r} differs from its verified sha256")
    return bad


def _race(folder: Path, evil: bytes, attempts: int, db) -> tuple[int, int, list[str]]:
    """Swap manifest.json between the real one and ``evil`` in a thread
    while ``release_zip`` runs ``attempts`` times; (zips built, refusals,
    problems of the first bad zip)."""
    manifest = folder / "manifest.json"
    good = manifest.read_bytes()
    verified = json.loads(good)["files"]
    prefix = f"{B}-1.1"
    forbidden = [session_key_path(db).read_bytes().strip()]
    stop = threading.Event()

    def swapper():
        tmp_good, tmp_evil = folder.parent / ".m-good", folder.parent / ".m-evil"
        while not stop.is_set():
            for body, tmp in ((evil, tmp_evil), (good, tmp_good)):
                tmp.write_bytes(body)
                os.replace(tmp, manifest)      # atomic: a reader sees one or the other, never half

    t = threading.Thread(target=swapper, daemon=True)
    t.start()
    built = refused = 0
    problems: list[str] = []
    try:
        for _ in range(attempts):
            try:
                data = release_zip(B, "1.1", db=db)
            except audit.AuditError:
                refused += 1               # a refusal is fine: nothing was handed out
                continue
            built += 1
            problems = _entries_ok(data, prefix, verified, good, forbidden)
            if problems:
                break
    finally:
        stop.set()
        t.join(10)
        manifest.write_bytes(good)
    return built, refused, problems


def _evil_manifest(folder: Path, target: Path) -> bytes:
    """The version's manifest with one more entry naming ``target`` through ``..``."""
    m = json.loads((folder / "manifest.json").read_bytes())
    rel = os.path.relpath(target, folder)
    assert rel.startswith("..")
    m["files"][rel] = {"sha256": hashlib.sha256(target.read_bytes()).hexdigest(), "bytes": target.stat().st_size}
    return json.dumps(m).encode("utf-8")


def test_a_swapped_manifest_never_ships_the_session_key(version):
    db, folder = version
    key = session_key_path(db)
    built, refused, problems = _race(folder, _evil_manifest(folder, key), ATTEMPTS, db)
    assert not problems, f"after {built} zips ({refused} refused): {problems}"
    assert built + refused <= ATTEMPTS


def test_a_swapped_manifest_never_ships_a_system_file(version, tmp_path):
    db, folder = version
    host = Path("/etc/hostname")
    if not host.is_file() or not host.read_bytes().strip():
        host = tmp_path / "outside.txt"          # any file outside the version will do
        host.write_text("outside the version\n")
    built, refused, problems = _race(folder, _evil_manifest(folder, host), ATTEMPTS, db)
    assert not problems, f"after {built} zips ({refused} refused): {problems}"


def test_a_swapped_manifest_naming_an_unverified_file_never_ships_it(version):
    """A manifest that lists only some of the files (a file dropped from the
    list, another added with its right hash) must never change what one zip
    holds: every zip is exactly the verified set."""
    db, folder = version
    m = json.loads((folder / "manifest.json").read_bytes())
    dropped = sorted(m["files"])[0]
    del m["files"][dropped]
    built, refused, problems = _race(folder, json.dumps(m).encode("utf-8"), ATTEMPTS, db)
    assert not problems, f"after {built} zips ({refused} refused): {problems}"


def test_an_intact_version_still_zips_every_verified_file(version):
    """The correct result that the race tests must not break."""
    db, folder = version
    data = release_zip(B, "1.1", db=db)
    names = sorted(n.split("/", 1)[1] for n in zipfile.ZipFile(io.BytesIO(data)).namelist())
    assert names == sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_a_manifest_entry_leaving_the_folder_is_refused_even_unswapped(version):
    """A manifest listing ``../x`` (with a data file renamed to match) is one
    refusal, never a zip entry (the check and the packing agree)."""
    db, folder = version
    m = json.loads((folder / "manifest.json").read_bytes())
    m["files"]["../outside.csv"] = {"sha256": "0" * 64, "bytes": 1}
    (folder / "manifest.json").write_bytes(json.dumps(m).encode())
    with pytest.raises(audit.AuditError) as e:
        release_zip(B, "1.1", db=db)
    assert "\n" not in str(e.value)


def test_a_version_folder_swapped_for_a_link_after_the_check_is_never_followed(version, tmp_path):
    """Our own case: the version folder itself replaced by a symbolic link to
    another folder holding a matching manifest while the zip is built.  Any
    zip built must still hold only the verified names and contents."""
    db, folder = version
    twin = tmp_path / "twin"
    twin.mkdir()
    for p in folder.rglob("*"):                  # the version's files, its hf/ subfolders included
        if p.is_file():
            (twin / p.relative_to(folder)).parent.mkdir(parents=True, exist_ok=True)
            (twin / p.relative_to(folder)).write_bytes(p.read_bytes())
    (twin / "CHANGELOG.csv").write_bytes(b"swapped content\n")
    good = json.loads((folder / "manifest.json").read_bytes())["files"]
    real = folder.with_name("1.1.real")
    stop = threading.Event()

    def swapper():
        while not stop.is_set():
            try:
                os.rename(folder, real)
                os.symlink(twin, folder)
                os.unlink(folder)
                os.rename(real, folder)
            except OSError:
                pass

    t = threading.Thread(target=swapper, daemon=True)
    t.start()
    bad: list[str] = []
    try:
        for _ in range(ATTEMPTS // 2):
            try:
                data = release_zip(B, "1.1", db=db)
            except (audit.AuditError, OSError):
                continue
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for n in zf.namelist():
                    rel = n.split("/", 1)[1]
                    if rel != "manifest.json" and hashlib.sha256(zf.read(n)).hexdigest() != good[rel]["sha256"]:
                        bad.append(n)
            if bad:
                break
    finally:
        stop.set()
        t.join(10)
        if not folder.exists() or folder.is_symlink():
            if folder.is_symlink():
                folder.unlink()
            if real.exists():
                os.rename(real, folder)
    assert not bad, f"zipped content not verified: {bad}"


def test_a_data_file_swapped_after_the_check_is_never_zipped(version):
    """Our own case: not the manifest but a data file changes between the
    check and the packing.  Every zip must hold the bytes that were hashed."""
    db, folder = version
    target = folder / "CHANGELOG.csv"
    good = target.read_bytes()
    evil = good.replace(b"q1", b"q9") if b"q1" in good else good + b"x"
    verified = json.loads((folder / "manifest.json").read_bytes())["files"]
    stop = threading.Event()

    def swapper():
        tmp = folder.parent / ".swap"
        while not stop.is_set():
            for body in (evil, good):
                tmp.write_bytes(body)
                os.replace(tmp, target)

    t = threading.Thread(target=swapper, daemon=True)
    t.start()
    bad: list[str] = []
    built = 0
    try:
        for _ in range(ATTEMPTS):
            try:
                data = release_zip(B, "1.1", db=db)
            except audit.AuditError:
                continue
            built += 1
            bad = _entries_ok(data, f"{B}-1.1", verified, (folder / "manifest.json").read_bytes(), [])
            if bad:
                break
    finally:
        stop.set()
        t.join(10)
        target.write_bytes(good)
    assert not bad, f"after {built} zips: {bad}"
