"""Roles and what they allow: ``reviewer`` < ``lead`` < ``admin`` (the
account's role is the one source: see :mod:`audit.accounts.leads`), who may
adjudicate, and the one check every act goes through
(:func:`require_role`)."""
from __future__ import annotations

from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts.leads import is_lead, leads_from
from audit.accounts.table import _RANK, ROLE_LABELS, account_from, has_accounts, name_key
from audit.errors import PermissionDeniedError, SignInError
from audit.store import DbPath, connect


def role_allows(role: str | None, needed: str) -> bool:
    """Whether ``role`` is ``needed`` or above on the ladder ``reviewer`` <
    ``lead`` < ``admin`` (no role allows nothing).

    >>> role_allows("admin", "lead"), role_allows("lead", "lead"), role_allows("reviewer", "lead")
    (True, True, False)
    >>> role_allows(None, "reviewer")
    False
    """
    return role is not None and _RANK[role] >= _RANK[needed]


def effective_role(con, name: str | None) -> str | None:
    """The role that decides what ``name`` may do: the account's role; None
    for a disabled account or a name without an account (when the database
    has accounts); with no account at all, ``lead`` for a name on the lead
    list and ``reviewer`` otherwise."""
    acc = account_from(con, name)
    if acc is not None:
        return None if acc.disabled else acc.role
    if has_accounts(con):
        return None
    return "lead" if name and is_lead(str(name), leads_from(con)) else "reviewer"


def account_role(name: str | None, *, db: DbPath = None) -> str | None:
    """:func:`effective_role` of ``name`` in the database ``db``."""
    with connect(db, read_only=True) as con:
        return effective_role(con, name)


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


def check_session_alive(con, actor) -> None:
    """When ``actor`` is the :class:`~audit.accounts.Account` a session
    token proved (it carries the session's epoch), raise
    :class:`~audit.errors.SignInError` unless that session still holds: the
    account exists, is enabled and its epoch is unchanged (no password
    reset, disable, role change or sign-out since the token was checked).
    A plain name (an account proved by its password for this one act) has
    nothing to re-check."""
    epoch = getattr(actor, "epoch", None)
    if epoch is None:
        return
    rows = con.execute("SELECT disabled, session_epoch FROM accounts WHERE name_key = ?",
                       [name_key(actor.name)]).fetchall() if table_exists(con, "accounts") else []
    if not rows or rows[0][0] or int(rows[0][1]) != int(epoch):
        raise SignInError("this session has ended; please sign in again")


def require_role(con, actor, role: str, action: str) -> None:
    """Raise :class:`PermissionDeniedError` unless ``actor`` may do ``action``
    (which needs ``role`` or above).  With no account in the database and an
    empty lead list there is no check (one person working locally); with a
    lead list but no account, a ``lead`` action needs a listed name.
    ``actor`` is a name, or the :class:`~audit.accounts.Account` of a live
    session, whose epoch is checked first (:func:`check_session_alive`): an
    ended session acts no more, whatever its role was."""
    check_session_alive(con, actor)
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
    if not role_allows(got, role):
        raise PermissionDeniedError(f"'{clean_name(actor)}' is a {ROLE_LABELS[got]}; {action} is for "
                                    f"{'administrators' if role == 'admin' else 'lead reviewers'}")


__all__ = ["effective_role", "account_role", "may_adjudicate", "require_role", "role_allows", "check_session_alive"]
