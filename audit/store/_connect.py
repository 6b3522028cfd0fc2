"""Opening the database for one operation: :func:`connect` (a reader or a
writer taking its turn, see :mod:`audit.store.turns`), all-or-nothing
:func:`transaction`, :func:`init_db`."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from audit.errors import AuditError
from audit.store._paths import resolve_db_path
from audit.store.sources import attach, source_error
from audit.store.turns import file_state


@contextmanager
def connect(db: str | os.PathLike | None = None, *, read_only: bool = False,
            timeout: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the database for one operation and close it afterwards (see the
    module docstring for how readers and writers take turns and wait).

    A read-write open creates the file (and its folder) when missing and
    brings the schema up to date.  A read-only open of a missing file fails
    with a clear message instead of creating it.  *timeout* (seconds) bounds
    the wait for the file; default ``$AUDIT_DB_TIMEOUT`` or 30.

    >>> import tempfile, os
    >>> with connect(os.path.join(tempfile.mkdtemp(), "x.duckdb")) as con:
    ...     con.execute("SELECT count(*) FROM questions").fetchone()[0]
    0
    """
    path = resolve_db_path(db)
    if read_only and not path.exists():
        raise AuditError(f"no database at {path}; run 'audit init' or 'audit demo' first")
    if path.exists() and not path.is_file():
        raise AuditError(f"{path}: the database path is not a regular file")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    st = file_state(path)
    with (st.read(timeout) if read_only else st.write(timeout)) as con:
        attach(con)   # prediction sources read in place
        try:
            yield con
        except duckdb.InvalidInputException as exc:   # a changed or unreachable source, read: its one line
            err = source_error(exc)
            if err is None:
                raise
            raise err from None


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """All-or-nothing: COMMIT when the block finishes, ROLLBACK on any error."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    else:
        con.execute("COMMIT")


def init_db(db: str | os.PathLike | None = None) -> Path:
    """Create the database file (or migrate an existing one); return its path."""
    path = resolve_db_path(db)
    with connect(path):
        pass
    return path
