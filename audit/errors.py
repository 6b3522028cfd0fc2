"""Exceptions the engine raises.  The CLI turns each into one line on stderr
and a non-zero exit; the workbench shows them as a message."""
from __future__ import annotations

import os


class AuditError(Exception):
    """Base class: a problem the user can act on (bad input, locked file...)."""


class InputError(AuditError):
    """Bad input data.  Carries the file and line so the message points at it."""

    def __init__(self, message: str, *, path: "str | os.PathLike[str] | None" = None, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        self.detail = message
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        super().__init__(where + message)


class DatabaseLockedError(AuditError):
    """Another process holds the DuckDB file open for writing."""


class NotFoundError(AuditError):
    """A benchmark, question, model or version that does not exist."""


class PermissionDeniedError(AuditError):
    """The acting account's role does not allow the operation (for example a
    reviewer adjudicating or creating an export version)."""


class SignInError(AuditError):
    """A name and password that do not match an enabled account, too many
    failed attempts, or a session token that is invalid or expired."""


class RateLimitedError(AuditError):
    """Too many requests from one sender in a short time (error reports from
    readers outside the team)."""
