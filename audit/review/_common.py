"""Running a SQL text with named ``$parameters`` taken from a shared dict (the
review stage's CTEs share one parameter dict)."""
from __future__ import annotations

import re

import duckdb

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def run(con: duckdb.DuckDBPyConnection, sql: str, params: dict):
    """Execute ``sql`` with only the named ``$parameters`` it uses (DuckDB
    rejects unused ones), so shared CTEs can take a common parameter dict."""
    used = set(_PARAM.findall(sql))
    return con.execute(sql, {k: v for k, v in params.items() if k in used})

