"""SQL text and catalogue queries shared by every package: quoting a string
literal or an identifier (for DDL and SET, where prepared parameters are
not allowed), whether a table exists and which columns it has (an older
database may lack what a later migration adds)."""
from __future__ import annotations

import os

import duckdb


def sql_str(value: str | os.PathLike) -> str:
    """A SQL string literal.

    >>> sql_str("it's")
    "'it''s'"
    """
    return "'" + str(value).replace("'", "''") + "'"


def sql_ident(name: str) -> str:
    """A quoted SQL identifier (any characters, dots and spaces included).

    >>> sql_ident('a.b "c" ')
    '"a.b ""c"" "'
    """
    return '"' + str(name).replace('"', '""') + '"'


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


def unregister(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Unregister the Arrow tables or frames ``names`` from ``con`` (in a
    ``finally``).  After a failed statement inside a transaction DuckDB
    refuses ("Current transaction is aborted") and that refusal would replace
    the statement's own error, the one the user must see; the rollback that
    follows ends the transaction, so the refusal is ignored.

    >>> import pyarrow as pa
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT NOT NULL)"); _ = con.execute("BEGIN")
    >>> _ = con.register("_x", pa.table({"a": [None]}))
    >>> try:
    ...     try:
    ...         con.execute("INSERT INTO t SELECT a FROM _x")
    ...     finally:
    ...         unregister(con, "_x")
    ... except duckdb.ConstraintException as e:
    ...     print("the insert's own error:", type(e).__name__)
    the insert's own error: ConstraintException
    """
    for name in names:
        try:
            con.unregister(name)
        except duckdb.TransactionException:
            pass
