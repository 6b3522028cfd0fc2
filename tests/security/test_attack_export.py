"""Exports: ``export list --verify`` and the release zip check a
version's folder against its manifest AND the database's ``data_sha256``,
refuse extra files, subfolders and links, and report every problem in one
line; two concurrent ``export create`` on a fresh benchmark do not both fail;
CSV files carry a UTF-8 byte-order mark; a verdict row that contradicts
itself (a cause on a key_correct verdict) is shown as inconsistent.

Each case fails on main and passes here.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.export import create_version, list_versions, release_zip
from audit.ingest import import_questions
from audit.review import add_review
from audit.store import connect
from tests.conftest import REPO, db_snapshot
from tests.support.cli_process import run_audit
from tests.support.common import copy_db, run_cli

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

B = "atk"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _bench(db, folder):
    q = folder / "q.csv"
    q.write_text("id,subject,question,A,B,C,D,answer\n"
                 + "".join(f"q{i},s,བོད་ {i}?,a,b,c,d,A\n" for i in range(6)), encoding="utf-8")
    import_questions(q, benchmark=B, db=db)
    for r in ("alice", "bob"):
        add_review(B, "q1", r, "key_wrong", corrected_answer="C", cause="key_slip", db=db)


@pytest.fixture
def bench(db_path, db_template):
    return copy_db(db_template(_bench), db_path)


@pytest.fixture
def v11(bench, tmp_path):
    exports = tmp_path / "exports"
    create_version(B, "1.1", db=bench, exports_dir=exports)
    return bench, exports / B / "1.1"


def _verify(db) -> list[tuple[str, bool, str]]:
    df = list_versions(B, db=db, verify=True)
    problems = df.attrs["problems"]
    return [(v, ok, problems.get(v, "")) for v, ok in zip(df["version"], df["intact"])]


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _edit_with_manifest(folder: Path, name: str = "CHANGELOG.csv") -> None:
    """Edit a data file AND its manifest entry consistently (the forgery main accepted)."""
    (folder / name).write_bytes((folder / name).read_bytes() + b'"q5","s","corrected"\n')
    m = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    m["files"][name] = {"sha256": _sha(folder / name), "bytes": (folder / name).stat().st_size}
    from audit.export._manifest import data_digest

    m["data_sha256"] = data_digest(m["files"])
    (folder / "manifest.json").write_text(json.dumps(m), encoding="utf-8")


def test_intact_versions_verify_and_zip(v11):
    db, folder = v11
    assert _verify(db) == [("1.0", True, ""), ("1.1", True, "")]
    names = zipfile.ZipFile(io.BytesIO(release_zip(B, "1.1", db=db))).namelist()
    assert sorted(n.split("/", 1)[1] for n in names) == sorted(p.relative_to(folder).as_posix()
                                                               for p in folder.rglob("*") if p.is_file())


def test_data_file_and_manifest_entry_edited_together_fail(v11):
    db, folder = v11
    _edit_with_manifest(folder)
    [(_, ok, problem)] = [r for r in _verify(db) if r[0] == "1.1"]
    assert ok is False and "data_sha256" in problem
    with pytest.raises(AuditError, match="data_sha256"):
        release_zip(B, "1.1", db=db)


@pytest.mark.parametrize("make", ["file-in-subfolder", "empty-subfolder", "symlink-file", "symlink-dir",
                                  "extra-top-file", "manifest-symlink"])
def test_extra_entries_and_links_fail_and_are_never_shipped(v11, make):
    db, folder = v11
    if make == "file-in-subfolder":
        (folder / "extra").mkdir()
        (folder / "extra" / "payload.csv").write_text("x")
    elif make == "empty-subfolder":
        (folder / "extra").mkdir()
    elif make == "symlink-file":
        (folder / "hostname").symlink_to("/etc/hostname")
    elif make == "symlink-dir":
        (folder / "etc").symlink_to("/etc")
    elif make == "extra-top-file":
        (folder / "README.txt").write_text("not published")
    else:
        real = folder.parent / "m.json"
        (folder / "manifest.json").rename(real)
        (folder / "manifest.json").symlink_to(real)
    [(_, ok, problem)] = [r for r in _verify(db) if r[0] == "1.1"]
    assert ok is False and problem, problem
    with pytest.raises(AuditError):
        release_zip(B, "1.1", db=db)


@pytest.mark.parametrize("manifest", [b"\x00garbage{{", b"[1, 2]", b'{"files": ["CHANGELOG.csv"]}',
                                      b'{"files": {"CHANGELOG.csv": "abc"}}', b'{"files": {"../x": {"sha256": "a"}}}',
                                      b"[" * 100000, "{\"files\": {}}".encode("utf-16")],
                         ids=["garbage", "list", "files-list", "entry-string", "entry-path", "deep", "utf16"])
def test_garbage_manifest_is_one_line_never_a_traceback(v11, capsys, manifest):
    db, folder = v11
    (folder / "manifest.json").write_bytes(manifest)
    before = db_snapshot(db)
    code, out, err = run_cli(capsys, "export", "list", B, "--verify", "--format", "csv", "--db", db)
    assert code == 0, err
    assert "Traceback" not in err
    assert '"1.1",' in out and ",False," in out.split('"1.1",', 1)[1].splitlines()[0]
    assert "manifest.json" in out
    with pytest.raises(AuditError) as exc:
        release_zip(B, "1.1", db=db)
    assert "\n" not in str(exc.value)
    assert db_snapshot(db) == before


CREATE = """
import os, sys, time
from audit.export import create_version
db, exports, version, go = sys.argv[1:5]
print("ready", flush=True)              # the library is imported; wait for the start
while not os.path.exists(go):
    time.sleep(0.005)
try:
    s = create_version("atk", version, db=db, exports_dir=exports)
    print("ok", s.version, s.parent)
except Exception as exc:
    print("error", type(exc).__name__, exc)
"""


@pytest.mark.slow
def test_two_concurrent_creates_on_a_fresh_benchmark(bench, tmp_path):
    exports = tmp_path / "exports"
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CREATE, str(bench), str(exports), v, str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
             for v in ("1.1", "1.2")]
    for p in procs:     # both have imported the library and wait for the start
        assert p.stdout.readline().strip() == "ready", p.communicate(timeout=60)
    go.write_text("")
    outs = [p.communicate(timeout=300) for p in procs]
    results = [o[0].strip().splitlines()[-1] for o in outs]
    print(results)
    assert all(p.returncode == 0 for p in procs), [o[1][-500:] for o in outs]
    ok = [r for r in results if r.startswith("ok")]
    assert ok, results                                  # main: both failed on creating 1.0
    for r in results:
        if not r.startswith("ok"):                      # the loser says why, in one line
            assert "\n" not in r and "1.1 must be greater than" in r, r
    versions = list_versions(B, db=bench, verify=True)
    assert versions["version"].tolist()[0] == "1.0" and versions["intact"].all()
    assert set(versions["version"]) == {"1.0", *[r.split()[1] for r in ok]}


def test_csv_files_start_with_a_byte_order_mark(v11, tmp_path, capsys):
    db, folder = v11
    for name in ("CHANGELOG.csv", "questions.csv"):
        data = (folder / name).read_bytes()
        assert data.startswith(b"\xef\xbb\xbf") and not data.startswith(b"\xef\xbb\xbf\xef\xbb\xbf"), name
    out = tmp_path / "versions.csv"
    assert run_cli(capsys, "export", "list", B, "--format", "csv", "-o", out, "--db", db)[0] == 0
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
    # stdout (a pipe) gets no mark
    code, text, _ = run_cli(capsys, "export", "list", B, "--format", "csv", "--db", db)
    assert code == 0 and not text.startswith("\ufeff")
    # the exported questions.csv imports back as the same items (the mark is not read as text)
    from audit.ingest import import_questions as iq

    iq(folder / "questions.csv", benchmark="back", db=db)
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*), min(stem) FROM questions WHERE benchmark = 'back'").fetchone() == (
            6, "བོད་ 0?")


def test_inconsistent_verdict_row_is_shown_as_inconsistent(bench, tmp_path):
    """A key_correct verdict with a cause (the review rules never write one; an
    import or a hand edit can) is not printed as a valid cause."""
    with connect(bench) as con:
        con.execute("INSERT INTO reviews (benchmark, question_id, reviewer, created_at, verdict, cause, source, "
                    "app_version) VALUES (?, 'q2', ?, now(), 'key_correct', 'translation', 'import', 'x')",
                    [B, "alice"])
        con.execute("INSERT INTO reviews (benchmark, question_id, reviewer, created_at, verdict, cause, source, "
                    "app_version) VALUES (?, 'q2', ?, now(), 'key_correct', 'translation', 'import', 'x')",
                    [B, "bob"])
    s = create_version(B, "1.1", db=bench, exports_dir=tmp_path / "exports")
    text = (s.path / "CHANGELOG.csv").read_text(encoding="utf-8-sig")
    [line] = [l for l in text.splitlines() if l.startswith('"q2"')]
    assert "inconsistent" in line and ',"translation",' not in line, line


@pytest.mark.slow
def test_failed_sign_in_is_one_error_line(bench, tmp_path):
    """``export create --as`` with a wrong password: one ``error:`` line, no log
    record printed before it, exit 1, nothing written."""
    run = lambda *a, stdin="": run_audit([*a, "--db", str(bench)],  # noqa: E731
                                         input=stdin, env=ENV, timeout=120)
    r = run("users", "add", "boss", "--password-stdin", stdin="a-long-password-1\n")
    assert r.returncode == 0, r.stderr
    before = db_snapshot(bench)
    r = run("export", "create", "--benchmark", B, "--version", "1.1", "--as", "boss", "--password-stdin",
            "--exports-dir", str(tmp_path / "exports"), stdin="wrong-password\n")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == ["error: the name or the password is not right"], r.stderr
    assert not (tmp_path / "exports").exists()
    after = db_snapshot(bench)
    # only the failed-sign-in counter may change (it is the point of recording failures)
    assert {t: v for t, v in after.items() if t != "login_failures"} == \
        {t: v for t, v in before.items() if t != "login_failures"}


# ---------------------------------------------------------------- further cases (our own attack)

def test_version_folder_replaced_by_a_link_to_another_version(v11):
    db, folder = v11
    import shutil

    shutil.rmtree(folder)
    folder.symlink_to(folder.parent / "1.0")
    [(_, ok, problem)] = [r for r in _verify(db) if r[0] == "1.1"]
    assert ok is False and problem
    with pytest.raises(AuditError):
        release_zip(B, "1.1", db=db)


@pytest.mark.parametrize("name", ["CHANGELOG.csv", "manifest.json"])
def test_a_fifo_in_place_of_a_file_never_hangs(v11, name):
    db, folder = v11
    (folder / name).unlink()
    os.mkfifo(folder / name)
    import time

    t0 = time.monotonic()
    [(_, ok, problem)] = [r for r in _verify(db) if r[0] == "1.1"]
    assert ok is False and problem and time.monotonic() - t0 < 10
    with pytest.raises(AuditError):
        release_zip(B, "1.1", db=db)


def test_database_record_edited_fails(v11):
    db, folder = v11
    with connect(db) as con:
        con.execute("UPDATE key_versions SET data_sha256 = repeat('0', 64) WHERE version = '1.1'")
    assert [r[1] for r in _verify(db)] == [True, False]


def test_folder_gone_is_reported_not_a_traceback(v11, capsys):
    db, folder = v11
    import shutil

    shutil.rmtree(folder)
    code, out, err = run_cli(capsys, "export", "list", B, "--verify", "--format", "csv", "--db", db)
    assert code == 0 and "no longer on disk" in out, out + err
    with pytest.raises(AuditError) as exc:
        release_zip(B, "1.1", db=db)
    assert "no longer on disk" in str(exc.value)


def test_hard_link_to_an_outside_file_is_an_extra_file(v11, tmp_path):
    db, folder = v11
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.link(outside, folder / "notes.txt")
    [(_, ok, problem)] = [r for r in _verify(db) if r[0] == "1.1"]
    assert ok is False and problem == "notes.txt: not in the manifest"


def test_diff_and_dry_run_output_files_have_a_byte_order_mark(v11, tmp_path, capsys):
    db, _ = v11
    out = tmp_path / "diff.csv"
    assert run_cli(capsys, "export", "diff", B, "1.0", "1.1", "--format", "csv", "-o", out, "--db", db)[0] == 0
    assert out.read_bytes().startswith(b"\xef\xbb\xbf")
