"""audit.sync._state: the connected projects (saved, updated in place, found
by id or as the latest of a URL, touched), naive UTC times, and the no-op
hook a push calls after each remote write."""
from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from audit.errors import NotFoundError
from audit.store import connect
from audit.sync import _state
from audit.sync._state import Project, find_project, save_project, touch, utc_now

URL = "http://ls.invalid:8080"


def test_utc_now_is_naive_utc():
    now = utc_now()
    assert now.tzinfo is None
    assert abs((datetime.now(timezone.utc).replace(tzinfo=None) - now).total_seconds()) < 5


def test_save_update_and_find(db_path):
    with connect(db_path) as con:
        save_project(con, URL, 3, "first", "<View/>")
        time.sleep(0.01)
        save_project(con, URL, 7, "second", "<View/>")
        save_project(con, "http://other", 1, "elsewhere", "<View/>")
        assert find_project(con, URL) == Project(URL, 7, "second")          # the latest connected
        assert find_project(con, URL, 3) == Project(URL, 3, "first")
        time.sleep(0.01)
        save_project(con, URL, 3, "renamed", "<View>2</View>")              # reconnect: updated, now the latest
        assert find_project(con, URL) == Project(URL, 3, "renamed")
        assert con.execute("SELECT count(*) FROM ls_projects").fetchone() == (3,)
        cfg = con.execute("SELECT label_config FROM ls_projects WHERE project_id = 3").fetchall()
        assert cfg == [("<View>2</View>",)]


def test_not_connected(db_path):
    with connect(db_path) as con:
        with pytest.raises(NotFoundError, match="no Label Studio project connected for http://x"):
            find_project(con, "http://x")
        save_project(con, URL, 1, "p", "<View/>")
        with pytest.raises(NotFoundError, match="project 2 at .* is not connected; run 'audit ls connect' first"):
            find_project(con, URL, 2)


def test_touch_sets_only_the_named_column(db_path):
    with connect(db_path) as con:
        save_project(con, URL, 1, "p", "<View/>")
        p = find_project(con, URL)
        touch(con, p, "last_pull_at")
        push, pull = con.execute("SELECT last_push_at, last_pull_at FROM ls_projects").fetchone()
        assert push is None and abs((utc_now() - pull).total_seconds()) < 5
        with pytest.raises(AssertionError):
            touch(con, p, "title")


def test_the_remote_write_hook_is_a_no_op_by_default():
    assert _state.on_remote_write("tasks", 3) is None
