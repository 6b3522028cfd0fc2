"""Issue 21 in Streamlit's AppTest on a real DuckDB file: a session ends
after the idle time, the demo banner goes as soon as a real benchmark is
imported (no restart)."""
from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

import audit
from tests._accounts import ADMIN, apptest_sign_in, ensure_account
from tests.test_workbench_apptest import APP, TIMEOUT, _clear_caches, db, demo_template, texts  # noqa: F401


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
    # the run that ended it deletes this browser's cookie
    assert any("wb_session=; Max-Age=0" in h.proto.body for h in at.get("html"))


def test_demo_banner_goes_when_a_real_benchmark_is_imported(db):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert any("Demo data" in i.value for i in at.info)
    from audit.ingest import store_questions
    from audit.records import Option, Question
    from audit.store import connect, transaction

    with connect(db) as con, transaction(con):
        store_questions(con, "real", "questions", [Question("real", "q1", "Stem", [Option("A", "x"), Option("B", "y")], "A")])
    at.run()     # the same server process, no restart
    assert not any("Demo data" in i.value for i in at.info)
