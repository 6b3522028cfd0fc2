"""Small helpers shared by the test modules: read-only queries and the in-process CLI runner."""
from __future__ import annotations

import sys

import duckdb


def rows(db, sql, params=None):
    """All rows of a query on a DuckDB file opened read-only."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """Run the real ``audit`` entry point in-process: (exit code, stdout, stderr)."""
    from audit.cli import main

    capsys.readouterr()  # drop what earlier steps printed
    old = sys.argv
    sys.argv = ["audit", *map(str, args)]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err
