"""audit._util.clock: times are stored as naive UTC.  Pins that ``utc_now``
is naive and in UTC, and that ``to_utc`` converts aware input (any offset,
ISO strings, pandas Timestamps), keeps naive input as it is, and refuses
a missing time."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pandas as pd
import pytest

from audit._util.clock import to_utc, utc_now


def test_utc_now_is_naive_and_utc():
    before = datetime.now(timezone.utc).replace(tzinfo=None)
    now = utc_now()
    after = datetime.now(timezone.utc).replace(tzinfo=None)
    assert now.tzinfo is None
    assert before <= now <= after


@pytest.mark.parametrize("value, expected", [
    ("2024-03-01T08:00:00+08:00", datetime(2024, 3, 1, 0, 0)),       # Lhasa/Beijing time
    ("2024-03-01T00:30:00-05:30", datetime(2024, 3, 1, 6, 0)),       # a half-hour offset
    ("2024-01-01T01:00:00+02:00", datetime(2023, 12, 31, 23, 0)),    # across a year boundary
    ("2024-03-01T12:00:00Z", datetime(2024, 3, 1, 12, 0)),
    ("2024-03-01 12:00:00", datetime(2024, 3, 1, 12, 0)),            # naive: taken as UTC already
    (datetime(2024, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=5, minutes=45))), datetime(2024, 3, 1, 6, 15)),
    (pd.Timestamp("2024-03-01 12:00", tz="Asia/Kolkata"), datetime(2024, 3, 1, 6, 30)),
])
def test_to_utc_converts_aware_and_keeps_naive(value, expected):
    got = to_utc(value)
    assert type(got) is datetime and got.tzinfo is None
    assert got == expected


def test_to_utc_keeps_microseconds():
    assert to_utc("2024-03-01T12:00:00.123456+00:00").microsecond == 123456


@pytest.mark.parametrize("value", [None, "NaT", pd.NaT])
def test_to_utc_refuses_no_time(value):
    with pytest.raises(ValueError, match="not a time"):
        to_utc(value)


def test_to_utc_refuses_text_that_is_not_a_time():
    with pytest.raises(ValueError):
        to_utc("yesterday-ish")
