"""Accounts in a real browser: a real ``streamlit run
workbench/app.py`` on 127.0.0.1 (the server, browser and database fixtures of
``test_workbench_browser``), Debian's Chromium through Playwright.

A wrong password is refused; a reload keeps the session; a reviewer cannot
adjudicate or create a version — neither through the page nor by calling the
API under their name — and sees no admin page, no database path and no
Deploy button; a lead is offered the adjudication, not pre-selected."""
from __future__ import annotations

import pytest

import audit
from tests.support.accounts import PASSWORD, browser_sign_in, ensure_account
from tests.workbench.test_browser import REVIEWER, _wait_idle, browser, page, server, wb_db  # noqa: F401 - pytest fixtures

pytestmark = [pytest.mark.browser, pytest.mark.slow]
LEAD = "Lhamo Lead"


def _queue_heading(page):
    return page.get_by_role("heading", name="Review queue")


def test_wrong_password_is_refused(server, page, wb_db):
    browser_sign_in(page, server, REVIEWER, password="not-the-password", create=False)
    page.get_by_text("The name or the password is not right.").wait_for()
    assert _queue_heading(page).count() == 0
    assert "s=" not in page.url
    browser_sign_in(page, server, REVIEWER, create=False)
    _queue_heading(page).wait_for()


def test_reload_keeps_the_session_and_sign_out_ends_it(server, page, wb_db):
    browser_sign_in(page, server, REVIEWER, create=False)
    _queue_heading(page).wait_for()
    _wait_idle(page)
    assert "s=" not in page.url          # the session is in a cookie, never in the address
    page.wait_for_function("() => true")   # the server sets the HttpOnly cookie once the page hands it a nonce
    for _ in range(50):
        cookie = next((c for c in page.context.cookies() if c["name"] == "wb_session"), None)
        if cookie:
            break
        page.wait_for_timeout(100)
    assert cookie and cookie["httpOnly"]
    page.reload()
    _queue_heading(page).wait_for()
    page.get_by_text(f"Signed in as {REVIEWER}").wait_for()
    assert page.get_by_label("Password", exact=True).count() == 0
    # the Deploy button and the developer menu are not offered
    assert page.get_by_role("button", name="Deploy").count() == 0
    assert page.get_by_text("Deploy", exact=True).count() == 0
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Password", exact=True).wait_for()
    page.context.add_cookies([cookie])   # the old cookie no longer signs anyone in
    page.goto(page.url)
    page.get_by_text("This session has ended").wait_for()
    page.get_by_label("Password", exact=True).wait_for()
    assert _queue_heading(page).count() == 0


def test_reviewer_cannot_adjudicate_or_create_a_version(server, page, wb_db, tmp_path):
    ensure_account(LEAD, "lead", db=wb_db)
    q = audit.review.review_queue("demo", db=wb_db)
    qid = q.iloc[-1]["question_id"]
    key = q.iloc[-1]["answer_key"]
    other = next(l for l in audit.review.item_view("demo", qid, db=wb_db).question.options if l.label != key).label
    for name in ("First Reviewer", "Second Reviewer"):   # only enabled accounts record verdicts
        ensure_account(name, db=wb_db)
    audit.review.add_review("demo", qid, "First Reviewer", "key_correct", db=wb_db)
    audit.review.add_review("demo", qid, "Second Reviewer", "key_wrong", corrected_answer=other, db=wb_db)

    # the reviewer: a normal form, no adjudication; no admin page, no database path
    browser_sign_in(page, f"{server}/item?benchmark=demo&question={qid}", REVIEWER, create=False)
    page.get_by_text(f"Item {qid}").first.wait_for()
    page.get_by_role("heading", name="Your verdict").wait_for()
    _wait_idle(page)
    assert page.get_by_role("heading", name="Adjudication").count() == 0
    assert page.get_by_text("Record as the deciding verdict (adjudication)").count() == 0
    assert page.get_by_role("link", name="Label Studio").count() == 0
    assert str(wb_db) not in page.content()
    # the item page starts with the sidebar collapsed (the question needs the width): open it
    expand = page.locator("[data-testid=stExpandSidebarButton], [data-testid=stSidebarCollapsedControl] button")
    if expand.count():
        expand.first.click()
    page.get_by_role("link", name="Export").click()
    page.get_by_text("Only a lead reviewer can create a version.").wait_for()
    assert page.get_by_role("button", name="Create version").is_disabled()

    # ... nor by calling the API under the reviewer's name
    with pytest.raises(audit.PermissionDeniedError):
        audit.review.add_review("demo", qid, REVIEWER, "key_correct", is_adjudication=True, db=wb_db)
    with pytest.raises(audit.PermissionDeniedError):
        audit.create_version("demo", "1.1", db=wb_db, exports_dir=tmp_path / "e", actor=REVIEWER)
    assert not (tmp_path / "e").exists()
    assert not audit.review.list_reviews("demo", qid, db=wb_db)["is_adjudication"].any()

    # the lead is offered the adjudication, ticked: a lead's verdict on a dispute decides unless unticked
    page.context.clear_cookies()
    page.goto(server)
    browser_sign_in(page, f"{server}/item?benchmark=demo&question={qid}", LEAD, create=False)
    page.get_by_text(f"Item {qid}").first.wait_for()
    page.get_by_role("heading", name="Adjudication").wait_for()
    box = page.get_by_role("checkbox", name="Record as the deciding verdict (adjudication)")
    box.wait_for(state="attached")
    assert box.is_checked()
    assert page.get_by_text(f"Signed in as {LEAD} (lead reviewer)").count() == 1
    assert PASSWORD not in page.content()
