"""The session signing key: a key file the tool did not make itself is
trusted only when it is private (mode 0600, owned by the user running the
tool, not a link) and strong; otherwise every call that would sign or check
a session refuses with one line naming the file, and no token signed with
that key is ever accepted.

Before: a ``<db>.session-key`` present before the first start was trusted
whatever its owner, mode or value, so 64 zeros with mode 0644 minted admin
sessions."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import audit
from audit.accounts import add_account, issue_session, verify_session
from audit.accounts.sessions import check_session_key, session_key_path

REPO = Path(__file__).resolve().parents[2]
SECRET_ENV = "WORKBENCH_SECRET"


@pytest.fixture
def team(tmp_path, db_path, monkeypatch):
    """A database with an admin (Root) and a reviewer (Pema), no key file yet."""
    monkeypatch.delenv(SECRET_ENV, raising=False)
    add_account("Root", "root-password", db=db_path)
    add_account("Pema", "pema-password", role="reviewer", actor="Root", db=db_path)
    assert not session_key_path(db_path).exists()
    return db_path


def _b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def forge(name: str, key: bytes, epoch: int = 0) -> str:
    """A session token for ``name`` signed with ``key``, made without the library."""
    payload = _b64(json.dumps({"u": name, "g": epoch, "e": int(time.time() + 3600)}).encode())
    return payload + "." + _b64(hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest())


def _plant(db, text: str, mode: int) -> Path:
    key = session_key_path(db)
    key.write_text(text)
    os.chmod(key, mode)
    return key


def _refuses_everywhere(db, key: Path, raw: bytes) -> None:
    """check_session_key, issue_session and verify_session all refuse, in
    one line naming the file; a token signed with the planted key never
    signs anyone in; the file is left as it was."""
    before = key.read_bytes()
    for call in (lambda: check_session_key(db=db), lambda: issue_session("Pema", db=db)):
        with pytest.raises(audit.AuditError) as e:
            call()
        msg = str(e.value)
        assert "\n" not in msg and str(key) in msg, msg
    with pytest.raises(audit.AuditError):
        verify_session(forge("Root", raw), db=db)
    assert key.read_bytes() == before


# ---------------------------------------------------------------- the reported case

def test_sixty_four_zeros_with_mode_0644_never_sign_a_session(team):
    key = _plant(team, "0" * 64, 0o644)
    _refuses_everywhere(team, key, bytes(32))


# ---------------------------------------------------------------- further cases: mode, owner, value

def test_a_strong_key_readable_by_everyone_is_refused(team):
    value = secrets.token_hex(32)
    key = _plant(team, value, 0o644)
    _refuses_everywhere(team, key, bytes.fromhex(value))


def test_a_strong_key_readable_by_the_group_is_refused(team):
    value = secrets.token_hex(32)
    key = _plant(team, value, 0o640)
    _refuses_everywhere(team, key, bytes.fromhex(value))


def test_a_strong_key_writable_by_others_is_refused(team):
    value = secrets.token_hex(32)
    key = _plant(team, value, 0o602)
    _refuses_everywhere(team, key, bytes.fromhex(value))


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_a_key_owned_by_another_user_is_refused(team):
    value = secrets.token_hex(32)
    key = _plant(team, value, 0o600)
    os.chown(key, 65534, 65534)          # nobody
    _refuses_everywhere(team, key, bytes.fromhex(value))


@pytest.mark.parametrize("value", ["f" * 64, "01" * 32, "deadbeef" * 8, "0123456789abcdef" * 4, "00" * 31 + "01"],
                         ids=["one-digit", "two-digit-cycle", "deadbeef", "counting", "almost-zero"])
def test_a_weak_key_value_is_refused_even_with_mode_0600(team, value):
    key = _plant(team, value, 0o600)
    _refuses_everywhere(team, key, bytes.fromhex(value))


def test_a_key_file_that_is_a_link_is_refused(team, tmp_path):
    """A symbolic link can be pointed elsewhere later (or at a shared file)."""
    real = tmp_path / "elsewhere.key"
    value = secrets.token_hex(32)
    real.write_text(value)
    os.chmod(real, 0o600)
    key = session_key_path(team)
    key.symlink_to(real)
    with pytest.raises(audit.AuditError) as e:
        check_session_key(db=team)
    assert "\n" not in str(e.value) and str(key) in str(e.value)
    with pytest.raises(audit.AuditError):
        verify_session(forge("Root", bytes.fromhex(value)), db=team)


@pytest.mark.parametrize("secret", ["a" * 32, "0" * 64, "ab" * 20, "password" * 4],
                         ids=["one-char", "zeros", "cycle", "word"])
def test_a_weak_workbench_secret_is_refused(team, monkeypatch, secret):
    """The variable is a key too: 32 copies of one character is not a secret."""
    monkeypatch.setenv(SECRET_ENV, secret)
    with pytest.raises(audit.AuditError) as e:
        check_session_key(db=team)
    assert "\n" not in str(e.value) and SECRET_ENV in str(e.value)
    with pytest.raises(audit.AuditError):
        verify_session(forge("Root", secret.encode()), db=team)


# ---------------------------------------------------------------- correct results that must stay

def test_the_key_the_tool_makes_is_private_and_strong(team):
    check_session_key(db=team)
    key = session_key_path(team)
    st = key.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()
    assert len(set(key.read_text().strip())) > 8
    assert verify_session(issue_session("Pema", db=team), db=team).name == "Pema"


def test_the_key_is_made_private_whatever_the_umask(team):
    r = subprocess.run([sys.executable, "-c", "import os, sys; os.umask(0); import audit.accounts.sessions as r; "
                        "r.check_session_key(db=sys.argv[1])", str(team)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(session_key_path(team).stat().st_mode) == 0o600


def test_a_strong_private_key_planted_by_the_owner_is_used(team):
    value = secrets.token_hex(32)
    _plant(team, value, 0o600)
    assert verify_session(forge("Pema", bytes.fromhex(value)), db=team).name == "Pema"


def test_a_refused_key_stops_the_workbench_before_the_sign_in_form(team, monkeypatch):
    """The workbench's start-up check: the page says what is wrong and offers
    no sign-in form (nothing can be signed with that key)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    _plant(team, "0" * 64, 0o644)
    monkeypatch.setenv("AUDIT_DB", str(team))
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(REPO / "workbench" / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert any(str(session_key_path(team)) in e.value for e in at.error), [e.value for e in at.error]
    assert "signin_name" not in [w.key for w in at.text_input]
