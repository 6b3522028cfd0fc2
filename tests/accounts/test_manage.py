"""Accounts and roles: Argon2 hashes, rate-limited sign-in, signed
session tokens, and roles enforced in the library and the CLI — on a real
DuckDB file, with the real ``audit`` command run as a subprocess (passwords
on standard input)."""
from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

import audit
import audit.accounts as acc
from audit.accounts._signin import LOCK_SECONDS, MAX_FAILURES
from audit.accounts.sessions import SECRET_ENV, _b64, _unb64
from tests.support.cli_process import run_audit
from tests.support.common import copy_db, rows

REPO = Path(__file__).resolve().parents[2]


def _team(db, _folder):
    from audit.ingest.storing import store_questions
    from audit.store import connect
    from audit.store.records import Option, Question

    with connect(db) as con:
        store_questions(con, "b", "b", [Question("b", q, "Stem", [Option("A", "x"), Option("B", "y")], "A")
                                        for q in ("q1", "q2")])
    acc.add_account("Root", "root-password", role="reviewer", db=db)  # first: admin whatever the role says
    acc.add_account("Lhamo", "lead-password", role="lead", actor="Root", db=db)
    acc.add_account("Pema", "pema-password", role="reviewer", actor="Root", db=db)
    acc.add_account("Karma", "karma-password", role="reviewer", actor="Root", db=db)


@pytest.fixture
def team(tmp_path, monkeypatch, db_template):
    """A database with two items (q1 key A), an admin, a lead and two reviewers
    (a copy of one built once: four Argon2 hashes per test cost seconds)."""
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    monkeypatch.delenv(SECRET_ENV, raising=False)
    return copy_db(db_template(_team), tmp_path / "t.duckdb")


def cli(db, *args, stdin: str = ""):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return run_audit([*args, "--db", str(db)], input=stdin, env=env, cwd=REPO, timeout=120)


def test_first_account_is_admin_and_only_admins_add_accounts(team):
    df = acc.list_accounts(db=team)
    assert dict(zip(df["name"], df["role"])) == {"Karma": "reviewer", "Lhamo": "lead", "Pema": "reviewer",
                                                 "Root": "admin"}
    assert "password_hash" not in df.columns
    with pytest.raises(audit.PermissionDeniedError, match="for administrators"):
        acc.add_account("Dawa", "dawa-password", actor="Lhamo", db=team)
    with pytest.raises(audit.PermissionDeniedError):
        acc.add_account("Dawa", "dawa-password", db=team)
    with pytest.raises(audit.InputError, match="already exists"):
        acc.add_account("pema", "other-password", actor="Root", db=team)
    with pytest.raises(audit.InputError, match="at least 8"):
        acc.add_account("Dawa", "short", actor="Root", db=team)


def test_passwords_are_argon2_hashes_never_in_clear(team, caplog):
    caplog.set_level(logging.DEBUG)
    hashes = [h for (h,) in rows(team, "SELECT password_hash FROM accounts")]
    assert len(hashes) == 4 and all(h.startswith("$argon2id$") for h in hashes)
    with pytest.raises(audit.SignInError):
        acc.authenticate("Pema", "guess-password", db=team)
    acc.reset_password("Pema", "fresh-password", actor="Root", db=team)
    raw = team.read_bytes() + (Path(str(team) + ".wal").read_bytes() if Path(str(team) + ".wal").exists() else b"")
    for pw in ("root-password", "lead-password", "pema-password", "fresh-password", "guess-password"):
        assert pw.encode() not in raw
        assert pw not in caplog.text
    key_file = Path(str(team) + ".session-key")
    acc.issue_session("Pema", db=team)
    assert key_file.exists() and (key_file.stat().st_mode & 0o777) == 0o600


def test_wrong_password_unknown_name_and_disabled_account_get_the_same_answer(team):
    assert acc.authenticate("  pema ", "pema-password", db=team).name == "Pema"
    msgs = set()
    for name, pw in (("Pema", "nope-nope-nope"), ("Nobody", "pema-password")):
        with pytest.raises(audit.SignInError) as e:
            acc.authenticate(name, pw, db=team)
        msgs.add(str(e.value))
    acc.set_disabled("Karma", actor="Root", db=team)
    with pytest.raises(audit.SignInError) as e:
        acc.authenticate("Karma", "karma-password", db=team)
    msgs.add(str(e.value))
    assert msgs == {"the name or the password is not right"}


@pytest.mark.slow
def test_sign_in_is_rate_limited_per_name(team):
    for _ in range(MAX_FAILURES):
        with pytest.raises(audit.SignInError, match="not right"):
            acc.authenticate("Pema", "wrong-password", db=team)
    with pytest.raises(audit.SignInError, match=r"too many failed sign-ins.*try again in \d+ s") as e:
        acc.authenticate("Pema", "pema-password", db=team)  # even the right password waits
    wait = int(str(e.value).rsplit(" in ", 1)[1].split()[0])
    assert 1 <= wait <= LOCK_SECONDS + 1
    assert acc.authenticate("Karma", "karma-password", db=team).name == "Karma"  # other names unaffected
    assert rows(team, "SELECT failures FROM login_failures WHERE name_key = 'pema'") == [(5,)]
    acc.reset_password("Pema", "pema-password-2", actor="Root", db=team)   # an admin lifts the lock
    assert acc.authenticate("Pema", "pema-password-2", db=team).name == "Pema"


def test_session_tokens_are_signed_expire_and_end(team):
    tok = acc.issue_session("Pema", db=team)
    assert acc.verify_session(tok, db=team) == acc.Account("Pema", "reviewer", epoch=0)   # the session proves its epoch
    payload, sig = tok.split(".")
    forged = _b64(_unb64(payload).replace(b"Pema", b"Root")) + "." + sig
    for bad in (forged, tok[:-2] + "AA", "garbage", ""):
        with pytest.raises(audit.SignInError, match="not valid"):
            acc.verify_session(bad, db=team)
    with pytest.raises(audit.SignInError, match="expired"):
        acc.verify_session(acc.issue_session("Pema", hours=-1, db=team), db=team)
    acc.end_sessions("Pema", db=team)             # sign-out
    with pytest.raises(audit.SignInError, match="ended"):
        acc.verify_session(tok, db=team)
    tok2 = acc.issue_session("Pema", db=team)
    acc.reset_password("Pema", "pema-password-3", actor="Pema", db=team)   # own password: allowed
    with pytest.raises(audit.SignInError, match="ended"):
        acc.verify_session(tok2, db=team)
    tok3 = acc.issue_session("Karma", db=team)
    acc.set_disabled("Karma", actor="Root", db=team)
    with pytest.raises(audit.SignInError):
        acc.verify_session(tok3, db=team)
    with pytest.raises(audit.InputError, match="last enabled admin"):
        acc.set_disabled("Root", actor="Root", db=team)


def test_reviewer_cannot_adjudicate_through_the_api(team):
    audit.review.add_review("b", "q1", "Pema", "key_correct", db=team)
    audit.review.add_review("b", "q1", "Lhamo", "key_wrong", corrected_answer="B", db=team)
    before = rows(team, "SELECT count(*) FROM reviews")
    with pytest.raises(audit.PermissionDeniedError, match="not a lead"):
        audit.review.add_review("b", "q1", "Karma", "key_correct", is_adjudication=True, db=team)
    with pytest.raises(audit.PermissionDeniedError, match="no enabled account"):   # unknown names neither
        audit.review.add_review("b", "q1", "Someone", "key_correct", is_adjudication=True, db=team)
    # a lead whose own verdict is part of the dispute may not settle it
    with pytest.raises(audit.PermissionDeniedError, match="gave a verdict on question 'q1'"):
        audit.review.add_review("b", "q1", "Lhamo", "key_wrong", corrected_answer="B", is_adjudication=True,
                                db=team)
    assert rows(team, "SELECT count(*) FROM reviews") == before
    view = audit.review.item_view("b", "q1", reviewer="Lhamo", db=team)
    assert view.is_lead and not view.can_adjudicate
    assert audit.review.item_view("b", "q1", reviewer="Root", db=team).can_adjudicate
    r = audit.review.add_review("b", "q1", "Root", "key_correct", is_adjudication=True, db=team)
    assert r.is_adjudication and r.reviewer == "Root"


def test_lead_list_promotes_a_reviewer_account(team, monkeypatch):
    audit.review.add_review("b", "q1", "Pema", "key_correct", db=team)
    monkeypatch.setenv("WORKBENCH_LEADS", "Karma")      # ignored once accounts exist
    assert acc.roles.account_role("Karma", db=team) == "reviewer"
    audit.accounts.set_leads(["Karma"], actor="Root", db=team)   # an admin's act
    assert acc.roles.account_role("Karma", db=team) == "lead"
    assert audit.review.add_review("b", "q1", "Karma", "key_correct", is_adjudication=True, db=team).is_adjudication
    acc.set_disabled("Karma", actor="Root", db=team)        # a disabled account is never a lead
    with pytest.raises(audit.PermissionDeniedError):
        audit.review.add_review("b", "q1", "Karma", "key_correct", is_adjudication=True, db=team)


@pytest.mark.slow
def test_reviewer_cannot_create_a_version_api_and_cli(team, tmp_path):
    out = tmp_path / "exports"
    with pytest.raises(audit.PermissionDeniedError, match="is a reviewer"):
        audit.create_version("b", "1.1", db=team, exports_dir=out, actor="Pema")
    with pytest.raises(audit.PermissionDeniedError, match="needs a signed-in"):
        audit.create_version("b", "1.1", db=team, exports_dir=out)
    assert not out.exists() and rows(team, "SELECT count(*) FROM key_versions") == [(0,)]

    args = ("export", "create", "--benchmark", "b", "--version", "1.1", "--exports-dir", str(out))
    r = cli(team, *args)
    assert r.returncode == 1 and "needs a signed-in lead reviewer" in r.stderr
    r = cli(team, *args, "--as", "Pema", "--password-stdin", stdin="pema-password\n")
    assert r.returncode == 1 and "'Pema' is a reviewer; creating an export version is for lead reviewers" in r.stderr
    r = cli(team, *args, "--as", "Lhamo", "--password-stdin", stdin="not-her-password\n")
    assert r.returncode == 1 and "the name or the password is not right" in r.stderr
    assert not out.exists() and rows(team, "SELECT count(*) FROM key_versions") == [(0,)]
    r = cli(team, *args, "--as", "Lhamo", "--password-stdin", stdin="lead-password\n")
    assert r.returncode == 0, r.stderr
    assert rows(team, "SELECT version FROM key_versions ORDER BY version") == [("1.0",), ("1.1",)]


@pytest.mark.slow
def test_users_cli(tmp_path):
    db = tmp_path / "u.duckdb"
    audit.init_db(db)
    r = cli(db, "users", "list")
    assert r.returncode == 0 and "no accounts yet" in r.stdout
    r = cli(db, "users", "add", "Dolma", "--role", "reviewer", "--password-stdin", stdin="dolma-password\n")
    assert r.returncode == 0 and "added account Dolma (admin)" in r.stdout
    r = cli(db, "users", "add", "Tashi", "--password-stdin", stdin="tashi-password\n")
    assert r.returncode == 1 and "needs a signed-in administrator" in r.stderr
    r = cli(db, "users", "add", "Tashi", "--role", "lead", "--as", "Dolma", "--password-stdin",
            stdin="dolma-password\ntashi-password\n")
    assert r.returncode == 0 and "added account Tashi (lead)" in r.stdout
    r = cli(db, "users", "disable", "Dolma", "--as", "Tashi", "--password-stdin", stdin="tashi-password\n")
    assert r.returncode == 1 and "is a lead reviewer; disabling accounts is for administrators" in r.stderr
    r = cli(db, "users", "reset-password", "Tashi", "--as", "Dolma", "--password-stdin",
            stdin="dolma-password\ntashi-new-password\n")
    assert r.returncode == 0, r.stderr
    r = cli(db, "users", "disable", "Tashi", "--as", "Dolma", "--password-stdin", stdin="dolma-password\n")
    assert r.returncode == 0 and "disabled account Tashi" in r.stdout
    r = cli(db, "users", "list")
    assert r.returncode == 0
    lines = {l.split()[0]: l.split()[1:3] for l in r.stdout.splitlines()[1:]}
    assert lines == {"Dolma": ["admin", "False"], "Tashi": ["lead", "True"]}
    assert "password" not in r.stdout and "$argon2" not in r.stdout
    with pytest.raises(audit.SignInError):
        acc.authenticate("Tashi", "tashi-new-password", db=db)


def test_label_studio_settings_are_for_admins(team):
    # refused before any request is made (the URL is not even reachable)
    for actor in ("Pema", "Lhamo", None):
        with pytest.raises(audit.PermissionDeniedError):
            audit.sync.ls_connect("http://127.0.0.1:9", "token-not-used", benchmark="b", actor=actor, db=team)
    with pytest.raises(audit.sync.LabelStudioError):   # an admin gets as far as the (absent) server
        audit.sync.ls_connect("http://127.0.0.1:9", "token-not-used", benchmark="b", actor="Root", db=team)
    r = cli(team, "ls", "connect", "--url", "http://127.0.0.1:9", "--api-key", "x", "--as", "Pema",
            "--password-stdin", stdin="pema-password\n")
    assert r.returncode == 1 and "'Pema' is a reviewer; connecting a Label Studio project is for administrators" \
        in r.stderr
    assert rows(team, "SELECT count(*) FROM ls_projects") == [(0,)]
