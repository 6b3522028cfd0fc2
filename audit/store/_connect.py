"""Opening the database for one operation: :func:`connect` (a reader or a
writer taking its turn, see :mod:`audit.store.turns`), all-or-nothing
:func:`transaction`, :func:`init_db`."""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from audit._util.sql import main_table_names
from audit.errors import AuditError
from audit.store._paths import resolve_db_path
from audit.store.sources import PREDICTIONS_RELATION, attach, source_error
from audit.store.turns import file_state

#: Statements after which the list of tables is read again.
_CHANGES_TABLES = re.compile(r"\b(CREATE|DROP|ALTER|ATTACH|DETACH|IMPORT|ROLLBACK)\b", re.IGNORECASE)


class _Connection:
    """A DuckDB connection that reads the registered prediction sources
    (:func:`audit.store.sources.attach`: listing them, remote ones over the
    network) only when a query names ``all_predictions``, once per
    connection: signing in, listing users or reviews contacts no source.
    Everything else is the DuckDB connection's own."""

    __slots__ = ("_con", "_attached", "_tables")

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self._con = con
        self._attached = False
        self._tables: frozenset[str] | None = None
        # a DataFrame named in a query is looked up in the caller's frame, one frame further out than
        # DuckDB looks by itself once the call goes through this class
        con.execute("SET python_scan_all_frames = true")

    def _before(self, query) -> None:
        if not isinstance(query, str):
            self._tables = None
            return
        if not self._attached and PREDICTIONS_RELATION in query:
            self._attached = True
            attach(self._con)
        if self._tables is not None and _CHANGES_TABLES.search(query):
            self._tables = None

    def main_tables(self) -> frozenset[str]:
        """The main schema's table and view names, read once and again after
        any statement that may create, drop or rename one (what
        :func:`audit._util.sql.table_exists` asks, many times per act)."""
        if self._tables is None:
            self._tables = main_table_names(self._con)
        return self._tables

    def execute(self, query, *args, **kwargs) -> "_Connection":
        self._before(query)
        self._con.execute(query, *args, **kwargs)
        return self

    def executemany(self, query, *args, **kwargs) -> "_Connection":
        self._before(query)
        self._con.executemany(query, *args, **kwargs)
        return self

    def sql(self, query, *args, **kwargs):
        self._before(query)
        return self._con.sql(query, *args, **kwargs)

    query = sql

    def __getattr__(self, name: str):
        return getattr(self._con, name)


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
    check_database_file(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    st = file_state(path)
    with (st.read(timeout) if read_only else st.write(timeout)) as raw:
        con = _Connection(raw)
        try:
            yield con  # type: ignore[misc]
        except duckdb.InvalidInputException as exc:   # a changed or unreachable source, read: its one line
            err = source_error(exc)
            if err is None:
                raise
            raise err from None


#: Where a DuckDB database file says what it is (bytes 8–11 of its header).
_DUCKDB_MAGIC = (8, b"DUCK")
_KNOWN_FORMATS = ((b"SQLite format 3\0", "a SQLite database"), (b"PAR1", "a Parquet file"),
                  (b"PK\x03\x04", "a zip file"))


def check_database_file(path: Path) -> None:
    """Refuse an existing file that is not a DuckDB database, before DuckDB
    opens it: DuckDB opens a SQLite file through an extension it would
    download, and a ``.csv``, ``.parquet`` or ``.json`` path as an
    in-memory database with a view of the file (an import there "succeeds"
    and keeps nothing).  A missing file is fine (a writer creates it).

    >>> import tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "q.csv"); _ = open(f, "w").write("a,b\\n1,2\\n")
    >>> check_database_file(Path(f))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.AuditError: ...q.csv: not a DuckDB database (it looks like a
    text file); give the path of a DuckDB file, or a new path to create one
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise AuditError(f"{path}: cannot read the database: {exc.strerror or exc}") from None
    at, magic = _DUCKDB_MAGIC
    if head[at:at + len(magic)] == magic:
        return
    kind = next((what for sig, what in _KNOWN_FORMATS if head.startswith(sig)), None)
    if kind is None:
        kind = "an empty file" if not head else (
            "a text file" if all(b in b"\t\r\n" or 32 <= b < 127 or b >= 128 for b in head) else "another kind of file")
    raise AuditError(f"{path}: not a DuckDB database (it looks like {kind}); give the path of a DuckDB file, "
                     "or a new path to create one")


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
