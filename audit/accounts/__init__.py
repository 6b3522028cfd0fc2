"""Accounts and roles: who may sign in to the workbench and what they may do.

Roles, from least to most: ``reviewer`` (records verdicts), ``lead``
(also adjudicates disputed items and creates export versions), ``admin``
(also manages accounts and the Label Studio settings).  The first account
created in a database is always an admin.

* Passwords are hashed with Argon2id (``argon2-cffi``, its default
  parameters, RFC 9106); only the hash is stored, and a hash made with older
  parameters is upgraded at the next successful sign-in.
* Sign-in is rate-limited per name (known or not): after five wrong
  passwords in a row the name is locked for 30 s, doubling with every
  further failure up to 15 minutes.
* A session is a signed token (HMAC-SHA256) naming the account, its session
  epoch and an expiry (12 hours by default).  The key is
  ``$WORKBENCH_SECRET`` (at least 32 characters) or a random 32-byte key
  kept, as 64 hex digits, in ``<database>.session-key`` (created with mode
  0600, never in the database, ignored by git).  :func:`check_session_key`
  refuses an empty, short or non-hex key with one line.  Disabling an
  account, resetting its password or signing out raises its epoch, which
  ends every session of that account.
* Account names are identities (NFC, trimmed, at most 64 characters, no
  control, zero-width or bidirectional characters, not confusable with an
  existing account).
* Every act checks the actor's role in the library (:func:`require_role`),
  not only in the pages.

The lead reviewers are the accounts with the ``lead`` role: the role is the
one source of that fact (``audit review leads --set`` sets the roles).  When
a database has no account at all, anyone may record verdicts under any
name, and a list of names (``audit review leads`` and ``$WORKBENCH_LEADS``)
alone decides who adjudicates (anyone, when it is empty).

Besides the names below, :mod:`audit.accounts.roles` (what a role allows),
:mod:`audit.accounts.table` (looking an account up),
:mod:`audit.accounts.sessions` (the session key), :mod:`audit.accounts.leads`
and :mod:`audit.accounts.language` are what the other packages and the
workbench use.

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
from audit.accounts._manage import (
    add_account,
    lead_reviewers,
    list_accounts,
    reset_password,
    set_disabled,
    set_leads,
    set_role,
)
from audit.accounts._signin import authenticate, verify_password
from audit.accounts.leads import get_leads
from audit.accounts.roles import require_role
from audit.accounts.sessions import end_sessions, issue_session, verify_session
from audit.accounts.table import ROLES, Account

__all__ = [
    "ROLES", "Account", "add_account", "list_accounts", "set_role", "set_disabled", "reset_password",
    "authenticate", "verify_password", "issue_session", "verify_session", "end_sessions", "require_role",
    "get_leads", "set_leads", "lead_reviewers",
]
