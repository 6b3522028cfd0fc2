"""The ``accounts`` table: an account's name key, its row as an :class:`Account`,
whether the database has any account.  (Roles and what they allow are in
:mod:`audit.accounts.roles`.)"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from audit._util.names import MAX_ACCOUNT_NAME
from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.errors import InputError
from audit.store import DbPath, connect

log = logging.getLogger("audit.accounts")
log.addHandler(logging.NullHandler())  # a library: no stray stderr line before the CLI's one error line
ROLES = ("reviewer", "lead", "admin")
ROLE_LABELS = {"reviewer": "reviewer", "lead": "lead reviewer", "admin": "administrator"}
ACCOUNT_COLUMNS = ["name", "role", "disabled", "created_at", "updated_at"]
_RANK = {r: i for i, r in enumerate(ROLES)}


@dataclass(frozen=True)
class Account:
    """An account as the workbench and the library see it (never the hash).

    ``epoch`` is set on the account a session token proved
    (:func:`audit.accounts.verify_session`): passed as ``actor=`` to an act,
    the library checks that the session is still alive (the account's epoch
    unchanged: no password reset, disable, role change or sign-out since),
    not only that the account is enabled.  ``str()`` is the name, so an
    Account stands wherever an actor's name does."""

    name: str
    role: str
    disabled: bool = False
    epoch: int | None = None

    def __str__(self) -> str:
        return self.name

    def has(self, role: str) -> bool:
        """Whether this account's role is ``role`` or above."""
        return not self.disabled and _RANK[self.role] >= _RANK[role]


def name_key(name: str) -> str:
    return clean_name(name).casefold()[:MAX_ACCOUNT_NAME * 4]


def account_from(con, name: str | None) -> Account | None:
    """The account of ``name`` (any case) or None."""
    if not name or not table_exists(con, "accounts"):
        return None
    rows = con.execute("SELECT name, role, disabled FROM accounts WHERE name_key = ?", [name_key(name)]).fetchall()
    return Account(rows[0][0], rows[0][1], bool(rows[0][2])) if rows else None


def accounts_exist(*, db: DbPath = None) -> bool:
    """:func:`has_accounts` on the database ``db``."""
    with connect(db, read_only=True) as con:
        return has_accounts(con)


def has_accounts(con) -> bool:
    """Whether the database has any account (else the workbench and the
    library work as before accounts existed: see :mod:`audit.accounts`)."""
    return table_exists(con, "accounts") and bool(
        con.execute("SELECT count(*) FROM accounts").fetchall()[0][0])


def check_role(role: str) -> str:
    role = str(role).strip().lower()
    if role not in ROLES:
        raise InputError(f"unknown role '{role}' (use one of: {', '.join(ROLES)})")
    return role


def password_hasher():
    from argon2 import PasswordHasher

    return PasswordHasher()


__all__ = ["ROLES", "ROLE_LABELS", "Account", "account_from", "accounts_exist", "has_accounts"]
