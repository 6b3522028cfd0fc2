"""audit.store.settings: settings kept in ``review_settings`` as JSON.
Pins the round trip of every JSON kind (lists of Tibetan names, numbers,
objects, null), that writing again replaces the value and its time, that
a missing setting reads as None, and that text is stored unescaped."""
from __future__ import annotations

import pytest

from audit.store import connect, transaction
from audit.store.settings import read_setting, write_setting


@pytest.mark.parametrize("value", [["བསྟན་འཛིན", "Dolma"], 2, 0.5, {"a": [1, None]}, "bo", True, [], None])
def test_round_trip(db_path, value):
    with connect(db_path) as con:
        write_setting(con, "x", value)
    with connect(db_path, read_only=True) as con:
        assert read_setting(con, "x") == value


def test_missing_setting_is_none(db_path):
    with connect(db_path, read_only=True) as con:
        assert read_setting(con, "never_written") is None


def test_writing_again_replaces_value_and_time(db_path):
    with connect(db_path) as con, transaction(con):
        write_setting(con, "leads", ["a"])
        first = con.execute("SELECT updated_at FROM review_settings WHERE name = 'leads'").fetchone()[0]
        write_setting(con, "leads", ["b", "c"])
        rows = con.execute("SELECT value, updated_at FROM review_settings WHERE name = 'leads'").fetchall()
    assert len(rows) == 1
    assert read_setting_value(rows[0][0]) == ["b", "c"]
    assert rows[0][1] >= first


def read_setting_value(text):
    import json

    return json.loads(text)


def test_text_is_stored_unescaped(db_path):
    with connect(db_path) as con:
        write_setting(con, "user_language:བསྟན་འཛིན", "bo")
        write_setting(con, "names", ["ཀ"])
        raw = con.execute("SELECT value FROM review_settings WHERE name = 'names'").fetchone()[0]
        assert read_setting(con, "user_language:བསྟན་འཛིན") == "bo"
    assert "ཀ" in raw and "\\u" not in raw
