"""audit.accounts.sessions: signed session tokens.  Pins the token's form
(base64url payload naming account, epoch and expiry, then an HMAC-SHA256
signature checked against an independent computation), that a payload
edited to name another account or a later expiry is refused, expiry,
signing out and disabling ending every token, the key file (created 0600
with 64 hex digits, refused when short or not hex) and that a change of
``$WORKBENCH_SECRET`` invalidates earlier tokens."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import stat
import time

import pytest

from audit.accounts.sessions import (
    SECRET_ENV,
    check_session_key,
    end_sessions,
    issue_session,
    session_key_path,
    verify_session,
)
from audit.accounts.table import Account
from audit.errors import InputError, SignInError
from audit.store import connect
from tests.support.account_rows import add_rows


@pytest.fixture
def team(db_path, monkeypatch):
    monkeypatch.delenv(SECRET_ENV, raising=False)
    add_rows(db_path, ("Dolma", "admin"), ("Pema", "reviewer"), ("Karma", "reviewer", "pw", True))
    return db_path


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_token_form_and_signature(team):
    before = time.time()
    token = issue_session("pema", hours=2, db=team)
    payload, sig = token.split(".")
    data = json.loads(unb64(payload))
    assert data["u"] == "Pema" and data["g"] == 0
    assert before + 2 * 3600 - 1 <= data["e"] <= time.time() + 2 * 3600
    key = bytes.fromhex(session_key_path(team).read_text().strip())
    assert sig == b64(hmac.new(key, payload.encode(), hashlib.sha256).digest())
    assert verify_session(token, db=team) == Account("Pema", "reviewer", epoch=0)   # the session proves its epoch


def test_an_edited_payload_is_refused(team):
    payload, sig = issue_session("Pema", db=team).split(".")
    data = json.loads(unb64(payload))
    for change in ({"u": "Dolma"}, {"e": data["e"] + 10**6}, {"g": 1}):
        forged = b64(json.dumps({**data, **change}, separators=(",", ":")).encode())
        with pytest.raises(SignInError, match="not valid"):
            verify_session(f"{forged}.{sig}", db=team)


def test_malformed_tokens(team):
    for token in (None, "", "abc", "a.b.c", "ñ.ñ", "....", "x" * 5000):
        with pytest.raises(SignInError, match="this sign-in link is not valid"):
            verify_session(token, db=team)


def test_expiry(team):
    token = issue_session("Pema", hours=-0.01, db=team)
    with pytest.raises(SignInError, match="expired"):
        verify_session(token, db=team)


def test_sign_out_and_disable_end_sessions(team):
    pema, dolma = issue_session("Pema", db=team), issue_session("Dolma", db=team)
    end_sessions("PEMA", db=team)
    with pytest.raises(SignInError, match="this session has ended"):
        verify_session(pema, db=team)
    assert verify_session(dolma, db=team).name == "Dolma"          # another account's session goes on
    assert verify_session(issue_session("Pema", db=team), db=team).name == "Pema"   # a new one works
    with connect(team) as con:
        con.execute("UPDATE accounts SET disabled = true WHERE name = 'Dolma'")
    with pytest.raises(SignInError, match="ended"):
        verify_session(dolma, db=team)


def test_no_session_for_a_disabled_or_unknown_account(team):
    for name in ("Karma", "Nobody"):
        with pytest.raises(SignInError, match="no enabled account named"):
            issue_session(name, db=team)


def test_key_file_is_private_and_hex(team):
    check_session_key(db=team)
    path = session_key_path(team)
    assert path.name == team.name + ".session-key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert len(text) == 64 and int(text, 16) >= 0
    check_session_key(db=team)
    assert path.read_text() == text                   # kept, not replaced


def test_bad_key_files(team):
    for content, says in (("", "empty"), ("ab" * 31, "not valid"), ("zz" * 32, "not valid"), ("a" * 65, "not valid")):
        session_key_path(team).write_text(content)
        with pytest.raises(InputError, match=says) as e:
            issue_session("Pema", db=team)
        assert str(session_key_path(team)) in str(e.value)


def test_the_secret_variable(team, monkeypatch):
    monkeypatch.setenv(SECRET_ENV, "s" * 31)
    with pytest.raises(InputError, match="too short"):
        check_session_key(db=team)
    monkeypatch.setenv(SECRET_ENV, "3f9c2a7e81d04b6c95e1f0a2b7d8c3e4a6f1")
    token = issue_session("Pema", db=team)
    assert not session_key_path(team).exists()        # the variable replaces the file
    assert verify_session(token, db=team).name == "Pema"
    monkeypatch.setenv(SECRET_ENV, "c81e4f0a9b2d7e3c6a5f1b0d8e2c4a7f9b3d")
    with pytest.raises(SignInError, match="not valid"):
        verify_session(token, db=team)
