"""An open workbench session ends at its next action once its account's
password is reset, the account is disabled, its role changes or it signs
out in another browser: the page shows the sign-in form, and nothing the
old session sends afterwards is saved.

Two Streamlit AppTest sessions on one real database (the reviewer's open
tab, and the other browser or the admin), and one real ``streamlit run``
server driven by Chromium over its websocket.

Before: the session was checked again only every 120 s and the library
checked only that the account was enabled, so an open tab kept reading and
saving verdicts after a reset or a sign-out elsewhere."""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import audit
from tests.support.accounts import ADMIN, apptest_sign_in, ensure_account

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "workbench" / "app.py")
WHO = "Tenzin"


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory) -> Path:
    from audit.demo import build_demo

    path = tmp_path_factory.mktemp("sessions") / "demo.duckdb"
    build_demo(path)
    ensure_account(WHO, db=path)
    ensure_account("Lhamo", "lead", db=path)
    return path


@pytest.fixture
def db(demo_template, tmp_path, monkeypatch) -> Path:
    path = tmp_path / "workbench.duckdb"
    shutil.copy(demo_template, path)
    monkeypatch.setenv("AUDIT_DB", str(path))
    monkeypatch.setenv("AUDIT_EXPORTS", str(tmp_path / "exports"))
    for v in ("WORKBENCH_PASSCODE", "WORKBENCH_LEADS", "WORKBENCH_SECRET"):
        monkeypatch.delenv(v, raising=False)
    st.cache_data.clear()
    st.cache_resource.clear()
    yield path
    st.cache_data.clear()
    st.cache_resource.clear()


def reviews(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT benchmark, question_id, reviewer, verdict FROM reviews ORDER BY review_id"
        ).fetchall()
    finally:
        con.close()


def signed_in(name: str, role: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    apptest_sign_in(at, name, create=False)
    assert not at.exception, at.exception
    return at


def queue_ids(at: AppTest) -> list[str]:
    return [b.key.split("::", 1)[1] for b in at.button if b.key and b.key.startswith("open::")]


def who_line(at: AppTest) -> str:
    """The sidebar's "Signed in as NAME (role)" line ('' when none)."""
    return next((m.value for m in at.sidebar.markdown if m.value.startswith("Signed in as")), "")


def sign_in_form_shown(at: AppTest) -> bool:
    return "signin_name" in [w.key for w in at.text_input]


def open_first(at: AppTest) -> str:
    qid = queue_ids(at)[0]
    at.button(key=f"open::{qid}").click().run()
    assert not at.exception, at.exception
    return qid


def try_to_save(at: AppTest) -> None:
    """Pick a verdict and press Save, as far as the page lets the old session."""
    keys = [b.key for b in at.button]
    if "vbtn_key_correct" in keys:
        at.button(key="vbtn_key_correct").click().run()
    if "save" in [b.key for b in at.button]:
        at.button(key="save").click().run()


def ended(at: AppTest, db: Path, before: list[tuple]) -> None:
    assert not at.exception, at.exception
    assert reviews(db) == before, "a verdict was saved by a session that had ended"
    assert sign_in_form_shown(at), "the ended session still shows the page"
    assert not queue_ids(at)


# ---------------------------------------------------------------- the reported cases

def test_a_password_reset_ends_the_open_session_before_it_saves(db):
    tab = signed_in(WHO)
    open_first(tab)
    before = reviews(db)
    audit.accounts.reset_password(WHO, "a-new-password-1", actor=ADMIN, db=db)
    try_to_save(tab)
    ended(tab, db, before)


def test_a_sign_out_in_another_browser_ends_the_open_session_before_it_saves(db):
    tab = signed_in(WHO)
    open_first(tab)
    before = reviews(db)
    other = signed_in(WHO)                        # the same account in another browser
    other.button(key="signout").click().run()     # "signs out everywhere"
    assert sign_in_form_shown(other)
    try_to_save(tab)
    ended(tab, db, before)


def test_a_disable_ends_the_open_session_at_its_next_page(db):
    tab = signed_in(WHO)
    assert queue_ids(tab)
    before = reviews(db)
    audit.accounts.set_disabled(WHO, actor=ADMIN, db=db)
    tab.run()                                      # the next page run: no queue, the sign-in form
    ended(tab, db, before)


def test_a_password_reset_by_the_admin_page_ends_the_other_session(db):
    """The admin acting in a second AppTest session (its library call, as
    the admin page makes it), the reviewer's tab in the first."""
    tab = signed_in(WHO)
    open_first(tab)
    admin = signed_in(ADMIN)
    assert not admin.exception
    before = reviews(db)
    audit.accounts.reset_password(WHO, "a-new-password-2", actor=admin.session_state["wb_reviewer"], db=db)
    try_to_save(tab)
    ended(tab, db, before)


# ---------------------------------------------------------------- further cases of our own

def test_a_reset_ends_the_session_even_for_reading(db):
    """After the reset the old tab does not render the queue again."""
    tab = signed_in(WHO)
    assert queue_ids(tab)
    before = reviews(db)
    audit.accounts.reset_password(WHO, "a-new-password-3", actor=ADMIN, db=db)
    tab.run()
    ended(tab, db, before)


def test_a_role_change_applies_at_the_next_action(db):
    """A lead demoted to reviewer is no longer shown as a lead (nor allowed
    to adjudicate) by the open tab."""
    tab = signed_in("Lhamo")
    assert "(lead reviewer)" in who_line(tab)
    audit.accounts.set_role("Lhamo", "reviewer", actor=ADMIN, db=db)
    tab.run()
    assert not tab.exception
    assert sign_in_form_shown(tab) or "(lead reviewer)" not in who_line(tab), who_line(tab)


def test_a_disabled_account_cannot_save_from_an_open_item(db):
    tab = signed_in(WHO)
    open_first(tab)
    before = reviews(db)
    audit.accounts.set_disabled(WHO, actor=ADMIN, db=db)
    try_to_save(tab)
    ended(tab, db, before)


def test_an_account_disabled_and_enabled_again_does_not_revive_the_old_tab(db):
    """Enabling the account again must not bring the ended session back."""
    tab = signed_in(WHO)
    open_first(tab)
    before = reviews(db)
    audit.accounts.set_disabled(WHO, actor=ADMIN, db=db)
    audit.accounts.set_disabled(WHO, False, actor=ADMIN, db=db)
    try_to_save(tab)
    ended(tab, db, before)


def test_a_sign_out_elsewhere_ends_a_lead_export_in_the_open_tab(db):
    """A lead's open tab whose account signed out elsewhere cannot create a
    version (no folder, no database row)."""
    tab = signed_in("Lhamo")
    before = reviews(db)
    audit.accounts.end_sessions("Lhamo", db=db)
    tab.run()
    ended(tab, db, before)
    assert audit.export.list_versions("demo", db=db).empty


def test_the_surviving_session_keeps_working(db):
    """The correct result beside the cases above: a session whose account
    did nothing keeps saving (another account's reset does not touch it)."""
    tab = signed_in(WHO)
    qid = open_first(tab)
    audit.accounts.reset_password("Lhamo", "a-new-password-4", actor=ADMIN, db=db)
    try_to_save(tab)
    assert not tab.exception
    assert (("demo", qid, WHO, "key_correct") in reviews(db))


# ---------------------------------------------------------------- the live server (websocket)

@pytest.mark.browser
@pytest.mark.slow
def test_a_password_reset_ends_the_session_over_the_live_server(db):
    from tests.support.accounts import browser_sign_in
    from tests.support.workbench_server import chromium, wait_settled, workbench_server

    with workbench_server(db) as base, chromium() as browser:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            browser_sign_in(page, base, WHO, create=False)
            page.get_by_role("button", name="Start reviewing").wait_for()
            wait_settled(page)
            page.get_by_role("button", name="Start reviewing").click()
            page.get_by_role("button", name="Save verdict").wait_for()
            wait_settled(page)
            before = reviews_live(db)
            audit.accounts.reset_password(WHO, "a-new-password-5", actor=ADMIN, db=db)
            page.get_by_role("button", name="Key correct").first.click()
            wait_settled(page)
            if page.get_by_role("button", name="Save verdict").count():
                page.get_by_role("button", name="Save verdict").click()
                wait_settled(page)
            assert reviews_live(db) == before, "a verdict was saved over the websocket after the reset"
            page.get_by_label("Password", exact=True).wait_for(timeout=10_000)
        finally:
            ctx.close()


def reviews_live(db: Path) -> list[tuple]:
    """The reviews, read through the library (the server holds the file)."""
    df = audit.review.list_reviews("demo", db=db)
    return sorted(map(tuple, df[["question_id", "reviewer", "verdict"]].itertuples(index=False)))
