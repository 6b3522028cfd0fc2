"""The case "the busy message shows twice", in a real browser: a real
``streamlit run workbench/app.py`` (waiting at most 3 s for the database)
driven by Debian's Chromium while another process holds the write lock.

A save that cannot get the file shows ONE busy message and keeps the form;
moving to the next item, whose page reads the file several times, leaves
ONE "waiting for the database (held by …)" line in the server's log (it
left one per read before).
"""
from __future__ import annotations

import time

import pytest

from tests.store.test_turns_notice import _Holder
from tests.support.accounts import browser_sign_in, ensure_account
from tests.support.common import copy_db
from tests.support.workbench_server import chromium, workbench_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REVIEWER = "Pema Waiting"
WAITING = "waiting for the database"


def _idle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)


def _alerts(page) -> list[str]:
    return [a for a in page.locator("[data-testid=stAlert]").all_inner_texts() if "Demo data" not in a]


def test_busy_database_is_reported_once(tmp_path, monkeypatch, demo_db):
    import audit

    db = copy_db(demo_db, tmp_path / "workbench.duckdb")
    ensure_account(REVIEWER, db=db)
    qid = audit.review.review_queue("demo", db=db).iloc[0]["question_id"]
    monkeypatch.setenv("AUDIT_DB_TIMEOUT", "3")
    log = tmp_path / "streamlit.log"
    with workbench_server(db) as base, chromium() as browser:
        page = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US").new_page()
        page.set_default_timeout(60_000)
        browser_sign_in(page, f"{base}/item?benchmark=demo&question={qid}", REVIEWER, create=False)
        page.get_by_text(f"Item {qid}").first.wait_for()
        _idle(page)
        page.get_by_role("heading", name="Your verdict").click()
        page.keyboard.press("1")
        _idle(page)
        before = log.read_text(errors="replace").count(WAITING)

        # 1. save while another process holds the file
        holder = _Holder(db)
        try:
            holder.say("hold", "holding")
            page.get_by_role("heading", name="Your verdict").click()
            page.keyboard.press("s")
            page.get_by_text("The database is busy").first.wait_for()
            _idle(page)
            saved = _alerts(page)
            holder.say("release", "released")
        finally:
            holder.stop()
        assert len(saved) == 1 and "The database is busy" in saved[0], saved
        assert audit.review.list_reviews("demo", qid, db=db).empty   # nothing half-saved
        assert log.read_text(errors="replace").count(WAITING) == before + 1

        # 2. next item while another process holds the file: several reads wait
        holder = _Holder(db)
        try:
            holder.say("hold", "holding")
            page.get_by_role("heading", name="Your verdict").click()
            page.keyboard.press("n")
            deadline = time.monotonic() + 60
            while log.read_text(errors="replace").count(WAITING) < before + 2 and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            page.locator("[data-testid=stAlert]", has_text="database").first.wait_for()
            _idle(page)
            page.wait_for_timeout(1000)
            moved = [a for a in _alerts(page) if "database" in a]
            holder.say("release", "released")
        finally:
            holder.stop()
        text = log.read_text(errors="replace")
    assert len(moved) == 1, moved
    # in plain words, not the exception's text (PID, file path)
    assert "The database is busy" in moved[0] and "PID" not in moved[0], moved
    assert text.count(WAITING) == before + 2, text[-3000:]
