"""audit.accounts._signin: signing in.  Pins the lock schedule (30 s after
five failures in a row, doubling, at most 15 minutes; checked against a
hand-written table), that a locked name is refused even with the right
password and says how long to wait, that the fifth failure sets the lock,
that success clears the count, that a hash made with older parameters is
upgraded at the next sign-in, that ``verify_password`` counts nothing, and
that the failure table keeps at most MAX_FAILURE_ROWS names, locked ones
first.  Accounts are written with a cheap Argon2id hash
(tests/support/account_rows.py) to keep the file fast."""
from __future__ import annotations

from datetime import timedelta

import pytest

from audit._util.clock import utc_now
from audit.accounts._signin import (
    LOCK_SECONDS,
    MAX_FAILURE_ROWS,
    MAX_FAILURES,
    MAX_LOCK_SECONDS,
    _forget_old_failures,
    _lock_seconds,
    authenticate,
    verify_password,
)
from audit.accounts.table import Account, password_hasher
from audit.errors import SignInError
from audit.store import connect
from tests.support.account_rows import add_rows


def test_lock_schedule():
    assert (MAX_FAILURES, LOCK_SECONDS, MAX_LOCK_SECONDS) == (5, 30, 900)
    table = {0: 0, 1: 0, 4: 0, 5: 30, 6: 60, 7: 120, 8: 240, 9: 480, 10: 900, 11: 900, 50: 900}
    assert {n: _lock_seconds(n) for n in table} == table


@pytest.fixture
def team(db_path):
    add_rows(db_path, ("Pema", "reviewer", "pema-password"), ("Karma", "reviewer", "karma-password", True))
    return db_path


def failures(db, key):
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT failures, locked_until FROM login_failures WHERE name_key = ?", [key]).fetchall()
    return rows[0] if rows else None


def test_sign_in_upgrades_an_old_hash_and_clears_failures(team):
    with connect(team) as con:
        con.execute("INSERT INTO login_failures (name_key, failures, last_failed_at) VALUES ('pema', 3, now())")
    assert authenticate("  PEMA ", "pema-password", db=team) == Account("Pema", "reviewer")
    assert failures(team, "pema") is None
    with connect(team, read_only=True) as con:
        stored = con.execute("SELECT password_hash FROM accounts WHERE name = 'Pema'").fetchone()[0]
    assert not password_hasher().check_needs_rehash(stored)        # the production parameters now
    assert password_hasher().verify(stored, "pema-password")


def test_the_fifth_failure_locks_and_the_right_password_then_waits(team):
    with connect(team) as con:
        con.execute("INSERT INTO login_failures (name_key, failures, last_failed_at) VALUES ('pema', 4, now())")
    before = utc_now()
    with pytest.raises(SignInError, match="^the name or the password is not right$"):
        authenticate("Pema", "wrong-password", db=team)
    n, locked = failures(team, "pema")
    assert n == 5
    assert timedelta(seconds=29) <= locked - before <= timedelta(seconds=31)
    with pytest.raises(SignInError, match=r"too many failed sign-ins for this name; try again in (30|31) s"):
        authenticate("Pema", "pema-password", db=team)
    assert failures(team, "pema")[0] == 5             # a refused attempt while locked is not counted


def test_unknown_and_disabled_names_count_too(team):
    for name, password in (("Nobody", "whatever-pw"), ("Karma", "karma-password")):
        with pytest.raises(SignInError, match="^the name or the password is not right$"):
            authenticate(name, password, db=team)
    assert failures(team, "nobody")[0] == 1 and failures(team, "karma")[0] == 1


def test_verify_password_counts_nothing(team):
    assert verify_password("pema", "pema-password", db=team) is True
    assert verify_password("Pema", "nope", db=team) is False
    assert verify_password("Nobody", "nope", db=team) is False
    assert failures(team, "pema") is None
    with connect(team) as con:
        con.execute("UPDATE accounts SET password_hash = 'not-a-hash' WHERE name = 'Pema'")
    assert verify_password("Pema", "pema-password", db=team) is False


def test_the_failure_table_stays_bounded_keeping_locked_names(db_path):
    now = utc_now()
    with connect(db_path) as con:
        con.execute("INSERT INTO login_failures (name_key, failures, last_failed_at) "
                    "SELECT 'n' || i, 1, ?::TIMESTAMP - to_seconds(i) FROM range(?) t(i)",
                    [now, MAX_FAILURE_ROWS + 20])
        # the three oldest names are locked: they must survive
        con.execute("UPDATE login_failures SET locked_until = ? WHERE name_key IN (?, ?, ?)",
                    [now + timedelta(minutes=5), *(f"n{MAX_FAILURE_ROWS + 20 - k}" for k in (1, 2, 3))])
        _forget_old_failures(con, now)
        keys = {r[0] for r in con.execute("SELECT name_key FROM login_failures").fetchall()}
    assert len(keys) == MAX_FAILURE_ROWS
    assert {f"n{MAX_FAILURE_ROWS + 20 - k}" for k in (1, 2, 3)} <= keys
    assert "n0" in keys and f"n{MAX_FAILURE_ROWS}" not in keys      # the most recent kept, older dropped
