"""Running the real ``audit`` entry point in-process, and reading a database
back to compare it before and after (for the tests that check that an
operation changed nothing)."""
from __future__ import annotations

import sys

import duckdb


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """Run ``audit ARGS…`` in this process: (exit code, stdout, stderr)."""
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


def db_snapshot(path) -> dict:
    """Every table's full content (rows sorted), to assert an operation changed nothing."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        return {t: sorted(map(repr, con.execute(f'SELECT * FROM "{t}"').fetchall())) for t in tables}
    finally:
        con.close()
