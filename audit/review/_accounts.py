"""Accounts and roles: who may sign in to the workbench and what they may do.

Roles, from least to most: ``reviewer`` (records verdicts), ``lead``
(also adjudicates disputed items and creates export versions), ``admin``
(also manages accounts and the Label Studio settings).  The first account
created in a database is always an admin.

* Passwords are hashed with Argon2id (``argon2-cffi``, its default
  parameters, RFC 9106); only the hash is stored, and a hash made with older
  parameters is upgraded at the next successful sign-in.
* Sign-in is rate-limited per name (known or not): after
  :data:`MAX_FAILURES` wrong passwords in a row the name is locked for
  30 s, doubling with every further failure up to 15 minutes.
* A session is a signed token (HMAC-SHA256) naming the account, its session
  epoch and an expiry (:data:`SESSION_HOURS` hours by default).  The key is
  ``$WORKBENCH_SECRET`` (at least :data:`MIN_SECRET_CHARS` characters) or
  a random 32-byte key kept, as 64 hex digits, in ``<database>.session-key``
  (created with mode 0600 from :mod:`secrets`, never in the database,
  ignored by git).  :func:`check_session_key` refuses an empty, short or
  non-hex key with one line, so no session is ever signed with a weak key.
  Disabling an account, resetting its password or signing out raises its
  epoch, which ends every session of that account.
* Account names are identities (:func:`audit.names.identity_name`):
  NFC, trimmed, at most 64 characters, no control, zero-width or
  bidirectional characters, not confusable with an existing account.
  Failed sign-ins are remembered for at most :data:`MAX_FAILURE_ROWS`
  names (the oldest unlocked ones are forgotten first).

Compatibility with the lead list (``audit review leads`` and
``$WORKBENCH_LEADS``): a name on the stored list is a lead even when its
account says ``reviewer`` (the list promotes, it never demotes).  Once the
database has accounts, only enabled accounts act: a listed name without an
account is nobody, and ``$WORKBENCH_LEADS`` is ignored.  When a database has
no account at all, nothing changes from before: anyone may record verdicts
under any name, and the lead list (with ``$WORKBENCH_LEADS``) alone decides
who adjudicates (anyone, when it is empty).

>>> import tempfile, os
>>> db = os.path.join(tempfile.mkdtemp(), "a.duckdb")
>>> add_account("Dolma", "correct horse", db=db).role     # the first account is an admin
'admin'
>>> add_account("Pema", "battery staple", role="reviewer", actor="Dolma", db=db).role
'reviewer'
>>> authenticate("pema", "battery staple", db=db).name
'Pema'
>>> authenticate("Pema", "wrong", db=db)
Traceback (most recent call last):
...
audit.errors.SignInError: the name or the password is not right
>>> token = issue_session("Pema", db=db)
>>> verify_session(token, db=db).name
'Pema'
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd

from audit.errors import InputError, NotFoundError, PermissionDeniedError, SignInError
from audit.names import MAX_ACCOUNT_NAME, identity_name
from audit.review._common import clean_name, has_accounts, table_exists, utc_now
from audit.review._settings import is_lead, leads_from
from audit.store import connect, resolve_db_path, transaction
from audit.store import DbPath

log = logging.getLogger("audit.accounts")
log.addHandler(logging.NullHandler())  # a library: no stray stderr line before the CLI's one error line

ROLES = ("reviewer", "lead", "admin")
ROLE_LABELS = {"reviewer": "reviewer", "lead": "lead reviewer", "admin": "administrator"}
MIN_PASSWORD = 8
MAX_FAILURES = 5
LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 15 * 60
SESSION_HOURS = 12.0
SECRET_ENV = "WORKBENCH_SECRET"
#: Shortest ``$WORKBENCH_SECRET`` accepted (characters).
MIN_SECRET_CHARS = 32
#: Bytes of a generated session key (written as twice as many hex digits).
SESSION_KEY_BYTES = 32
#: Most names whose failed sign-ins are remembered at once.
MAX_FAILURE_ROWS = 1000
ACCOUNT_COLUMNS = ["name", "role", "disabled", "created_at", "updated_at"]

_RANK = {r: i for i, r in enumerate(ROLES)}
_BAD_SIGN_IN = "the name or the password is not right"


@dataclass(frozen=True)
class Account:
    """An account as the workbench and the library see it (never the hash)."""

    name: str
    role: str
    disabled: bool = False

    def has(self, role: str) -> bool:
        """Whether this account's role is ``role`` or above."""
        return not self.disabled and _RANK[self.role] >= _RANK[role]


def _hasher():
    from argon2 import PasswordHasher

    return PasswordHasher()


_DUMMY_HASH: str | None = None


def _dummy_verify(password: str) -> None:
    """Spend the time of a real check for unknown names (no timing oracle)."""
    global _DUMMY_HASH
    ph = _hasher()
    if _DUMMY_HASH is None:
        _DUMMY_HASH = ph.hash(secrets.token_hex(16))
    try:
        ph.verify(_DUMMY_HASH, password)
    except Exception:  # noqa: BLE001 - always a mismatch
        pass


def _key(name: str) -> str:
    return clean_name(name).casefold()[:MAX_ACCOUNT_NAME * 4]


def _check_password(password: str) -> None:
    """A password must be typeable at a prompt and as one line of
    ``--password-stdin``: no control characters (``\\r``, tab, escape...),
    no line or paragraph separators (U+2028, U+2029), no surrounding spaces."""
    import unicodedata

    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise InputError(f"a password needs at least {MIN_PASSWORD} characters")
    if password != password.strip() or len(password.splitlines() or [""]) != 1 or any(
            unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs") for c in password):
        raise InputError("a password may not start or end with spaces or hold a line break or control character")


def _check_role(role: str) -> str:
    role = str(role).strip().lower()
    if role not in ROLES:
        raise InputError(f"unknown role '{role}' (use one of: {', '.join(ROLES)})")
    return role


def account_from(con, name: str | None) -> Account | None:
    """The account of ``name`` (any case) or None."""
    if not name or not table_exists(con, "accounts"):
        return None
    rows = con.execute("SELECT name, role, disabled FROM accounts WHERE name_key = ?", [_key(name)]).fetchall()
    return Account(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None


def effective_role(con, name: str | None) -> str | None:
    """The role that decides what ``name`` may do: the account's role, raised
    to ``lead`` when the name is on the lead list; None for a disabled
    account or a name without an account (when the database has accounts);
    with no account at all, ``lead`` for a listed name and ``reviewer``
    otherwise."""
    acc = account_from(con, name)
    listed = bool(name) and is_lead(str(name), leads_from(con))
    if acc is not None:
        if acc.disabled:
            return None
        return "lead" if listed and _RANK[acc.role] < _RANK["lead"] else acc.role
    if has_accounts(con):
        return None
    return "lead" if listed else "reviewer"


def account_role(name: str | None, *, db: DbPath = None) -> str | None:
    """:func:`effective_role` of ``name`` in the database ``db``."""
    with connect(db, read_only=True) as con:
        return effective_role(con, name)


def accounts_exist(*, db: DbPath = None) -> bool:
    """:func:`has_accounts` on the database ``db``."""
    with connect(db, read_only=True) as con:
        return has_accounts(con)


def may_adjudicate(con, name: str | None) -> bool:
    """Whether ``name`` may adjudicate disputed items: a lead or admin (by
    account or the lead list); with no accounts and an empty lead list,
    anyone (the behaviour before accounts)."""
    if not name:
        return False
    role = effective_role(con, name)
    if role is None:
        return False
    if role in ("lead", "admin"):
        return True
    return not has_accounts(con) and not leads_from(con)


def require_role(con, actor: str | None, role: str, action: str) -> None:
    """Raise :class:`PermissionDeniedError` unless ``actor`` may do ``action``
    (which needs ``role`` or above).  With no account in the database and an
    empty lead list there is no check (one person working locally); with a
    lead list but no account, a ``lead`` action needs a listed name."""
    if not has_accounts(con):
        if role == "admin" or not leads_from(con):
            return
        if actor is None:
            raise PermissionDeniedError(f"{action} is for lead reviewers: say who you are (e.g. --as NAME)")
    if actor is None:
        raise PermissionDeniedError(f"{action} needs a signed-in {ROLE_LABELS[role]} (e.g. --as NAME)")
    got = effective_role(con, actor)
    if got is None:
        raise PermissionDeniedError(f"'{clean_name(actor)}' has no enabled account and may not do this: {action}")
    if _RANK[got] < _RANK[role]:
        raise PermissionDeniedError(f"'{clean_name(actor)}' is a {ROLE_LABELS[got]}; {action} is for "
                                    f"{'administrators' if role == 'admin' else 'lead reviewers'}")


# ---------------------------------------------------------------- managing accounts

def add_account(name: str, password: str, *, role: str = "reviewer", actor: str | None = None,
                db: DbPath = None) -> Account:
    """Create an account.  The first account of a database is an admin
    whatever ``role`` says; later ones need ``actor`` to be an admin."""
    if name is None or not clean_name(name):
        raise InputError("an account needs a name")
    clean = identity_name(name, kind="account name")
    role = _check_role(role)
    _check_password(password)
    digest = _hasher().hash(password)
    with connect(db) as con, transaction(con):
        first = not has_accounts(con)
        if not first:
            require_role(con, actor, "admin", "adding accounts")
        if account_from(con, clean) is not None:
            raise InputError(f"an account named '{clean}' already exists")
        identity_name(clean, kind="account name",
                      existing=[n for (n,) in con.execute("SELECT name FROM accounts").fetchall()])
        role = "admin" if first else role
        now = utc_now()
        con.execute("INSERT INTO accounts (name, name_key, role, password_hash, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)", [clean, _key(clean), role, digest, now, now])
    log.info("account added: %s (%s)", clean, role)
    return Account(clean, role)


def list_accounts(*, db: DbPath = None) -> pd.DataFrame:
    """Every account, by name: columns ``name, role, disabled, created_at,
    updated_at`` (UTC).  Never the password hash."""
    with connect(db, read_only=True) as con:
        if not table_exists(con, "accounts"):
            return pd.DataFrame(columns=ACCOUNT_COLUMNS)
        return con.execute(f"SELECT {', '.join(ACCOUNT_COLUMNS)} FROM accounts ORDER BY name_key").df()


def _update(con, name: str, sql: str, params: list) -> Account:
    acc = account_from(con, name)
    if acc is None:
        raise NotFoundError(f"no account named '{clean_name(name)}'")
    con.execute(f"UPDATE accounts SET {sql}, session_epoch = session_epoch + 1, updated_at = ? "
                "WHERE name_key = ?", params + [utc_now(), _key(name)])
    return acc


def set_disabled(name: str, disabled: bool = True, *, actor: str | None = None, db: DbPath = None) -> Account:
    """Disable (or enable again) an account; its sessions end.  Needs an
    admin ``actor``; the last enabled admin cannot be disabled."""
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "disabling accounts")
        acc = account_from(con, name)
        if acc is not None and disabled and acc.role == "admin":
            others = con.execute("SELECT count(*) FROM accounts WHERE role = 'admin' AND NOT disabled "
                                 "AND name_key <> ?", [_key(name)]).fetchall()[0][0]
            if not others:
                raise InputError(f"'{acc.name}' is the last enabled admin and cannot be disabled")
        acc = _update(con, name, "disabled = ?", [bool(disabled)])
    log.info("account %s: %s", acc.name, "disabled" if disabled else "enabled")
    return Account(acc.name, acc.role, bool(disabled))


def reset_password(name: str, password: str, *, actor: str | None = None, db: DbPath = None) -> Account:
    """Set a new password (an admin for anyone, or the account itself);
    every session of the account ends and its sign-in lock is lifted."""
    _check_password(password)
    digest = _hasher().hash(password)
    with connect(db) as con, transaction(con):
        if actor is None or _key(actor) != _key(name):
            require_role(con, actor, "admin", "resetting another account's password")
        acc = _update(con, name, "password_hash = ?", [digest])
        con.execute("DELETE FROM login_failures WHERE name_key = ?", [_key(name)])
    log.info("password reset for account %s", acc.name)
    return acc


# ---------------------------------------------------------------- signing in

def verify_password(name: str, password: str, *, db: DbPath = None) -> bool:
    """Whether ``password`` is the account's password, without counting
    a failure or signing in (for the demo banner: are the published demo
    passwords still in use?)."""
    from argon2.exceptions import InvalidHashError, VerificationError

    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT password_hash FROM accounts WHERE name_key = ?", [_key(name)]).fetchall() \
            if table_exists(con, "accounts") else []
    if not rows:
        return False
    try:
        return bool(_hasher().verify(rows[0][0], password))
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
    key = _key(name)
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

            ph = _hasher()
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


def session_key_path(db: DbPath = None) -> Path:
    """Where the database's session key is kept: ``<database>.session-key``."""
    return Path(str(resolve_db_path(db)) + ".session-key")


def _read_key_file(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="ascii").strip()
    except UnicodeDecodeError:
        text = "?"
    except OSError as exc:
        raise InputError(f"the session key cannot be read ({exc.strerror or exc}); it must be a file holding "
                         f"{2 * SESSION_KEY_BYTES} hex digits", path=path) from None
    n_hex = 2 * SESSION_KEY_BYTES
    if not text or len(text) < n_hex or len(text) % 2 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise InputError(f"the session key is {'empty' if not text else 'not valid'}: it must hold at least {n_hex} "
                         "hex digits; delete the file and restart to make a new key (everyone signs in again)",
                         path=path)
    return bytes.fromhex(text)


def _secret(db: DbPath) -> bytes:
    env = os.environ.get(SECRET_ENV)
    if env is not None and env != "":
        if len(env.strip()) < MIN_SECRET_CHARS:
            raise InputError(f"${SECRET_ENV} is too short ({len(env.strip())} characters): use at least "
                             f"{MIN_SECRET_CHARS} random characters, e.g. the output of: "
                             "python3 -c 'import secrets; print(secrets.token_hex(32))'")
        return env.strip().encode("utf-8")
    path = session_key_path(db)
    if path.exists() or path.is_symlink():
        return _read_key_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return _read_key_file(path)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(SESSION_KEY_BYTES))
    return _read_key_file(path)


def check_session_key(*, db: DbPath = None) -> None:
    """Check (and on first use create) the session signing key at start-up:
    ``$WORKBENCH_SECRET`` of at least :data:`MIN_SECRET_CHARS` characters,
    else ``<database>.session-key`` holding at least 64 hex digits.  Raises
    :class:`~audit.errors.InputError` (one line naming the file or the
    variable) for an empty, short or non-hex key; never signs with it."""
    _secret(db)


def _b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def _unb64(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def issue_session(name: str, *, hours: float = SESSION_HOURS, db: DbPath = None) -> str:
    """A signed session token for an enabled account (after
    :func:`authenticate`), valid for ``hours``."""
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT name, session_epoch, disabled FROM accounts WHERE name_key = ?",
                           [_key(name)]).fetchall() if table_exists(con, "accounts") else []
    if not rows or rows[0][2]:
        raise SignInError(f"no enabled account named '{clean_name(name)}'")
    payload = _b64(json.dumps({"u": rows[0][0], "g": int(rows[0][1]), "e": int(time.time() + hours * 3600)},
                              ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    sig = _b64(hmac.new(_secret(db), payload.encode("ascii"), hashlib.sha256).digest())
    return f"{payload}.{sig}"


def verify_session(token: str | None, *, db: DbPath = None) -> Account:
    """The account a session token was issued to, or :class:`SignInError`
    when the token is malformed, forged, expired, or the account has since
    been disabled, had its password reset or signed out."""
    try:
        payload, sig = str(token).split(".")
        want = _b64(hmac.new(_secret(db), payload.encode("ascii"), hashlib.sha256).digest())
        if not hmac.compare_digest(sig, want):
            raise ValueError("signature")
        data = json.loads(_unb64(payload))
        name, epoch, expiry = str(data["u"]), int(data["g"]), int(data["e"])
    except (ValueError, KeyError, TypeError, UnicodeError):
        raise SignInError("this sign-in link is not valid; please sign in again") from None
    if expiry < time.time():
        raise SignInError("your session has expired; please sign in again")
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT name, role, disabled, session_epoch FROM accounts WHERE name_key = ?",
                           [_key(name)]).fetchall() if table_exists(con, "accounts") else []
    if not rows or rows[0][2] or int(rows[0][3]) != epoch:
        raise SignInError("this session has ended; please sign in again")
    return Account(rows[0][0], rows[0][1])


def end_sessions(name: str, *, db: DbPath = None) -> None:
    """Sign out: every session token of the account stops working."""
    with connect(db) as con, transaction(con):
        con.execute("UPDATE accounts SET session_epoch = session_epoch + 1 WHERE name_key = ?", [_key(name)])


def session_expiry(token: str) -> datetime | None:
    """When a token expires (UTC, naive), without checking it (for display)."""
    try:
        return datetime.utcfromtimestamp(int(json.loads(_unb64(token.split(".")[0]))["e"]))
    except (ValueError, KeyError, TypeError, IndexError):
        return None


# ---------------------------------------------------------------- roles (issue 21: the admin page)

def set_role(name: str, role: str, *, actor: str | None = None, db: DbPath = None):
    """Change an account's role (reviewer / lead / admin); its sessions end
    so the new role applies at once.  Needs an admin; the last enabled admin
    keeps the role.  Returns the :class:`audit.review.Account`."""
    if role not in ROLES:
        raise InputError(f"unknown role {role!r} (use one of: {', '.join(ROLES)})")
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing roles")
        acc = account_from(con, name)
        if acc is not None and acc.role == "admin" and role != "admin":
            others = con.execute("SELECT count(*) FROM accounts WHERE role = 'admin' AND NOT disabled "
                                 "AND name_key <> ?", [_key(acc.name)]).fetchall()[0][0]
            if not others:
                raise InputError(f"'{acc.name}' is the last enabled admin and keeps the role")
        acc = _update(con, name, "role = ?", [role])
    return Account(acc.name, role, acc.disabled)
