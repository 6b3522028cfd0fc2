"""The schema: numbered SQL files under ``migrations/``, applied in order, each
in its own transaction, and recorded in ``schema_version``."""
from __future__ import annotations

import functools
import re
from importlib import resources

import duckdb

_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every migration shipped with the package."""
    return list(_migrations())


@functools.lru_cache(maxsize=1)
def _migrations() -> tuple[tuple[int, str, str], ...]:
    out = []
    for entry in resources.files("audit.store").joinpath("migrations").iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            out.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return tuple(sorted(out))


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
    latest = _migrations()[-1][0] if _migrations() else 0
    try:   # the common case, cheaply: the file is up to date
        if con.execute("SELECT max(version) FROM main.schema_version").fetchall()[0][0] == latest:
            return latest
    except duckdb.Error:   # a new file: no schema_version table yet
        pass
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
