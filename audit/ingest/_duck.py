"""Tabular files opened directly by DuckDB (for large prediction files).

The pandas readers in ``_read`` are fine for question files; prediction
files can hold ten million rows, so they are scanned by DuckDB and never
become Python objects.  Every problem is an ``InputError`` naming the file
(and the line when there is one).
"""
from __future__ import annotations

import json
import os

import duckdb
import pyarrow as pa

from audit._util.files import (
    check_input_file,
    csv_header,
    csv_scan_sql,
    duck_csv_error,
    duck_path,
    read_table,
    refuse_reserved,
)
from audit.errors import InputError


def sql_ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + str(name).replace('"', '""') + '"'


def open_source(con: duckdb.DuckDBPyConnection, path: str | os.PathLike, name: str) -> list[str]:
    """Make ``name`` a temporary view (or table) over the file with its own
    columns plus ``_line`` (CSV: record number, header = 1; JSONL: physical
    line; Parquet: row number from 1).  Returns the file's column names.

    Parquet and CSV are read by DuckDB itself; JSONL goes through the strict
    line-by-line JSON reader (so a bad line is reported as file:line).
    """
    p = check_input_file(path)
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        try:
            cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet({duck_path(p)})").fetchall()]
        except duckdb.Error as exc:
            raise InputError(f"cannot read Parquet: {_first_line(exc)}", path=p) from None
        refuse_reserved(cols, p)
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * EXCLUDE (file_row_number), "
            f"file_row_number + 1 AS _line FROM read_parquet({duck_path(p)}, file_row_number = true)"
        )
    elif suffix in (".csv", ".tsv"):
        sep = "\t" if suffix == ".tsv" else ","
        header = csv_header(p, sep)   # also checks UTF-8; a column named twice is an error
        names = ", ".join(f"c{i} AS {sql_ident(h)}" for i, h in enumerate(header))
        try:
            # A temp table keeps the file order in rowid, which gives the record number.
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE {name}_raw AS SELECT {names} FROM {csv_scan_sql(p, header, sep)}"
            )
        except duckdb.Error as exc:
            raise duck_csv_error(exc, p) from None
        # (temp-table rowids need not start at 0, hence the offset)
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT *, "
                    f"rowid - (SELECT min(rowid) FROM {name}_raw) + 2 AS _line FROM {name}_raw")
        cols = [r[0] for r in con.execute(f"DESCRIBE {name}_raw").fetchall()]
    elif suffix in (".jsonl", ".ndjson", ".json"):
        df = read_table(p)
        cols = [c for c in df.columns if c != "_line"]
        table = pa.table(
            {c: pa.array([_as_text(v) for v in df[c]], pa.string()) for c in cols}
            | {"_line": pa.array(df["_line"], pa.int64())}
        )
        con.register(f"{name}_arrow", table)
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {name}_arrow")
    else:
        raise InputError(f"unsupported file type '{suffix}' (use .csv, .jsonl or .parquet)", path=p)
    n = one(con, f"SELECT count(*) FROM {name}")[0]
    if n == 0:
        raise InputError("the file has no rows", path=p)
    return cols


def _as_text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, float) and v != v:  # NaN from pandas for a missing key
        return None
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def one(con: duckdb.DuckDBPyConnection, sql: str, params=None):
    """The first row of a query (or None), with the result fully consumed:
    DuckDB ≥ 2 refuses ``register``/``create_function`` while a partly
    fetched result is open on the connection."""
    rows = con.execute(sql, params if params is not None else []).fetchall()
    return rows[0] if rows else None
