"""audit.errors: the exceptions the CLI turns into one line.  Pins the
hierarchy (every error the user can act on is an AuditError) and how an
InputError places the file and line in front of its message while keeping
the bare message in ``detail``."""
from __future__ import annotations

from pathlib import Path

import pytest

from audit import errors
from audit.errors import AuditError, DatabaseLockedError, InputError, NotFoundError, PermissionDeniedError, SignInError


@pytest.mark.parametrize("cls", [InputError, DatabaseLockedError, NotFoundError, PermissionDeniedError, SignInError])
def test_every_error_is_an_audit_error(cls):
    assert issubclass(cls, AuditError) and issubclass(AuditError, Exception)
    assert not issubclass(cls, (ValueError, OSError))      # the CLI catches AuditError, nothing broader


def test_the_module_defines_exactly_these_errors():
    defined = {n for n, v in vars(errors).items() if isinstance(v, type) and issubclass(v, BaseException)}
    assert defined == {"AuditError", "InputError", "DatabaseLockedError", "NotFoundError",
                       "PermissionDeniedError", "SignInError", "RateLimitedError"}


@pytest.mark.parametrize("path, line, shown", [
    (None, None, "bad key"),
    ("q.csv", None, "q.csv: bad key"),
    ("q.csv", 7, "q.csv:7: bad key"),
    (Path("/data/བོད.jsonl"), 0, "/data/བོད.jsonl:0: bad key"),   # line 0 is a line, not "no line"
    (None, 5, "bad key"),                                         # a line without a file is not shown
])
def test_input_error_message_places_file_and_line(path, line, shown):
    e = InputError("bad key", path=path, line=line)
    assert str(e) == shown
    assert e.detail == "bad key"
    assert e.line == line
    assert e.path == (str(path) if path is not None else None)


def test_input_error_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        InputError("m", "q.csv")        # type: ignore[misc]


def test_errors_are_raised_and_caught_as_audit_errors():
    with pytest.raises(AuditError, match="^x.csv:2: broken$"):
        raise InputError("broken", path="x.csv", line=2)
    with pytest.raises(AuditError, match="in use"):
        raise DatabaseLockedError("the database is in use")
