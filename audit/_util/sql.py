"""SQL text and catalogue queries shared by every package: quoting a string
literal or an identifier (for DDL and SET, where prepared parameters are
not allowed), whether a table exists and which columns it has (an older
database may lack what a later migration adds), and the settings that keep
DuckDB off the network.

DuckDB installs and loads a "known" extension by itself when a file or a
function needs one (opening a SQLite file downloads ``sqlite_scanner``;
``https://`` paths ``httpfs``).  The tool never reaches the network on its
own: :data:`NO_AUTOLOAD` is set on every connection, the database's
(:mod:`audit.store.turns`) and the in-memory ones
(:func:`memory_connection`)."""
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


#: DuckDB settings that stop extensions from being downloaded or loaded on demand.
NO_AUTOLOAD = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def memory_connection() -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB connection with :data:`NO_AUTOLOAD`.

    >>> memory_connection().execute("SELECT current_setting('autoload_known_extensions')").fetchone()
    (False,)
    """
    return duckdb.connect(config=dict(NO_AUTOLOAD))


def table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the main schema holds a table (or view) called *name*.

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT)")
    >>> table_exists(con, "t"), table_exists(con, "u")
    (True, False)
    """
    known = getattr(con, "main_tables", None)     # the store's connection keeps the list (one query, not one per call)
    return name in (known() if known is not None else main_table_names(con))


def main_table_names(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The names of the main schema's tables and views.

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT)")
    >>> sorted(main_table_names(con))
    ['t']
    """
    return frozenset(r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall())


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
