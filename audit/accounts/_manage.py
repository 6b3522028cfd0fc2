"""Managing accounts (an admin's acts): add, list, disable or enable, reset a
password.  Passwords are hashed with Argon2id (``argon2-cffi``, its default
parameters, RFC 9106); only the hash is stored."""
from __future__ import annotations

import pandas as pd

from audit._util.clock import utc_now
from audit._util.names import identity_name
from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts.leads import LeadReviewers, env_leads, leads_from, union_leads
from audit.accounts.roles import check_session_alive, require_role
from audit.accounts.table import (
    ACCOUNT_COLUMNS,
    ROLES,
    Account,
    account_from,
    check_role,
    has_accounts,
    log,
    name_key,
    password_hasher,
)
from audit.errors import InputError, NotFoundError
from audit.store import DbPath, connect, transaction
from audit.store.settings import read_setting, write_setting

MIN_PASSWORD = 8


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


def add_account(name: str, password: str, *, role: str = "reviewer", actor: str | None = None,
                db: DbPath = None) -> Account:
    """Create an account.  The first account of a database is an admin
    whatever ``role`` says; later ones need ``actor`` to be an admin."""
    if name is None or not clean_name(name):
        raise InputError("an account needs a name")
    clean = identity_name(name, kind="account name")
    role = check_role(role)
    _check_password(password)
    digest = password_hasher().hash(password)
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
                    "VALUES (?, ?, ?, ?, ?, ?)", [clean, name_key(clean), role, digest, now, now])
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
                "WHERE name_key = ?", params + [utc_now(), name_key(name)])
    return acc


def set_disabled(name: str, disabled: bool = True, *, actor: str | None = None, db: DbPath = None) -> Account:
    """Disable (or enable again) an account; its sessions end.  Needs an
    admin ``actor``; the last enabled admin cannot be disabled."""
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "disabling accounts")
        acc = account_from(con, name)
        if acc is not None and disabled and acc.role == "admin":
            others = con.execute("SELECT count(*) FROM accounts WHERE role = 'admin' AND NOT disabled "
                                 "AND name_key <> ?", [name_key(name)]).fetchall()[0][0]
            if not others:
                raise InputError(f"'{acc.name}' is the last enabled admin and cannot be disabled")
        acc = _update(con, name, "disabled = ?", [bool(disabled)])
    log.info("account %s: %s", acc.name, "disabled" if disabled else "enabled")
    return Account(acc.name, acc.role, bool(disabled))


def reset_password(name: str, password: str, *, actor: str | None = None, db: DbPath = None) -> Account:
    """Set a new password (an admin for anyone, or the account itself);
    every session of the account ends and its sign-in lock is lifted."""
    _check_password(password)
    digest = password_hasher().hash(password)
    with connect(db) as con, transaction(con):
        check_session_alive(con, actor)
        if actor is None or name_key(actor) != name_key(name):
            require_role(con, actor, "admin", "resetting another account's password")
        acc = _update(con, name, "password_hash = ?", [digest])
        con.execute("DELETE FROM login_failures WHERE name_key = ?", [name_key(name)])
    log.info("password reset for account %s", acc.name)
    return acc


def set_role(name: str, role: str, *, actor: str | None = None, db: DbPath = None):
    """Change an account's role (reviewer / lead / admin); its sessions end
    so the new role applies at once.  Needs an admin; the last enabled admin
    keeps the role.  Returns the :class:`audit.accounts.Account`."""
    if role not in ROLES:
        raise InputError(f"unknown role {role!r} (use one of: {', '.join(ROLES)})")
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing roles")
        acc = account_from(con, name)
        if acc is not None and acc.role == "admin" and role != "admin":
            others = con.execute("SELECT count(*) FROM accounts WHERE role = 'admin' AND NOT disabled "
                                 "AND name_key <> ?", [name_key(acc.name)]).fetchall()[0][0]
            if not others:
                raise InputError(f"'{acc.name}' is the last enabled admin and keeps the role")
        acc = _update(con, name, "role = ?", [role])
    return Account(acc.name, role, acc.disabled)


def set_leads(names, *, actor: str | None = None, db: DbPath = None) -> list[str]:
    """Make ``names`` the lead reviewers; returns them.

    Once the database has accounts the lead reviewers are the accounts with
    the ``lead`` role (:mod:`audit.accounts.leads`), so this sets roles: an
    admin's act (``actor``, signed in by the caller); every name must be an
    enabled account; a named ``reviewer`` becomes ``lead``, a ``lead`` not
    named becomes ``reviewer``, an ``admin`` keeps its role; the sessions of
    every account whose role changes end (as with :func:`set_role`).
    Without accounts the list of names is stored (``$WORKBENCH_LEADS``
    still adds to it)."""
    if isinstance(names, str):
        names = names.split(",")
    cleaned = [clean_name(n) for n in names]
    cleaned = [n for n in cleaned if n]
    uniq: dict[str, str] = {}
    for n in cleaned:
        uniq.setdefault(n.casefold(), n)
    stored = sorted(uniq.values(), key=str.casefold)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing the lead reviewers")
        if not has_accounts(con):
            write_setting(con, "leads", stored)
            return stored
        named = {}
        for n in stored:
            acc = account_from(con, n)
            if acc is None or acc.disabled:
                raise InputError(f"'{n}' has no enabled account and cannot be a lead reviewer")
            named[name_key(acc.name)] = acc
        for acc in named.values():
            if acc.role == "reviewer":
                _update(con, acc.name, "role = ?", ["lead"])
        for (name,) in con.execute("SELECT name FROM accounts WHERE role = 'lead'").fetchall():
            if name_key(name) not in named:
                _update(con, name, "role = ?", ["reviewer"])
        out = leads_from(con)
    log.info("lead reviewers set: %s", ", ".join(out) or "none")
    return out


def lead_reviewers(set_to: str | list[str] | None = None, *, actor: str | None = None,
                   db: DbPath = None) -> LeadReviewers:
    """The lead reviewers (``audit review leads``); with *set_to*, first
    make them the leads (``""``: nobody; see :func:`set_leads`, an admin's
    act that sets roles once accounts exist)."""
    if set_to is not None:
        set_leads(set_to, actor=actor, db=db)
    with connect(db, read_only=True) as con:
        accounts = has_accounts(con)
        stored = leads_from(con) if accounts else union_leads(read_setting(con, "leads"), True)
    return LeadReviewers(stored=stored, from_env=[] if accounts else env_leads())