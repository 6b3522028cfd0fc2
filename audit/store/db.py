"""Opening the DuckDB file: path resolution, schema migration, transactions.

DuckDB lets one process hold a file read-write, or many hold it read-only.
Callers therefore open a connection per operation (``with connect() as con``)
and close it at once, so the workbench never blocks the ``audit`` CLI.
"""
from __future__ import annotations

import os
import re
import threading
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Iterator

import duckdb

from audit.errors import AuditError, DatabaseLockedError

DEFAULT_DB_NAME = "workbench.duckdb"
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def _project_root() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").exists() and (root / "audit").is_dir() else None


def default_db_path() -> Path:
    """``$AUDIT_DB``, else ``data/workbench.duckdb`` in the source checkout
    (or in the current directory when the package is installed elsewhere)."""
    env = os.environ.get("AUDIT_DB")
    if env:
        return Path(env)
    root = _project_root() or Path.cwd()
    return root / "data" / DEFAULT_DB_NAME


def resolve_db_path(db: str | os.PathLike | None) -> Path:
    return Path(db) if db is not None else default_db_path()


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every migration shipped with the package."""
    out = []
    for entry in resources.files("audit.store").joinpath("migrations").iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            out.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(out)


def _has_statements(sql: str) -> bool:
    body = "\n".join(l for l in sql.splitlines() if not l.strip().startswith("--"))
    return bool(body.strip().strip(";").strip())


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    # fetchall, not fetchone: DuckDB 2 keeps a half-read result open, and an
    # open result blocks a later con.register() on the same connection.
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchall()[0][0]
    if not exists:
        return 0
    return con.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchall()[0][0]


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Apply every migration newer than the file's schema version, each in
    its own transaction.  Returns the resulting version."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied_at TIMESTAMP NOT NULL DEFAULT now())"
    )
    current = schema_version(con)
    for version, name, sql in migrations():
        if version <= current:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            if _has_statements(sql):
                con.execute(sql)
            con.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [version, name])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        current = version
    return current


_PATH_LOCKS: dict[str, threading.RLock] = {}
_PATH_LOCKS_GUARD = threading.Lock()


def _path_lock(path: Path) -> threading.RLock:
    """One lock per database file per process.  Inside one process DuckDB
    refuses a read-write connection while a read-only one to the same file is
    open (and the reverse), so threads (Streamlit sessions, the Label Studio
    webhook, the judge's writer) take turns; each operation is short."""
    key = str(path.resolve())
    with _PATH_LOCKS_GUARD:
        return _PATH_LOCKS.setdefault(key, threading.RLock())


def _open(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    config: dict[str, str | bool | int | float | list[str]] = {}
    if os.environ.get("AUDIT_DB_MEMORY_LIMIT"):
        config["memory_limit"] = os.environ["AUDIT_DB_MEMORY_LIMIT"]
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.IOException as exc:
        msg = str(exc)
        if "lock" in msg.lower():
            raise DatabaseLockedError(
                f"the database {path} is in use by another program (for example an 'audit' "
                "command that is still running); try again in a moment"
            ) from exc
        raise AuditError(f"cannot open the database {path}: {msg}") from exc
    except duckdb.ConnectionException as exc:
        raise AuditError(
            f"the database {path} is already open in this process in another mode ({exc}); "
            "close the outer connection before opening it again"
        ) from exc


@contextmanager
def connect(db: str | os.PathLike | None = None, *, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the database for one operation and close it afterwards.

    A read-write open creates the file (and its folder) when missing and
    brings the schema up to date.  A read-only open of a missing file fails
    with a clear message instead of creating it.

    >>> import tempfile, os
    >>> with connect(os.path.join(tempfile.mkdtemp(), "x.duckdb")) as con:
    ...     con.execute("SELECT count(*) FROM questions").fetchone()[0]
    0
    """
    path = resolve_db_path(db)
    if read_only and not path.exists():
        raise AuditError(f"no database at {path}; run 'audit init' or 'audit demo' first")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    with _path_lock(path):
        con = _open(path, read_only=read_only)
        try:
            if not read_only:
                migrate(con)
            yield con
        finally:
            con.close()


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
