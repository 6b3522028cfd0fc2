"""Small shared pieces of the review stage: UTC time, name cleaning,
connection helpers for read-only queries."""
from __future__ import annotations

import unicodedata
from datetime import datetime, timezone

import duckdb

from audit._sql import table_columns, table_exists  # noqa: F401  (re-exported for the review modules)


def utc_now() -> datetime:
    """Now in UTC as a naive timestamp (how ``reviews.created_at`` is stored)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def to_utc(value) -> datetime:
    """A datetime, ISO string or pandas Timestamp in UTC, naive.  Naive input
    is taken to be UTC already; aware input is converted."""
    import pandas as pd

    ts = pd.Timestamp(value)
    if ts is pd.NaT:
        raise ValueError("not a time")
    if ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return ts.to_pydatetime()


def clean_name(name) -> str:
    """A reviewer name: NFC, surrounding and repeated spaces removed."""
    if name is None:
        return ""
    return " ".join(unicodedata.normalize("NFC", str(name)).split())


def clean_text(value) -> str | None:
    """Free text (rationale, proposed fix): NFC, stripped; empty → None."""
    if value is None:
        return None
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    s = unicodedata.normalize("NFC", str(value)).strip()
    return s or None


def has_accounts(con) -> bool:
    """Whether the database has any account (else the workbench and the
    library work as before accounts existed: see :mod:`audit.review._accounts`)."""
    return table_exists(con, "accounts") and bool(
        con.execute("SELECT count(*) FROM accounts").fetchall()[0][0])


_PARAM = __import__("re").compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def run(con: duckdb.DuckDBPyConnection, sql: str, params: dict):
    """Execute ``sql`` with only the named ``$parameters`` it uses (DuckDB
    rejects unused ones), so shared CTEs can take a common parameter dict."""
    used = set(_PARAM.findall(sql))
    return con.execute(sql, {k: v for k, v in params.items() if k in used})
