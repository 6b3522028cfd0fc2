"""In Streamlit's AppTest on a real DuckDB file: a session ends
after the idle time, the demo banner goes as soon as a real benchmark is
imported (no restart)."""
from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.accounts import apptest_sign_in, ensure_account
from tests.workbench.test_app import APP, TIMEOUT, _clear_caches, db, demo_template, texts  # noqa: F401


@pytest.mark.slow
def test_a_session_ends_after_the_idle_time(db, monkeypatch):
    from workbench import session

    ensure_account("Idle Reviewer")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    apptest_sign_in(at, "Idle Reviewer", create=False)
    assert "Review queue" in [t.value for t in at.title]
    monkeypatch.setattr(session, "IDLE_MINUTES", 0.2 / 60)   # 0.2 s
    time.sleep(0.5)
    at.run()
    assert any("minutes without activity" in w.value for w in at.warning), [w.value for w in at.warning]
    assert "Name" in [t.label for t in at.text_input]        # the sign-in form again
    assert "wb_token" not in at.session_state
    # the run that ended it has the server delete this browser's cookie (a single-use nonce for a deletion)
    import re

    from workbench import _cookie

    nonces = [m for h in at.get("html") for m in re.findall(r"body: \"([\w-]+)\"", h.proto.body)]
    assert [_cookie.take(n) for n in nonces] == [(None, 0)]


def test_demo_banner_goes_when_a_real_benchmark_is_imported(db):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert any("Demo data" in i.value for i in at.info)
    from audit.ingest.storing import store_questions
    from audit.store import connect, transaction
    from audit.store.records import Option, Question

    with connect(db) as con, transaction(con):
        store_questions(
            con, "real", "questions", [Question("real", "q1", "Stem", [Option("A", "x"), Option("B", "y")], "A")]
        )
    at.run()     # the same server process, no restart
    assert not any("Demo data" in i.value for i in at.info)


@pytest.mark.slow
def test_an_idle_sign_out_keeps_the_draft_for_the_same_reviewer_only(db, monkeypatch):
    from tests.workbench.test_app import fill_verdict, open_item, queue_ids, shows_item
    from workbench import session

    ensure_account("Draft Reviewer")
    ensure_account("Someone Else")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    apptest_sign_in(at, "Draft Reviewer", create=False)
    qid = queue_ids(at)[0]
    open_item(at, qid)
    fill_verdict(at, qid, "ambiguous", rationale="half-written reason")
    monkeypatch.setattr(session, "IDLE_MINUTES", 0.2 / 60)
    time.sleep(0.5)
    at.run()
    assert "Name" in [t.label for t in at.text_input]
    monkeypatch.setattr(session, "IDLE_MINUTES", 30.0)
    apptest_sign_in(at, "Draft Reviewer", create=False)
    at.session_state["wb_goto"] = "item"
    at.run()
    assert shows_item(at, qid)
    assert at.text_area(key=f"form::demo::{qid}::rationale").value == "half-written reason"
    # another person signing in after the idle sign-out does not get it
    monkeypatch.setattr(session, "IDLE_MINUTES", 0.2 / 60)
    time.sleep(0.5)
    at.run()
    monkeypatch.setattr(session, "IDLE_MINUTES", 30.0)
    apptest_sign_in(at, "Someone Else", create=False)
    key = f"draft::demo::{qid}"
    assert key not in at.session_state or not at.session_state[key].get("rationale")
    assert all(t.value != "half-written reason" for t in at.text_area)
