"""Sessions: a signed token (HMAC-SHA256) naming the account, its session
epoch and an expiry.  The key is ``$WORKBENCH_SECRET`` or a random key kept
beside the database; disabling an account, resetting its password or
signing out raises its epoch, which ends every session of that account."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import stat
import time
from pathlib import Path

from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts.table import Account, name_key
from audit.errors import InputError, SignInError
from audit.store import DbPath, connect, resolve_db_path, transaction

SESSION_HOURS = 12.0
SECRET_ENV = "WORKBENCH_SECRET"


#: Shortest ``$WORKBENCH_SECRET`` accepted (characters).
MIN_SECRET_CHARS = 32


#: Bytes of a generated session key (written as twice as many hex digits).
SESSION_KEY_BYTES = 32


def session_key_path(db: DbPath = None) -> Path:
    """Where the database's session key is kept: ``<database>.session-key``."""
    return Path(str(resolve_db_path(db)) + ".session-key")


_RENEW = "delete the file and restart to make a new key (everyone signs in again)"
#: Fewest distinct characters a key may hold: 64 random hex digits hold
#: fewer than 8 distinct ones with probability below 1e-20.
MIN_DISTINCT = 8


def weak_secret(text: str) -> str | None:
    """Why *text* is no secret (None when it may be one): fewer than
    :data:`MIN_DISTINCT` distinct characters, a repetition of a shorter
    part (``deadbeef`` × 8, ``0123456789abcdef`` × 4, ``password`` × 4), or
    one character making up more than a third of it.  A random key passes
    (the tool's own: 32 bytes from :mod:`secrets`).

    >>> weak_secret("0" * 64), weak_secret("0123456789abcdef" * 4), weak_secret("00" * 31 + "01")
    ('it holds only 1 distinct character', 'it repeats a 16-character pattern', 'it holds only 2 distinct characters')
    >>> import secrets; weak_secret(secrets.token_hex(32)) is None
    True
    """
    distinct = len(set(text))
    if distinct < MIN_DISTINCT:
        return f"it holds only {distinct} distinct character{'s' if distinct != 1 else ''}"
    n = len(text)
    for period in range(1, n // 2 + 1):
        if n % period == 0 and text[:period] * (n // period) == text:
            return f"it repeats a {period}-character pattern"
    top = max(text.count(c) for c in set(text))
    if top * 3 > n:
        return "one character makes up more than a third of it"
    return None


def _read_key_file(path: Path) -> bytes:
    """The key in *path*, which must be a regular file (not a link) of this
    user, readable and writable by nobody else (mode 0600 or stricter),
    holding at least 64 hex digits that are not a weak value."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if path.is_symlink():
            raise InputError("the session key is a symbolic link, which can be pointed elsewhere; "
                             f"it must be a plain file: {_RENEW}", path=path) from None
        raise InputError(f"the session key cannot be read ({exc.strerror or exc}); it must be a file holding "
                         f"{2 * SESSION_KEY_BYTES} hex digits", path=path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"the session key cannot be read (not a regular file); it must be a file holding "
                             f"{2 * SESSION_KEY_BYTES} hex digits", path=path)
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(4096)
    finally:
        os.close(fd)
    try:
        text = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        text = "?"
    n_hex = 2 * SESSION_KEY_BYTES
    if not text or len(text) < n_hex or len(text) % 2 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise InputError(f"the session key is {'empty' if not text else 'not valid'}: it must hold at least {n_hex} "
                         f"hex digits; {_RENEW}", path=path)
    if st.st_uid != os.geteuid():
        raise InputError(f"the session key belongs to another user (uid {st.st_uid}); it must be this user's "
                         f"own file: {_RENEW}", path=path)
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise InputError(f"the session key is readable or writable by others (mode "
                         f"{stat.S_IMODE(st.st_mode):04o}); it must be mode 0600: {_RENEW}", path=path)
    weak = weak_secret(text.lower())
    if weak:
        raise InputError(f"the session key is a weak value ({weak}): {_RENEW}", path=path)
    return bytes.fromhex(text)


def _secret(db: DbPath) -> bytes:
    env = os.environ.get(SECRET_ENV)
    if env is not None and env != "":
        if len(env.strip()) < MIN_SECRET_CHARS:
            raise InputError(f"${SECRET_ENV} is too short ({len(env.strip())} characters): use at least "
                             f"{MIN_SECRET_CHARS} random characters, e.g. the output of: "
                             "python3 -c 'import secrets; print(secrets.token_hex(32))'")
        weak = weak_secret(env.strip())
        if weak:
            raise InputError(
                f"${SECRET_ENV} is a weak value ({weak}): use {MIN_SECRET_CHARS} or more random "
                "characters, e.g. the output of: python3 -c 'import secrets; print(secrets.token_hex(32))'"
            )
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
    variable) for an empty, short, non-hex or weak key (:func:`weak_secret`),
    and for a key file that is a link, belongs to another user or is
    readable or writable by group or others; never signs with it.  The file
    the tool makes is mode 0600 whatever the umask."""
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
                           [name_key(name)]).fetchall() if table_exists(con, "accounts") else []
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
                           [name_key(name)]).fetchall() if table_exists(con, "accounts") else []
    if not rows or rows[0][2] or int(rows[0][3]) != epoch:
        raise SignInError("this session has ended; please sign in again")
    return Account(rows[0][0], rows[0][1], epoch=epoch)


def end_sessions(name: str, *, db: DbPath = None) -> None:
    """Sign out: every session token of the account stops working."""
    with connect(db) as con, transaction(con):
        con.execute("UPDATE accounts SET session_epoch = session_epoch + 1 WHERE name_key = ?", [name_key(name)])


__all__ = ["SESSION_HOURS", "check_session_key", "session_key_path", "issue_session", "verify_session", "end_sessions"]
