"""Signing in: a name and a password give an enabled account, or one
:class:`~audit.errors.SignInError` whatever was wrong.  Failures are counted
per name (known or not); after :data:`MAX_FAILURES` in a row the name is
locked for 30 s, doubling with every further failure up to 15 minutes."""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from audit._util.clock import utc_now
from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts.table import Account, log, name_key, password_hasher
from audit.errors import SignInError
from audit.store import DbPath, connect, transaction

MAX_FAILURES = 5
LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 15 * 60


#: Most names whose failed sign-ins are remembered at once.
MAX_FAILURE_ROWS = 1000
_BAD_SIGN_IN = "the name or the password is not right"
_DUMMY_HASH: str | None = None


def _dummy_verify(password: str) -> None:
    """Spend the time of a real check for unknown names (no timing oracle)."""
    global _DUMMY_HASH
    ph = password_hasher()
    if _DUMMY_HASH is None:
        _DUMMY_HASH = ph.hash(secrets.token_hex(16))
    try:
        ph.verify(_DUMMY_HASH, password)
    except Exception:  # noqa: BLE001 - always a mismatch
        pass


def verify_password(name: str, password: str, *, db: DbPath = None) -> bool:
    """Whether ``password`` is the account's password, without counting
    a failure or signing in (for the demo banner: are the published demo
    passwords still in use?)."""
    from argon2.exceptions import InvalidHashError, VerificationError

    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT password_hash FROM accounts WHERE name_key = ?", [name_key(name)]).fetchall() \
            if table_exists(con, "accounts") else []
    if not rows:
        return False
    try:
        return bool(password_hasher().verify(rows[0][0], password))
    except (VerificationError, InvalidHashError):
        return False


def _lock_seconds(failures: int) -> int:
    if failures < MAX_FAILURES:
        return 0
    return min(LOCK_SECONDS * 2 ** (failures - MAX_FAILURES), MAX_LOCK_SECONDS)


def authenticate(name: str, password: str, *, db: DbPath = None) -> Account:
    """The enabled account whose name and password these are, or
    :class:`SignInError` (the same message for an unknown name, a wrong
    password and a disabled account).  Failures are counted per name; after
    :data:`MAX_FAILURES` in a row the name is locked for a while, even for
    the right password."""
    key = name_key(name)
    now = utc_now()
    with connect(db) as con, transaction(con):
        locked = con.execute("SELECT locked_until FROM login_failures WHERE name_key = ?", [key]).fetchall()
        if locked and locked[0][0] is not None and locked[0][0] > now:
            wait = int((locked[0][0] - now).total_seconds()) + 1
            raise SignInError(f"too many failed sign-ins for this name; try again in {wait} s")
        rows = con.execute("SELECT name, role, disabled, password_hash FROM accounts WHERE name_key = ?",
                           [key]).fetchall() if key else []
        ok = False
        if rows:
            from argon2.exceptions import InvalidHashError, VerificationError

            ph = password_hasher()
            try:
                ok = ph.verify(rows[0][3], password or "")
            except (VerificationError, InvalidHashError):
                ok = False
            if ok and ph.check_needs_rehash(rows[0][3]):
                con.execute("UPDATE accounts SET password_hash = ? WHERE name_key = ?", [ph.hash(password), key])
        else:
            _dummy_verify(password or "")
        if ok and not rows[0][2]:
            con.execute("DELETE FROM login_failures WHERE name_key = ?", [key])
            return Account(rows[0][0], rows[0][1])
        got = con.execute(
            "INSERT INTO login_failures (name_key, failures, last_failed_at) VALUES (?, 1, ?) "
            "ON CONFLICT (name_key) DO UPDATE SET failures = login_failures.failures + 1, "
            "last_failed_at = excluded.last_failed_at RETURNING failures", [key, now]).fetchall()[0][0]
        lock = _lock_seconds(int(got))
        if lock:
            con.execute("UPDATE login_failures SET locked_until = ? WHERE name_key = ?",
                        [now + timedelta(seconds=lock), key])
        _forget_old_failures(con, now)
    log.warning("failed sign-in for name %r (%s in a row)", clean_name(name)[:40], got)
    raise SignInError(_BAD_SIGN_IN)


def _forget_old_failures(con, now: datetime) -> None:
    """Keep at most :data:`MAX_FAILURE_ROWS` names in ``login_failures``:
    names still locked are kept first, then the most recent failures."""
    n = con.execute("SELECT count(*) FROM login_failures").fetchall()[0][0]
    if n > MAX_FAILURE_ROWS:
        con.execute(
            "DELETE FROM login_failures WHERE name_key IN (SELECT name_key FROM login_failures "
            "ORDER BY coalesce(locked_until > ?, false) DESC, last_failed_at DESC, name_key OFFSET ?)",
            [now, MAX_FAILURE_ROWS])
