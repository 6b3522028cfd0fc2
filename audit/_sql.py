"""Small catalogue queries shared by every stage: does a table exist, which
columns does it have (older databases may lack a table a later migration
adds)."""
from __future__ import annotations

import duckdb


def table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the main schema holds a table (or view) called *name*.

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT)")
    >>> table_exists(con, "t"), table_exists(con, "u")
    (True, False)
    """
    return bool(con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ? AND table_schema = 'main'", [name]
    ).fetchall()[0][0])


def table_columns(con: duckdb.DuckDBPyConnection, name: str) -> set[str]:
    """The column names of table *name* (empty when it does not exist).

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT, b TEXT)")
    >>> sorted(table_columns(con, "t"))
    ['a', 'b']
    """
    return {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = 'main'", [name]
    ).fetchall()}
