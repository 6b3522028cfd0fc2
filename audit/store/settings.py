"""Settings kept in the database (table ``review_settings``, JSON values):
the lead list, the required reviews, each account's interface language."""
from __future__ import annotations

import json

from audit._util.clock import utc_now


def read_setting(con, name: str):
    rows = con.execute("SELECT value FROM review_settings WHERE name = ?", [name]).fetchall()
    return json.loads(rows[0][0]) if rows else None


def write_setting(con, name: str, value) -> None:
    con.execute(
        "INSERT INTO review_settings (name, value, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        [name, json.dumps(value, ensure_ascii=False), utc_now()],
    )


__all__ = ["read_setting", "write_setting"]
