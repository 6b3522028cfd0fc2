"""A review campaign in a real browser: a real ``streamlit run
workbench/app.py`` on 127.0.0.1 and Debian's Chromium through Playwright, on
a demo database with accounts.

* the session lives in an HttpOnly cookie set by the server (``document.cookie``
  does not show it; a forged nonce sets nothing): a reload keeps it, the address carries no
  token, the copied address signs nobody in from a fresh browser context,
  sign-out ends it (the old cookie no longer works);
* a lead's "Start reviewing" opens a disputed item and settling it opens the
  next dispute;
* changing the verdict clears the cause and the corrected answer;
* Save stays visible at 1024 × 768 when the item is scrolled;
* the admin page adds an account and changes its role through the library.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import audit
from tests.support.accounts import ADMIN, browser_sign_in, ensure_account
from tests.support.common import copy_db
from tests.support.workbench_server import workbench_server
from tests.workbench.test_browser import browser  # noqa: F401 - pytest fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]
REVIEWER = "Pema Campaign"
LEAD = "Lhamo Campaign"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _disputes(db: Path, n: int) -> list[str]:
    """Make ``n`` disputed items (two reviewers disagree); their ids."""
    q = audit.review.review_queue("demo", db=db)
    out = []
    for r in q.tail(n).itertuples():
        other = next(o.label for o in audit.review.item_view("demo", r.question_id, db=db).question.options
                     if o.label != r.answer_key)
        audit.review.add_review("demo", r.question_id, "Rev One", "key_correct", db=db)
        audit.review.add_review("demo", r.question_id, "Rev Two", "key_wrong", corrected_answer=other, db=db)
        out.append(r.question_id)
    return out


@pytest.fixture(scope="module")
def wb_db(tmp_path_factory, demo_db) -> Path:
    db = copy_db(demo_db, tmp_path_factory.mktemp("wb_campaign") / "workbench.duckdb")
    ensure_account(REVIEWER, db=db)
    ensure_account(LEAD, "lead", db=db)
    ensure_account("Rev One", db=db)
    ensure_account("Rev Two", db=db)
    return db


@pytest.fixture(scope="module")
def server(wb_db):
    with workbench_server(wb_db) as base:
        yield base


def _ctx(browser, width=1440, height=1000, locale="en-US"):
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    return ctx


@pytest.fixture
def page(browser, request):
    ctx = _ctx(browser)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"last-{request.node.name}.png"))
    except Exception:
        pass
    ctx.close()


def _idle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=30_000)


def _queue(page):
    return page.get_by_role("heading", name="Review queue")


def _session_cookie(page) -> dict:
    """This context's cookies by name, once the server has set ``wb_session``
    (the page hands the server a nonce right after sign-in)."""
    for _ in range(50):
        cookies = {c["name"]: c for c in page.context.cookies()}
        if "wb_session" in cookies:
            return cookies
        page.wait_for_timeout(100)
    raise AssertionError("the server set no wb_session cookie within 5 s")


def test_session_is_in_a_cookie_not_in_the_address(server, page, browser, wb_db):
    browser_sign_in(page, server, REVIEWER, create=False)
    _queue(page).wait_for()
    _idle(page)
    assert "s=" not in page.url
    cookies = _session_cookie(page)
    # written by the server (HttpOnly): no page script can read it
    assert cookies["wb_session"]["sameSite"] == "Strict" and cookies["wb_session"]["httpOnly"] is True
    assert cookies["wb_session"]["secure"] is False        # plain http on 127.0.0.1 (Secure over HTTPS)
    assert "wb_session" not in page.evaluate("document.cookie")
    # the cookie route sets nothing for a nonce it did not issue
    resp = page.request.post(server + "/wb/session", data="forged-nonce", headers={"Content-Type": "text/plain"})
    assert resp.status == 403 and "set-cookie" not in resp.headers
    from urllib.parse import unquote

    token = unquote(cookies["wb_session"]["value"])
    assert audit.accounts.verify_session(token, db=wb_db).name == REVIEWER
    page.reload()                      # the cookie keeps the reviewer signed in
    _queue(page).wait_for()
    page.get_by_text(f"Signed in as {REVIEWER}").wait_for()
    # the address copied into another browser signs nobody in
    other = _ctx(browser)
    try:
        p2 = other.new_page()
        p2.goto(page.url)
        p2.get_by_label("Password", exact=True).wait_for()
        _idle(p2)
        assert p2.get_by_text(f"Signed in as {REVIEWER}").count() == 0
        assert _queue(p2).count() == 0
    finally:
        other.close()
    # a token in the address is ignored: the cookie's session goes on
    page.goto(server + "/?s=forged.token")
    _queue(page).wait_for()
    _idle(page)
    # sign-out ends it: the cookie is gone, and the token it held no longer works
    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Password", exact=True).wait_for()
    _idle(page)
    assert "wb_session" not in {c["name"] for c in page.context.cookies()}
    third = _ctx(browser)
    try:
        third.add_cookies([cookies["wb_session"]])
        p3 = third.new_page()
        p3.goto(server)
        p3.get_by_label("Password", exact=True).wait_for()
        _idle(p3)
        assert _queue(p3).count() == 0
    finally:
        third.close()
    with pytest.raises(audit.SignInError):
        audit.accounts.verify_session(token, db=wb_db)
    assert token not in (wb_db.parent / "streamlit.log").read_text(errors="replace")   # no token in the log


def test_lead_starts_with_disputes_and_saving_opens_the_next(server, page, wb_db):
    disputed = _disputes(wb_db, 2)
    assert audit.review.queue.next_for_reviewer("demo", LEAD, db=wb_db) in disputed
    browser_sign_in(page, server, LEAD, create=False)
    _queue(page).wait_for()
    _idle(page)
    page.get_by_role("button", name="Start reviewing").click()
    first = audit.review.queue.next_for_reviewer("demo", LEAD, db=wb_db)
    page.get_by_text(f"Item {first}").first.wait_for()
    page.get_by_role("heading", name="Adjudication").wait_for()
    # the reviewers' verdicts and full reasons as cards
    cards = page.locator("[data-testid=wb-history] .wb-card")
    cards.nth(1).wait_for()
    assert cards.count() >= 2
    _idle(page)
    page.get_by_role("button", name="Key correct").first.click()
    _idle(page)
    # ticked by default: a lead's verdict on a dispute decides it (the status below says so)
    page.get_by_text("Record as the deciding verdict (adjudication)").wait_for()
    page.get_by_role("button", name="Save verdict").click()
    nxt = [q for q in disputed if q != first][0]
    page.get_by_text(f"Item {nxt}").first.wait_for()
    assert audit.review.review_status("demo", db=wb_db).set_index("question_id").loc[first, "status"] == "done"


def test_changing_the_verdict_clears_cause_and_answer(server, page, wb_db):
    qid = audit.review.review_queue("demo", status="needs_me", reviewer=REVIEWER, db=wb_db).iloc[0]["question_id"]
    browser_sign_in(page, f"{server}/item?benchmark=demo&question={qid}", REVIEWER, create=False)
    page.get_by_text(f"Item {qid}").first.wait_for()
    _idle(page)
    page.get_by_role("button", name="Key wrong").first.click()
    _idle(page)
    page.get_by_label("Cause").first.click() if page.get_by_label("Cause").count() else None
    page.get_by_role("option", name="Answer-key slip").click()
    _idle(page)
    cause = page.locator(".st-key-item_side [data-testid=stSelectbox]").nth(1)

    def shown() -> str:   # the selectbox shows its value as text or in its input
        return cause.evaluate("e => e.textContent + ' ' + [...e.querySelectorAll('input')].map(i => i.value).join(' ')")

    assert "Answer-key slip" in shown()
    page.get_by_role("button", name="Key correct").first.click()
    _idle(page)
    page.wait_for_timeout(300)
    assert "Answer-key slip" not in shown()
    page.get_by_role("button", name="Save verdict").click()
    _idle(page)
    rows = audit.review.list_reviews("demo", db=wb_db)
    mine = rows[(rows["reviewer"] == REVIEWER) & (rows["question_id"] == qid)]
    assert list(mine["verdict"]) == ["key_correct"] and mine["cause"].isna().all()


def test_save_stays_in_view_at_1024(server, browser, wb_db):
    import pandas as pd

    q = audit.review.review_queue("demo", tiers=None, db=wb_db)
    qid = q.loc[q["stem_preview"].str.len().idxmax(), "question_id"] if len(q) else None
    ctx = _ctx(browser, 1024, 768)
    try:
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        browser_sign_in(page, f"{server}/item?benchmark=demo&question={qid}", REVIEWER, create=False)
        page.get_by_text(f"Item {qid}").first.wait_for()
        _idle(page)
        # make the item long, then scroll the page to its bottom
        page.evaluate("""() => { const m = document.querySelector('.st-key-item_main');
                                 const pad = document.createElement('div'); pad.style.height = '2500px';
                                 m.appendChild(pad); }""")
        page.mouse.move(300, 400)
        for _ in range(12):
            page.mouse.wheel(0, 600)
        page.wait_for_timeout(500)
        save = page.get_by_role("button", name="Save verdict")
        box = save.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 768, box
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "campaign-save-1024-scrolled.png"))
        del pd
    finally:
        ctx.close()


def test_admin_adds_an_account_and_changes_its_role(server, page, wb_db):
    browser_sign_in(page, server + "/admin", ADMIN, create=False)
    page.get_by_role("heading", name="Administration").wait_for()
    _idle(page)
    page.get_by_label("Name", exact=True).first.fill("Tashi New")
    page.get_by_label("Password", exact=True).first.fill("a-long-password-1")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_text("Account Tashi New added.").wait_for()
    assert audit.accounts.roles.account_role("Tashi New", db=wb_db) == "reviewer"
    _idle(page)


def test_admin_page_is_only_for_admins(server, page):
    browser_sign_in(page, server + "/admin", REVIEWER, create=False)
    page.get_by_text("This page is for administrators.").wait_for()   # the address answers, with a notice
    _idle(page)
    assert page.get_by_role("heading", name="Administration").count() == 0
    assert page.get_by_role("link", name="Admin").count() == 0


def test_a_saved_verdict_leaves_the_queue_in_every_tab(server, browser, wb_db):
    ctx = _ctx(browser)
    try:
        tab1, tab2 = ctx.new_page(), ctx.new_page()
        for tab in (tab1, tab2):
            tab.set_default_timeout(30_000)
        browser_sign_in(tab1, server, "Rev One", create=False)
        _queue(tab1).wait_for()
        tab2.goto(server)                      # the same browser: signed in by the cookie
        _queue(tab2).wait_for()
        _idle(tab2)
        first = audit.review.review_queue("demo", status="needs_me", reviewer="Rev One", db=wb_db).iloc[0][
            "question_id"
        ]
        tab2.get_by_role("button", name=first, exact=True).first.wait_for()
        _idle(tab1)
        tab1.get_by_role("button", name="Start reviewing").click()
        tab1.get_by_text(f"Item {first}").first.wait_for()
        _idle(tab1)
        tab1.get_by_role("button", name="Key correct").first.click()
        _idle(tab1)
        tab1.get_by_role("button", name="Save verdict").click()
        tab1.get_by_text(f"Item {first}").first.wait_for(state="detached")
        # the other tab's next run (any click) no longer lists it, well before the 20 s cache of others' verdicts
        tab2.get_by_text("Only items whose options may be split wrongly").click()
        _idle(tab2)
        tab2.get_by_text("Only items whose options may be split wrongly").click()
        _idle(tab2)
        assert tab2.get_by_role("button", name=first, exact=True).count() == 0
    finally:
        ctx.close()
