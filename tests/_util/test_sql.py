"""audit._util.sql: SQL literals and identifiers for DDL and SET, and the
catalogue queries.  Pins that quoted values round-trip through DuckDB
unchanged (quotes, Tibetan, newlines, a hostile ``'; DROP``), that the
catalogue looks only at the main schema, and that ``unregister`` swallows
only DuckDB's refusal inside an aborted transaction."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest

from audit._util.sql import sql_ident, sql_str, table_columns, table_exists, unregister

HOSTILE = ["it's", "'; DROP TABLE t; --", "བོད་ཡིག", "a\nb", "", "\"quoted\"", "back\\slash", "😀"]


@pytest.mark.parametrize("value", HOSTILE)
def test_sql_str_round_trips(value):
    con = duckdb.connect()
    assert con.execute(f"SELECT {sql_str(value)}").fetchone()[0] == value


def test_sql_str_of_a_path():
    assert sql_str(Path("/tmp/o'neil/x.csv")) == "'/tmp/o''neil/x.csv'"


@pytest.mark.parametrize("name", ["plain", "with space", 'dq"inside', "a.b", "select", "ཀ་ཁ", "'; DROP TABLE x"])
def test_sql_ident_names_exactly_that_column(name):
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t ({sql_ident(name)} INTEGER)")
    con.execute(f"INSERT INTO t ({sql_ident(name)}) VALUES (7)")
    assert table_columns(con, "t") == {name}
    assert con.execute(f"SELECT {sql_ident(name)} FROM t").fetchone()[0] == 7


def test_table_exists_sees_tables_and_views_of_main_only():
    con = duckdb.connect()
    con.execute("CREATE TABLE a (x INT)")
    con.execute("CREATE VIEW v AS SELECT 1 AS y")
    con.execute("CREATE SCHEMA other")
    con.execute("CREATE TABLE other.b (x INT)")
    assert table_exists(con, "a") and table_exists(con, "v")
    assert not table_exists(con, "b")           # another schema
    assert not table_exists(con, "A")           # exact name
    assert table_columns(con, "b") == set()
    assert table_columns(con, "missing") == set()
    assert table_columns(con, "v") == {"y"}


def test_table_columns_of_a_wide_table():
    con = duckdb.connect()
    cols = [f"c{i}" for i in range(30)]
    con.execute("CREATE TABLE w (" + ", ".join(f"{c} INT" for c in cols) + ")")
    assert table_columns(con, "w") == set(cols)


def test_unregister_removes_the_frame():
    con = duckdb.connect()
    con.register("_f", pd.DataFrame({"a": [1]}))
    unregister(con, "_f", "_never_registered")
    with pytest.raises(duckdb.CatalogException):
        con.execute("SELECT * FROM _f").fetchall()


def test_unregister_keeps_the_statements_own_error_after_an_aborted_transaction():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a INT NOT NULL)")
    con.execute("BEGIN")
    con.register("_x", pd.DataFrame({"a": [None]}, dtype="Int64"))
    with pytest.raises(duckdb.ConstraintException):
        try:
            con.execute("INSERT INTO t SELECT a FROM _x")
        finally:
            unregister(con, "_x")
    con.execute("ROLLBACK")
    assert con.execute("SELECT count(*) FROM t").fetchone()[0] == 0
