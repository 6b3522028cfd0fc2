"""audit.sync._users: which reviewer a Label Studio user id is — its email,
its linked workbench reviewer while the email still matches, re-resolved by
email after an id was reused, a placeholder without an email — and the
rewrite of stale links."""
from __future__ import annotations

import logging

import duckdb
import pandas as pd
import pytest

from audit.sync._users import USER_COLUMNS, relink_users, resolve_users

URL = "u"


@pytest.fixture
def con():
    c = duckdb.connect()
    c.execute("CREATE TABLE ls_users (url VARCHAR, ls_user_id BIGINT, email VARCHAR, reviewer VARCHAR)")
    c.executemany("INSERT INTO ls_users VALUES (?, ?, ?, ?)", [
        (URL, 5, "pema@reviewers.audit.invalid", "Pema"),
        (URL, 6, "Dawa@Example.org", "Dawa"),
        (URL, 8, "tsering@example.org", "Tsering"),          # no longer listed by the server
        (URL, 9, "yangchen@example.org", "Yangchen"),
        ("other", 5, "someone@else.org", "Someone"),
    ])
    yield c
    c.close()


def test_every_rule(con):
    now = pd.DataFrame({"ls_user_id": [5, 6, 7, 10, 11],
                        "email": ["tashi@example.org", " dawa@example.org ", "", "yangchen@example.org", None]})
    df = resolve_users(con, URL, now)
    assert list(df.columns) == USER_COLUMNS
    got = {int(r.ls_user_id): (r.reviewer, bool(r.relinked)) for r in df.itertuples()}
    assert got == {
        5: ("tashi@example.org", True),          # id reused: the new account, by its email
        6: ("Dawa", False),                      # the link holds (case and spaces ignored)
        7: ("label-studio-user-7", False),       # no email, no link
        8: ("Tsering", False),                   # gone from the server: the recorded link stays
        9: ("Yangchen", False),
        10: ("Yangchen", False),                 # a new id of a known email: the reviewer recorded for it
        11: ("label-studio-user-11", False),
    }
    assert df["ls_user_id"].tolist() == sorted(df["ls_user_id"])


def test_other_urls_are_apart(con):
    df = resolve_users(con, "nowhere", pd.DataFrame({"ls_user_id": [5], "email": ["pema@reviewers.audit.invalid"]}))
    assert df["reviewer"].tolist() == ["pema@reviewers.audit.invalid"] and not df["relinked"].any()


def test_relink_rewrites_stale_links_and_logs_them(con, caplog):
    now = pd.DataFrame({"ls_user_id": [5, 6], "email": ["tashi@example.org", "dawa@example.org"]})
    resolved = resolve_users(con, URL, now)
    with caplog.at_level(logging.WARNING, logger="audit.sync"):
        assert relink_users(con, URL, resolved) == 1
    assert "is now tashi@example.org" in caplog.text and "'Pema'" in caplog.text
    assert con.execute("SELECT email, reviewer FROM ls_users WHERE url = ? AND ls_user_id = 5", [URL]).fetchall() == [
        ("tashi@example.org", "tashi@example.org")]
    assert con.execute("SELECT reviewer FROM ls_users WHERE url = 'other'").fetchall() == [("Someone",)]
    # once rewritten, the same listing changes nothing more
    assert relink_users(con, URL, resolve_users(con, URL, now)) == 0
    assert "_ls_users_now" not in {r[0] for r in con.execute("SHOW TABLES").fetchall()}
