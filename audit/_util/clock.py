"""Time as the database stores it: UTC, naive."""
from __future__ import annotations

from datetime import datetime, timezone


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
