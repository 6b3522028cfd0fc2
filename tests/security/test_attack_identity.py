"""Look-alike names and who may act: the attack
cases on sessions, the demo, names and passwords — each the right result or
one line, exit 1 and the database byte-identical
(:func:`tests.conftest.db_snapshot`), on real DuckDB files and the real
``audit`` command."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

import audit
import audit.accounts as acc
from audit.accounts import _signin
from audit.accounts._signin import MAX_FAILURES
from audit.accounts.sessions import SECRET_ENV
from tests.conftest import db_snapshot
from tests.support.attack import cli, fresh_copy
from tests.support.common import rows

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

REPO = Path(__file__).resolve().parents[2]
#: A $WORKBENCH_SECRET of exactly the shortest length, and no weak value (a repeated character is refused).
STRONG_32 = "q7Lm2Xv9Rt4Wb8Kc1Zn6Yp3Hd5Jf0GsA"


@pytest.fixture(scope="module")
def _template(tmp_path_factory):
    from audit.ingest.storing import store_questions
    from audit.store import connect
    from audit.store.records import Option, Question

    os.environ.pop(SECRET_ENV, None)
    db = tmp_path_factory.mktemp("identity") / "t.duckdb"
    with connect(db) as con:
        store_questions(con, "b", "b", [Question("b", q, "Stem", [Option("A", "x"), Option("B", "y")], "A")
                                        for q in ("q1", "q2")])
    acc.add_account("Root", "root-password", db=db)
    acc.add_account("Pema", "pema-password", role="reviewer", actor="Root", db=db)
    return db


@pytest.fixture
def team(_template, tmp_path, monkeypatch):
    return fresh_copy(_template, tmp_path, monkeypatch)


def _b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def forge(name: str, key: bytes, epoch: int = 0) -> str:
    """A session token for ``name`` signed with ``key``, made without the library."""
    payload = _b64(json.dumps({"u": name, "g": epoch, "e": int(time.time() + 3600)}).encode())
    return payload + "." + _b64(hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest())


# ---------------------------------------------------------------- the session key

@pytest.mark.parametrize("content,says", [
    ("", "the session key is empty"),
    ("\n  \n", "the session key is empty"),
    ("abcd", "the session key is not valid"),
    ("zz" * 32, "the session key is not valid"),
    ("0" * 63, "the session key is not valid"),
])
def test_a_weak_key_file_never_signs_a_session(team, content, says):
    """An empty key file made the HMAC key b'': anyone could mint an admin
    session.  A non-hex one was a traceback."""
    key_file = acc.sessions.session_key_path(team)
    key_file.write_text(content)
    raw = b"" if not content.strip() else content.strip().encode()
    for token in (forge("Root", b""), forge("Root", raw)):
        with pytest.raises(audit.InputError, match=says) as e:
            acc.verify_session(token, db=team)
        assert str(key_file) in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(audit.InputError, match=says):
        acc.issue_session("Pema", db=team)
    with pytest.raises(audit.InputError, match=says):
        acc.sessions.check_session_key(db=team)
    assert key_file.read_text() == content     # left for the admin to look at, never rewritten


def test_a_non_hex_key_is_one_line_in_the_cli(team, tmp_path):
    acc.sessions.session_key_path(team).write_text("not hex at all, and long enough to pass a length check only")
    # the CLI has no session command; the library call the workbench makes at start-up is one line
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import audit.accounts.sessions as s, sys; s.check_session_key(db=sys.argv[1])",
            str(team),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert r.returncode == 1 and "the session key is not valid" in r.stderr


@pytest.mark.parametrize("secret", ["x", "short-secret", " " * 40, "a" * 31])
def test_a_short_workbench_secret_is_refused(team, monkeypatch, secret):
    monkeypatch.setenv(SECRET_ENV, secret)
    with pytest.raises(audit.InputError, match="WORKBENCH_SECRET is too short"):
        acc.issue_session("Pema", db=team)
    with pytest.raises(audit.InputError, match="too short"):
        acc.verify_session(forge("Root", secret.strip().encode()), db=team)


def test_a_long_secret_and_the_generated_key_work(team, monkeypatch):
    key_file = acc.sessions.session_key_path(team)
    assert not key_file.exists()
    tok = acc.issue_session("Pema", db=team)
    text = key_file.read_text()
    assert len(text) == 64 and int(text, 16) >= 0 and (key_file.stat().st_mode & 0o777) == 0o600
    assert acc.verify_session(tok, db=team).name == "Pema"
    assert acc.verify_session(forge("Pema", bytes.fromhex(text)), db=team).name == "Pema"
    with pytest.raises(audit.SignInError):
        acc.verify_session(forge("Root", b""), db=team)
    monkeypatch.setenv(SECRET_ENV, STRONG_32)
    assert acc.verify_session(acc.issue_session("Pema", db=team), db=team).name == "Pema"
    with pytest.raises(audit.SignInError):                       # the file's key no longer signs
        acc.verify_session(tok, db=team)


def test_the_key_and_the_lock_are_ignored_by_git():
    r = subprocess.run(["git", "check-ignore", "data/workbench.duckdb.session-key", "data/workbench.duckdb.lock",
                        "elsewhere/review.duckdb.session-key"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0 and len(r.stdout.split()) == 3, r.stdout


# ---------------------------------------------------------------- audit demo

def test_demo_refuses_a_database_holding_anything_else(team):
    before = db_snapshot(team)
    r = cli(team, "demo")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "holds more than the demo (benchmark b" in r.stderr and "account root" in r.stderr.lower()
    assert db_snapshot(team) == before
    assert not audit.accounts.verify_password("admin", "demo-admin", db=team)


def test_demo_refuses_real_accounts_and_models_alone(tmp_path):
    from audit.demo import make_demo, not_demo_contents
    from audit.ingest.models import register_models
    from audit.store import connect, transaction

    db = tmp_path / "a.duckdb"
    acc.add_account("Tenzin", "tenzin-password", db=db)            # an install with its admin, nothing else yet
    before = db_snapshot(db)
    with pytest.raises(audit.InputError, match="account Tenzin"):
        make_demo(db)
    assert db_snapshot(db) == before
    db2 = tmp_path / "m.duckdb"
    with connect(db2) as con, transaction(con):
        register_models(con, ["my-real-model"])
    assert not_demo_contents(db2) == ["model my-real-model"]


@pytest.mark.slow
def test_demo_twice_is_fine(tmp_path):
    db = tmp_path / "d.duckdb"
    r1 = cli(db, "demo")
    assert r1.returncode == 0 and "demo accounts" in r1.stdout, r1.stderr
    r2 = cli(db, "demo")
    assert r2.returncode == 0 and "already has the demo benchmark" in r2.stdout, r2.stderr


# ---------------------------------------------------------------- names are identities

@pytest.mark.parametrize("name,says", [
    ("Рema", "looks like the existing name 'Pema' (U+0420 CYRILLIC CAPITAL LETTER ER)"),
    ("pеma", "looks like the existing name 'Pema' (U+0435 CYRILLIC SMALL LETTER IE)"),
    ("Ｐｅｍａ", "looks like the existing name 'Pema'"),
    ("Pe\u200bma", "invisible or control character (U+200B)"),
    ("Pema\u200d", "U+200D"),
    ("\u202eamеP", "U+202E"),
    ("Pe\u2066ma", "U+2066"),
    ("Pe\u00adma", "U+00AD"),
    ("Pe\x07ma", "U+0007"),
    ("Pe\tma", "U+0009"),
    ("Pe\nma", "U+000A"),
    ("Pema\ufeff", "U+FEFF"),
    ("x" * 100_000, "is 100,000 characters long (at most 64)"),
    ("   ", "an account needs a name"),
    ("pema", "already exists"),
])
def test_look_alike_and_invisible_account_names_are_refused(team, name, says):
    import re

    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match=re.escape(says)) as e:
        acc.add_account(name, "some-password", actor="Root", db=team)
    assert "\n" not in str(e.value) and len(str(e.value)) < 300
    assert db_snapshot(team) == before


def test_names_are_normalised_once_and_compared_as_stored(team):
    a = acc.add_account("  Dolma   Tsering ", "dolma-password", actor="Root", db=team)
    assert a.name == "Dolma Tsering"
    nfd = "Pe\u0301ma Lhamo"           # NFD é
    b = acc.add_account(nfd, "lhamo-password", actor="Root", db=team)
    assert b.name == "P\u00e9ma Lhamo"
    with pytest.raises(audit.InputError, match="already exists"):
        acc.add_account("P\u00e9ma  Lhamo", "other-password", actor="Root", db=team)
    assert acc.authenticate(nfd, "lhamo-password", db=team).name == "P\u00e9ma Lhamo"
    # a Tibetan name is fine, and so are two names that merely look alike in another script's sense
    assert acc.add_account("བསོད་ནམས", "sonam-password", actor="Root", db=team).name == "བསོད་ནམས"
    assert acc.add_account("Pemo", "pemo-password", actor="Root", db=team).name == "Pemo"


@pytest.mark.slow
def test_failed_sign_ins_under_made_up_names_stay_bounded(team, monkeypatch):
    monkeypatch.setattr(_signin, "MAX_FAILURE_ROWS", 12)
    monkeypatch.setattr(_signin, "LOCK_SECONDS", 3600)           # the lock outlasts a slow, busy machine
    for _ in range(MAX_FAILURES):                       # a real name gets locked first
        with pytest.raises(audit.SignInError):
            acc.authenticate("Pema", "wrong-password", db=team)
    for i in range(30):
        with pytest.raises(audit.SignInError):
            acc.authenticate(f"made-up-{i}-" + "x" * 5000, "whatever", db=team)
    n = rows(team, "SELECT count(*), max(length(name_key)) FROM login_failures")[0]
    assert n[0] == 12 and n[1] <= 4 * 64
    assert rows(team, "SELECT failures FROM login_failures WHERE name_key = 'pema'") == [(MAX_FAILURES,)]
    with pytest.raises(audit.SignInError, match="too many failed sign-ins"):   # the lock survived the flood
        acc.authenticate("Pema", "pema-password", db=team)


@pytest.mark.parametrize("password", ["password\u2028two", "password\u2029two", "password\rtwo", "pass\x00word",
                                      "pass\x1bword1", "password\x85two", "pass\x0bword", "pass\x1cword"])
def test_passwords_that_cannot_be_typed_on_one_line_are_refused(team, password):
    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match="line break or control character"):
        acc.add_account("Karma", password, actor="Root", db=team)
    with pytest.raises(audit.InputError, match="line break or control character"):
        acc.reset_password("Pema", password, actor="Root", db=team)
    assert db_snapshot(team) == before


@pytest.mark.slow
def test_password_stdin_reads_unicode_passwords_and_crlf(team):
    """Lines end at \\n only: a password with U+00A0 or U+2007 (allowed) and a
    Windows \\r\\n line ending sign in through --password-stdin."""
    acc.reset_password("Pema", "pema\u00a0pass\u2007word", actor="Root", db=team)
    r = cli(team, "users", "add", "Karma", "--as", "Pema", "--password-stdin",
            stdin="pema\u00a0pass\u2007word\r\nkarma-password\r\n")
    assert r.returncode == 1 and "'Pema' is a reviewer" in r.stderr, r.stderr  # signed in, then refused
    r = cli(
        team, "users", "add", "Karma", "--as", "Root", "--password-stdin", stdin="root-password\r\nkarma-pass\u2028x\n"
    )
    assert r.returncode == 1 and "line break or control character" in r.stderr and r.stderr.count("\n") == 1


def test_a_failed_sign_in_is_one_line(team):
    r = cli(team, "review", "leads", "--set", "Pema", "--as", "Root", "--password-stdin", stdin="wrong-password\n")
    assert r.returncode == 1 and r.stderr == "error: the name or the password is not right\n", r.stderr


# ---------------------------------------------------------------- model names

def _predictions(tmp_path, model: str) -> Path:
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,answer\n" + "".join(f"{q},{model},A\n" for q in ("q1", "q2")), encoding="utf-8")
    return f


@pytest.mark.parametrize("model,says", [
    ("gpt\u200b-4", "U+200B"),
    ("qwen\u202e-7b", "U+202E"),
    ("m" * 300, "at most 200"),
])
def test_model_names_with_invisible_characters_are_refused(team, tmp_path, model, says):
    import re

    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match=re.escape(says)):
        audit.import_predictions(_predictions(tmp_path, model), benchmark="b", db=team, actor="Root")
    assert db_snapshot(team) == before


def test_a_look_alike_model_name_is_refused(team, tmp_path):
    audit.import_predictions(_predictions(tmp_path, "llama-3-8b"), benchmark="b", db=team, actor="Root")
    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match="looks like the existing name 'llama-3-8b'"):
        audit.import_predictions(
            _predictions(tmp_path, "llаma-3-8b"), benchmark="b", db=team, actor="Root"
        )  # Cyrillic а
    assert db_snapshot(team) == before
    # ASCII names that differ are different models, even where glyphs are close
    audit.import_predictions(_predictions(tmp_path, "llama-3-8b-l"), benchmark="b", db=team, actor="Root")
    audit.import_predictions(_predictions(tmp_path, "llama-3-8b-1"), benchmark="b", db=team, actor="Root")
    assert sorted(n for (n,) in rows(team, "SELECT name FROM models")) == ["llama-3-8b", "llama-3-8b-1",
                                                                          "llama-3-8b-l"]


def test_model_names_not_in_normal_form_never_make_a_second_model(team):
    from audit.ingest.models import register_models
    from audit.store import connect, transaction

    with connect(team) as con, transaction(con):
        register_models(con, ["Qwen2-7B"])
    before = db_snapshot(team)
    for bad in ("Qwen2-7B ", " Qwen2-7B", "Qwe\u0301n2-7B"):
        with pytest.raises(audit.InputError, match="not written in its normal form"):
            with connect(team) as con, transaction(con):
                register_models(con, [bad])
    assert db_snapshot(team) == before


# ---------------------------------------------------------------- further cases of our own

def test_a_key_file_that_is_a_directory_or_a_dangling_link_is_one_line(team, tmp_path):
    key = acc.sessions.session_key_path(team)
    key.mkdir()
    with pytest.raises(audit.InputError, match="the session key cannot be read"):
        acc.sessions.check_session_key(db=team)
    key.rmdir()
    key.symlink_to(tmp_path / "nowhere")          # a link is refused whatever it points to (or not)
    with pytest.raises(audit.InputError, match="the session key is a symbolic link"):
        acc.issue_session("Pema", db=team)
    key.unlink()
    key.symlink_to("/dev/null")
    with pytest.raises(audit.InputError, match="the session key is a symbolic link"):
        acc.issue_session("Pema", db=team)


def test_key_boundaries_that_are_fine(team, monkeypatch):
    upper = secrets.token_hex(32).upper()
    key = acc.sessions.session_key_path(team)
    key.write_text(upper + "\n")                                # upper-case hex and a newline
    os.chmod(key, 0o600)                                        # (a key readable by others is refused)
    assert acc.verify_session(acc.issue_session("Pema", db=team), db=team).name == "Pema"
    assert acc.verify_session(forge("Pema", bytes.fromhex(upper)), db=team).name == "Pema"
    monkeypatch.setenv(SECRET_ENV, STRONG_32)                   # exactly the shortest secret (not a weak one)
    assert acc.verify_session(acc.issue_session("Pema", db=team), db=team).name == "Pema"
    monkeypatch.setenv(SECRET_ENV, "")                          # empty = unset: the file's key
    assert acc.verify_session(forge("Pema", bytes.fromhex(upper)), db=team).name == "Pema"


@pytest.mark.parametrize("name,says", [
    ("\u0301Pema", "starts with a combining mark (U+0301)"),
    ("\u0f71", "starts with a combining mark (U+0F71)"),
    ("Pema\u034f", "U+034F"),
    ("Pema\u2060", "U+2060"),
    ("Pema\U000e0001", "U+E0001"),
    ("Pema\ue000", "U+E000"),
    ("𝐏𝐞𝐦𝐚", "looks like the existing name 'Pema'"),
    ("ROOT", "already exists"),
    ("Rооt", "looks like the existing name 'Root'"),
])
def test_further_name_cases(team, name, says):
    import re

    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match=re.escape(says)):
        acc.add_account(name, "some-password", actor="Root", db=team)
    assert db_snapshot(team) == before


def test_further_names_that_are_fine(team, tmp_path):
    for name in ("Dolkar", "Цэрэн", "دولقۇن", "ᠪᠠᠲᠤ", "次仁", "Pema-2"):
        assert acc.add_account(name, "some-password", actor="Root", db=team).name == name
    audit.import_predictions(
        _predictions(tmp_path, "Модель-7b"), benchmark="b", db=team, actor="Root"
    )  # no look-alike: fine
    assert ("Модель-7b",) in rows(team, "SELECT name FROM models")


def test_a_one_megabyte_name_costs_one_bounded_row(team):
    with pytest.raises(audit.SignInError):
        acc.authenticate("n" * 1_000_000, "whatever", db=team)
    assert rows(team, "SELECT count(*), max(length(name_key)) FROM login_failures") == [(1, 256)]
    with pytest.raises(audit.NotFoundError):                         # a look-alike is not the account
        acc.reset_password("Рema", "new-password", actor="Root", db=team)
