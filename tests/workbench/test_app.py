"""Streamlit AppTest tests of the workbench flows, on a real DuckDB file (the
demo database, copied per test).  Expected values come from SQL on the file
(written here, independently of the ``audit`` queries the app uses), and
every write is checked in the database."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import audit
from audit.accounts._signin import MAX_FAILURES
from tests.support.accounts import PASSWORD, apptest_sign_in, ensure_account
from tests.support.common import wrong_answer
from workbench.render import md

APP = str(Path(__file__).resolve().parents[2] / "workbench" / "app.py")
TIMEOUT = 60


@pytest.fixture(scope="module")
def demo_template(demo_db) -> Path:
    """The demo database, never written to: each test gets a copy (``db``)."""
    return demo_db


@pytest.fixture
def db(demo_template, tmp_path, monkeypatch) -> Path:
    path = tmp_path / "workbench.duckdb"
    shutil.copy(demo_template, path)
    monkeypatch.setenv("AUDIT_DB", str(path))
    monkeypatch.delenv("WORKBENCH_PASSCODE", raising=False)
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    return path


@pytest.fixture(autouse=True)
def _clear_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


def sql(db: Path, query: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(query, params or []).fetchall()
    finally:
        con.close()


def start(name: str | None = None, role: str = "reviewer") -> AppTest:
    if name is not None:
        ensure_account(name, role)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    if name is not None:
        apptest_sign_in(at, name, create=False)
    return at


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [m.value for m in at.caption] + [e.value for e in at.info]
    parts += [e.value for e in at.success] + [e.value for e in at.error] + [e.value for e in at.warning]
    parts += [t.value for t in at.title] + [t.value for t in at.text]
    return "\n".join(str(p) for p in parts)


def queue_ids(at: AppTest) -> list[str]:
    return [b.key.split("::", 1)[1] for b in at.button if b.key and b.key.startswith("open::")]


def frame_with(at: AppTest, column: str):
    """The first dataframe on the page that has ``column`` (None if none)."""
    return next((d.value for d in at.dataframe if column in d.value.columns), None)


def history(at: AppTest):
    """The item's history cards as a table: Reviewer, Verdict,
    Corrected answer, Cause, Why (None when no card is shown)."""
    import html as _html
    import re

    import pandas as pd

    page = next((h.proto.body for h in at.get("html") if 'data-testid="wb-history"' in h.proto.body), None)
    if page is None or '<div class="wb-card' not in page.replace('<div class="wb-cards"', ""):
        return None
    rows = []
    for card in re.split(r'<div class="wb-card(?: wb-card-adj)?">', page)[1:]:
        who = re.search(r'wb-card-who">(.*?)</span>', card).group(1)
        verdict = re.search(r'wb-card-verdict">(.*?)</span>', card).group(1)
        v, _, ans = _html.unescape(verdict).partition(" → ")
        fields = {k: _html.unescape(val) for k, val in re.findall(r'wb-card-field"><b>(.*?):</b> (.*?)</div>', card)}
        rows.append({"Reviewer": _html.unescape(who), "Verdict": v, "Corrected answer": ans or None,
                     "Cause": fields.get("Cause"), "Why": fields.get("Why?")})
    return pd.DataFrame(rows)


def move_on(at: AppTest, on: bool) -> None:
    """The item page's "then open the next item that needs me" switch."""
    at.toggle(key="wb_move_on").set_value(on).run()


def shows_item(at: AppTest, qid: str) -> bool:
    return f"#### Item {md(qid)}" in [m.value for m in at.markdown]


def saved(at: AppTest, what: str, qid: str) -> bool:
    return any(f"{what} saved for {md(qid)}" in s.value for s in at.success)


def open_item(at: AppTest, qid: str) -> AppTest:
    at.button(key=f"open::{qid}").click().run()
    assert not at.exception, at.exception
    assert shows_item(at, qid)
    return at


def flagged(db: Path) -> list[tuple]:
    """Tier 1–2 items of the latest audit run, in the default queue order
    (evidence: key-error score descending, then tier and agreement count)."""
    return sql(db, """
        WITH ev AS (   -- the stored score, updated by the evidence refreshed after each verdict
            SELECT k.question_id, CASE WHEN e.run_id = k.run_id THEN e.score ELSE k.score END AS score
            FROM key_error_scores k LEFT JOIN key_error_evidence e USING (benchmark, question_id)
            WHERE k.benchmark = 'demo' AND k.run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = 'demo'))
        SELECT r.question_id, r.tier, r.agreement_count
        FROM audit_results r JOIN questions q ON q.benchmark = r.benchmark AND q.question_id = r.question_id
        LEFT JOIN ev ON ev.question_id = r.question_id
        WHERE r.run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = 'demo') AND r.tier IN (1, 2)
        ORDER BY ev.score DESC NULLS LAST, r.tier, r.agreement_count DESC, q.seq, q.question_id""")


def fill_verdict(at: AppTest, qid: str, verdict: str, answer: str | None = None, rationale: str = "",
                 cause: str | None = None) -> None:
    at.button(key=f"vbtn_{verdict}").click().run()
    if answer is not None:
        at.selectbox(key=f"form::demo::{qid}::answer").select(answer).run()
    if cause is not None:
        at.selectbox(key=f"form::demo::{qid}::cause").select(cause).run()
    if rationale:
        at.text_area(key=f"form::demo::{qid}::rationale").input(rationale).run()


# --------------------------------------------------------------------- sign-in

@pytest.mark.slow
def test_sign_in_is_required_and_names_the_reviewer(db):
    ensure_account("Tenzin Dorje")
    at = start()
    assert "Name" in [t.label for t in at.text_input]
    assert not queue_ids(at)
    at.button[0].click().run()  # empty name
    assert "Please type your name and your password." in [e.value for e in at.error]
    apptest_sign_in(at, "  Tenzin   Dorje ", create=False)
    assert "Review queue" in [t.value for t in at.title]
    assert "Signed in as **Tenzin Dorje** (reviewer)" in texts(at)
    # the session is a signed token kept for this browser (a cookie), never in the address
    assert "s" not in at.query_params
    token = at.session_state["wb_token"]
    assert audit.accounts.verify_session(token, db=db).name == "Tenzin Dorje"
    at.button(key="signout").click().run()
    assert "Name" in [t.label for t in at.text_input]
    with pytest.raises(audit.SignInError):  # signing out ends the session everywhere
        audit.accounts.verify_session(token, db=db)


def test_wrong_password_and_lead_role(db, monkeypatch):
    ensure_account("Pema", "lead")   # $WORKBENCH_LEADS no longer promotes once accounts exist
    at = start()
    apptest_sign_in(at, "Pema", password="wrong-password", create=False)
    assert "The name or the password is not right." in [e.value for e in at.error]
    assert not queue_ids(at)
    apptest_sign_in(at, "Pema", password=PASSWORD, create=False)
    assert "Signed in as **Pema** (lead reviewer)" in texts(at)


@pytest.mark.slow
def test_sign_in_is_rate_limited(db):
    ensure_account("Karma")
    at = start()
    for _ in range(MAX_FAILURES):
        apptest_sign_in(at, "Karma", password="not-the-password", create=False)
    apptest_sign_in(at, "Karma", password=PASSWORD, create=False)   # the right one, but too late
    assert any("Too many failed sign-ins" in e.value for e in at.error)
    assert not queue_ids(at)
    assert sql(db, "SELECT failures FROM login_failures WHERE name_key = 'karma'")[0][0] == 5


def test_reviewers_see_no_admin_page_and_no_database_path(db):
    at = start("Tenzin")
    assert "Signed in as **Tenzin** (reviewer)" in texts(at)
    assert str(db) not in texts(at)
    admin = start("test-admin")
    assert str(db) in texts(admin)


@pytest.mark.slow
def test_demo_banner_when_the_database_is_created_on_first_start(tmp_path, monkeypatch):
    path = tmp_path / "fresh" / "workbench.duckdb"
    monkeypatch.setenv("AUDIT_DB", str(path))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert path.exists()
    assert any("Demo data" in i.value for i in at.info)
    assert sql(path, "SELECT count(*) FROM questions WHERE benchmark = 'demo'")[0][0] > 0
    # a newcomer gets in with the demo accounts the banner shows; no database path before sign-in
    banner = next(i.value for i in at.info if "Demo data" in i.value)
    assert "**lead** / `demo-lead` (lead reviewer)" in banner and "**reviewer** / `demo-reviewer` (reviewer)" in banner
    assert str(path) not in texts(at)
    apptest_sign_in(at, "reviewer", password="demo-reviewer", create=False)
    assert "Signed in as **reviewer** (reviewer)" in texts(at) and queue_ids(at)
    assert sql(path, "SELECT name, role FROM accounts ORDER BY name") == [
        ("admin", "admin"), ("lead", "lead"), ("reviewer", "reviewer"), ("reviewer2", "reviewer")]

    # A restarted server still says it is demo data ...
    st.cache_resource.clear()
    again = AppTest.from_file(APP, default_timeout=120)
    again.run()
    assert any("Demo data" in i.value for i in again.info)
    # ... until a real benchmark is imported.
    from audit.ingest.storing import store_questions
    from audit.store import connect, transaction
    from audit.store.records import Option, Question

    with connect(path) as con, transaction(con):
        store_questions(
            con, "real", "questions", [Question("real", "q1", "Stem", [Option("A", "x"), Option("B", "y")], "A")]
        )
    st.cache_resource.clear()
    real = AppTest.from_file(APP, default_timeout=120)
    real.run()
    assert not any("Demo data" in i.value for i in real.info)


# --------------------------------------------------------------------- queue

def test_queue_defaults_to_tier_1_2_in_evidence_order_with_progress(db):
    at = start("Tenzin")
    want = flagged(db)
    assert want, "the demo database has Tier 1–2 items"
    shown = queue_ids(at)
    assert shown == [q for q, _, _ in want][:25]
    assert f"0 of {len(want)} reviewed" in at.get("progress")[0].proto.text


@pytest.mark.slow
def test_queue_filters_by_tier_subject_and_status(db):
    at = start("Tenzin")
    at.multiselect(key="w_tiers").set_value([3]).run()
    shown = queue_ids(at)
    tier3 = {q for (q,) in sql(db, "SELECT question_id FROM current_audit WHERE benchmark='demo' AND tier = 3")}
    assert shown and set(shown) <= tier3 and len(shown) == min(25, len(tier3))

    at.multiselect(key="w_tiers").set_value([]).run()  # all tiers
    subject = sql(db, "SELECT subject FROM questions WHERE benchmark='demo' ORDER BY seq LIMIT 1")[0][0]
    at.multiselect(key="w_subjects").set_value([subject]).run()
    in_subject = {q for (q,) in sql(db, "SELECT question_id FROM questions WHERE benchmark='demo' AND subject = ?",
                                    [subject])}
    shown = queue_ids(at)
    assert shown and set(shown) <= in_subject

    # reviewed by me: nothing, then the one item I reviewed
    at.multiselect(key="w_subjects").set_value([]).run()
    at.selectbox(key="w_status").select("reviewed_by_me").run()
    assert queue_ids(at) == []
    target = flagged(db)[0][0]
    audit.review.add_review("demo", target, "Tenzin", "key_correct", db=db)
    at.run()
    assert queue_ids(at) == [target]
    at.selectbox(key="w_status").select("unreviewed").run()
    assert target not in queue_ids(at)
    # the default for a reviewer: what still needs my verdict (not the item I reviewed)
    at.multiselect(key="w_tiers").set_value([1, 2]).run()
    at.selectbox(key="w_status").select("needs_me").run()
    assert queue_ids(at) == [q for q, _, _ in flagged(db) if q != target][:25]


def test_queue_paginates(db):
    at = start("Tenzin")
    at.multiselect(key="w_tiers").set_value([]).run()
    first = queue_ids(at)
    assert len(first) == 25
    at.button(key="page_next").click().run()
    second = queue_ids(at)
    assert second and not set(first) & set(second)
    at.button(key="page_prev").click().run()
    assert queue_ids(at) == first


# --------------------------------------------------------------------- saving

@pytest.mark.slow
def test_saving_a_verdict_appends_a_row_and_shows_history(db):
    at = start("Tenzin")
    qid = queue_ids(at)[0]
    open_item(at, qid)
    answer = wrong_answer(db, qid)
    fill_verdict(at, qid, "key_wrong", answer=answer, cause="translation", rationale="སྐད་ཡིག meaning shifted")
    at.button(key="save").click().run()
    assert not at.exception, at.exception
    assert saved(at, "Verdict", qid)
    rows = sql(db, "SELECT reviewer, verdict, corrected_answer, cause, rationale, source, app_version, "
                   "is_adjudication FROM reviews WHERE question_id = ?", [qid])
    assert rows == [("Tenzin", "key_wrong", answer, "translation", "སྐད་ཡིག meaning shifted", "workbench",
                     audit.__version__, False)]
    # Save moved on to the next item that still needs Tenzin (computed here in SQL, independently)
    # (default queue order: the key-error score with the evidence so far, then tier)
    nxt = sql(db, """
        WITH ev AS (
            SELECT k.question_id, CASE WHEN e.run_id = k.run_id THEN e.score ELSE k.score END AS score
            FROM key_error_scores k LEFT JOIN key_error_evidence e USING (benchmark, question_id)
            WHERE k.benchmark = 'demo' AND k.run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = 'demo'))
        SELECT r.question_id FROM audit_results r JOIN questions q USING (benchmark, question_id)
        LEFT JOIN ev USING (question_id)
        WHERE r.run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = 'demo') AND r.tier IN (1, 2)
          AND r.question_id NOT IN (SELECT question_id FROM reviews WHERE reviewer = 'Tenzin')
        ORDER BY ev.score DESC NULLS LAST, r.tier, r.agreement_count DESC, q.seq, q.question_id LIMIT 1""")[0][0]
    assert nxt != qid and shows_item(at, nxt)
    # back to the item: the history shows the corrected answer, cause and rationale in plain words
    at.session_state["wb_current"] = ("demo", qid)
    at.run()
    assert shows_item(at, qid)
    hist = history(at)
    assert list(hist["Reviewer"]) == ["Tenzin"] and list(hist["Verdict"]) == ["Key wrong"]
    assert list(hist["Corrected answer"]) == [answer] or list(hist["Corrected answer"]) == [
        f'{answer} ({ {"A": "ཀ", "B": "ཁ", "C": "ག", "D": "ང"}[answer]})']
    assert list(hist["Cause"]) == ["Meaning lost in translation"]
    assert list(hist["Why"]) == ["སྐད་ཡིག meaning shifted"]
    assert "key_wrong" not in [m.value for m in at.markdown] and "translation" not in list(hist["Cause"])
    # with "move on" off, a second save stays here and appends a second row (nothing overwritten)
    move_on(at, False)
    assert at.text_area(key=f"form::demo::{qid}::rationale").value == ""
    fill_verdict(at, qid, "key_correct", rationale="on second thought")
    at.button(key="save").click().run()
    assert shows_item(at, qid)
    assert sql(db, "SELECT verdict FROM reviews WHERE question_id = ? ORDER BY review_id", [qid]) == [
        ("key_wrong",), ("key_correct",)]
    assert list(history(at)["Verdict"]) == ["Key wrong", "Key correct"]


def test_start_reviewing_opens_the_first_item_that_needs_me(db):
    first = flagged(db)[0][0]
    audit.review.add_review("demo", first, "Tenzin", "key_correct", db=db)
    order = [q for q, _, _ in flagged(db)]   # (the verdict may move items: the queue re-ranks)
    second = next(q for q in order if q != first)
    at = start("Tenzin")
    at.selectbox(key="w_status").select("all").run()
    assert queue_ids(at)[0] == order[0]    # the queue (every status) in the order computed here…
    at.button(key="start_first").click().run()
    assert not at.exception, at.exception
    assert shows_item(at, second)          # …and Start reviewing skips the item done by me


@pytest.mark.slow
def test_outcome_states_the_settled_verdict(db):
    qid = flagged(db)[0][0]
    answer = wrong_answer(db, qid)
    audit.review.add_review("demo", qid, "Ann", "key_wrong", corrected_answer=answer, db=db)
    audit.review.add_review("demo", qid, "Tenzin", "key_wrong", corrected_answer=answer, db=db)
    # an option is named as the item itself shows it: the demo's items (Tibetan ones too) label them A–D
    assert audit.review.item_view("demo", qid, db=db).shown_labels[answer] == answer
    shown = answer
    at = start("Tenzin")
    at.session_state["wb_current"] = ("demo", qid)
    at.session_state["wb_goto"] = "item"
    at.run()
    assert shows_item(at, qid)
    assert any(f"Settled: key wrong → {shown}" in h.proto.body for h in at.get("html"))


def test_save_without_verdict_or_answer_is_refused(db):
    at = start("Tenzin")
    qid = queue_ids(at)[0]
    open_item(at, qid)
    at.button(key="save").click().run()
    assert any("Choose a verdict first" in e.value for e in at.error)
    at.button(key="vbtn_key_wrong").click().run()
    at.button(key="save").click().run()
    assert any("choose the corrected answer" in e.value for e in at.error)
    assert sql(db, "SELECT count(*) FROM reviews")[0][0] == 0


def test_next_and_previous_follow_the_queue_filter(db):
    at = start("Tenzin")
    ids = queue_ids(at)
    open_item(at, ids[0])
    assert at.button(key="nav_prev").disabled
    at.button(key="nav_next").click().run()
    assert shows_item(at, ids[1])
    at.button(key="nav_prev").click().run()
    assert shows_item(at, ids[0])


# --------------------------------------------------------------------- double review

def test_others_verdicts_are_hidden_until_i_save_mine(db):
    qid = flagged(db)[0][0]
    audit.review.add_review("demo", qid, "Other Reviewer", "key_correct", rationale="looks fine", db=db)
    at = start("Tenzin")
    open_item(at, qid)
    assert any("hidden until you save your own" in i.value for i in at.info)
    assert "Other Reviewer" not in texts(at)
    assert history(at) is None
    move_on(at, False)
    fill_verdict(at, qid, "key_wrong", answer=wrong_answer(db, qid))
    at.button(key="save").click().run()
    hist = history(at)
    assert sorted(hist["Reviewer"]) == ["Other Reviewer", "Tenzin"]


@pytest.mark.slow
def test_dispute_goes_to_lead_adjudication(db, monkeypatch):
    qid = flagged(db)[0][0]
    answer = wrong_answer(db, qid)
    audit.review.add_review("demo", qid, "Other Reviewer", "key_correct", db=db)
    audit.review.add_review("demo", qid, "Tenzin", "key_wrong", corrected_answer=answer, db=db)
    ensure_account("Pema", "lead")   # $WORKBENCH_LEADS no longer promotes once accounts exist

    # a reviewer who is not a lead sees a normal form
    at = start("Karma")
    at.selectbox(key="w_status").select("disputed").run()
    assert queue_ids(at) == [qid]
    open_item(at, qid)
    assert "#### Your verdict" in texts(at) and "#### Adjudication" not in texts(at)

    st.cache_resource.clear()
    lead = start("Pema")
    lead.selectbox(key="w_status").select("disputed").run()
    assert queue_ids(lead) == [qid]
    open_item(lead, qid)
    assert "#### Adjudication" in texts(lead)
    # the lead sees both verdicts before deciding
    assert sorted(history(lead)["Reviewer"]) == ["Other Reviewer", "Tenzin"]
    # a lead's verdict on a dispute decides it by default (unticked, it is one more verdict)
    assert lead.checkbox(key=f"form::demo::{qid}::adjudicate").value is True
    fill_verdict(lead, qid, "key_wrong", answer=answer, rationale="source key confirmed")
    lead.checkbox(key=f"form::demo::{qid}::adjudicate").check().run()
    lead.button(key="save").click().run()
    assert saved(lead, "Adjudication", qid)
    rows = sql(db, "SELECT reviewer, verdict, corrected_answer, is_adjudication FROM reviews "
                   "WHERE question_id = ? ORDER BY review_id", [qid])
    assert rows[-1] == ("Pema", "key_wrong", answer, True) and len(rows) == 3
    lead.button(key="back_queue").click().run()
    assert qid not in queue_ids(lead)  # no longer disputed
    lead.selectbox(key="w_status").select("done").run()
    assert qid in queue_ids(lead)


# --------------------------------------------------------------------- locked database

@pytest.mark.slow
def test_locked_database_shows_a_message_and_keeps_the_form(db, monkeypatch):
    # writers wait for the file; a holder that never lets go makes
    # the save give up after the timeout, shortened here
    monkeypatch.setenv("AUDIT_DB_TIMEOUT", "1")
    at = start("Tenzin")
    qid = queue_ids(at)[0]
    open_item(at, qid)
    answer = wrong_answer(db, qid)
    fill_verdict(at, qid, "key_wrong", answer=answer, rationale="keep this text")

    # an `audit` command holding the file (it asks the app's idle read connection to let go, as every
    # audit writer does, then keeps the file)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from audit.store import connect\n"
         "with connect(sys.argv[1]) as c:\n    print('locked', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert holder.stdout.readline().strip() == "locked"
        at.button(key="save").click().run()
        assert not at.exception, at.exception
        assert any("database is busy" in e.value for e in at.error)
        # the item stays on screen (served from the read cache, or as last loaded when a read hits the lock)
        assert shows_item(at, qid) and at.get("html")
        # the unsaved form is still there
        assert at.text_area(key=f"form::demo::{qid}::rationale").value == "keep this text"
        assert at.selectbox(key=f"form::demo::{qid}::answer").value == answer
        assert at.button(key="vbtn_key_wrong").proto.type == "primary"
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert sql(db, "SELECT count(*) FROM reviews")[0][0] == 0
    at.button(key="save").click().run()  # retry once the file is free
    assert saved(at, "Verdict", qid)
    assert sql(db, "SELECT reviewer, verdict, corrected_answer, rationale FROM reviews") == [
        ("Tenzin", "key_wrong", answer, "keep this text")]


# --------------------------------------------------------------------- dashboards

def _dashboards_script():
    import streamlit as st

    from workbench.views import dashboards

    st.session_state["wb_reviewer"] = "Tenzin"
    dashboards.page()


@pytest.mark.slow
def test_dashboards_show_tiers_scenarios_progress_corrected_accuracy_and_kappa(db):
    ids = [q for q, _, _ in flagged(db)][:4]
    for i, q in enumerate(ids):
        ans = wrong_answer(db, q)
        audit.review.add_review("demo", q, "Ann", "key_wrong", corrected_answer=ans, db=db)
        audit.review.add_review("demo", q, "Bo", "key_wrong" if i else "key_correct",
                                corrected_answer=ans if i else None, db=db)
    at = AppTest.from_function(_dashboards_script, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert len(at.tabs) == 10
    assert [t.label for t in at.tabs][-1] == "Reviewers"   # each reviewer's reliability
    # first tab: what wrong keys cost each model, from audit.analyze.impact_summary
    imp = audit.analyze.impact_summary("demo", db=db)
    cost = frame_with(at, "cost (points)").set_index("model")
    want = imp["wrong_key_cost"].set_index("model")["cost_points"].round(2)
    assert cost["cost (points)"].to_dict() == want.to_dict()
    e = imp["expected_wrong_keys"]
    assert any(f"About **{e['estimate']:.1f}** of the {e['n_items']} keys are probably wrong" in m.value
               for m in at.markdown)
    assert any("explained by key errors" in c for d in at.dataframe for c in map(str, d.value.columns))
    # tiers per subject: counts add up to the number of audited items
    n_items = sql(db, "SELECT count(*) FROM current_audit WHERE benchmark = 'demo'")[0][0]
    assert frame_with(at, "Items")["Items"].sum() == n_items
    # progress per reviewer: Ann and Bo, 4 items each
    prog = frame_with(at, "Items reviewed").set_index("Reviewer")["Items reviewed"].to_dict()
    assert prog == {"Ann": 4, "Bo": 4}
    # corrected keys: 3 settled key_wrong items (the 4th is disputed)
    corr = frame_with(at, "Accuracy (corrected keys)")
    assert any("3 key(s) corrected" in m.value for m in at.markdown)
    assert {"Model", "Accuracy (original keys)", "Accuracy (corrected keys)", "Change (points)"} <= set(corr.columns)
    # no raw column codes in any table a reviewer sees
    for d in at.dataframe:
        assert not {"n_items", "accuracy_corrected", "ci_low", "n_valid_original", "bucket"} & set(d.value.columns)
    # kappa: one pair, 4 common items — too few: said in words, and no kappa figure is shown
    kap = frame_with(at, "Agreement beyond chance (kappa)")
    assert list(kap["Items"]) == [4]
    assert kap["Agreement beyond chance (kappa)"].isna().all()
    assert any("Too few items for kappa" in w.value and "4 reviewed by two people" in w.value for w in at.warning)


def test_item_page_shows_the_judge_verdict_escaped(db):
    qid = flagged(db)[0][0]
    con = duckdb.connect(str(db))
    try:
        con.execute("""INSERT INTO judge_verdicts (benchmark, question_id, judge, prompt_version, answer_key_correct,
                       correct_answer, explanation, confidence, raw_reply, parse_ok, source)
                       VALUES ('demo', ?, 'judge-x', 'v1', false, 'A', '<b>A</b> fits the CMMLU source', 0.8,
                               'raw', true, 'import')""", [qid])
    finally:
        con.close()
    at = start("Tenzin")
    open_item(at, qid)
    bodies = [h.proto.body for h in at.get("html")]
    judge = [b for b in bodies if "Judge judge-x" in b]
    assert judge, "the judge verdict is shown"
    assert "key wrong → A, confidence 0.80" in judge[0]
    assert "&lt;b&gt;A&lt;/b&gt; fits the CMMLU source" in judge[0] and "<b>A</b>" not in judge[0]


def test_item_page_says_why_the_item_is_here_in_plain_words(db):
    qid = flagged(db)[0][0]
    at = start("Tenzin")
    open_item(at, qid)
    texts = [m.value for m in at.markdown]
    assert "#### Why this item is here" in texts
    why = texts[texts.index("#### Why this item is here") + 1]
    assert "models" in why and "Overall, the key of this item is wrong with a chance of" in why
    assert "llr" not in why and "tier" not in why.lower() and "%" not in why and "times" not in why
    # the same reasons in the reviewer's interface language
    at.session_state["wb_lang"] = "zh-Hans"
    at.run()
    texts = [m.value for m in at.markdown]
    zh = [x for x in texts if "总的来说" in x]
    assert zh and "{" not in zh[0]


# --------------------------------------------------------------------- rendering (pure HTML)

def test_render_scripts_and_escaping():
    from workbench import render

    bo = render.question_html("ཀ་ཁ་ག", [("A", "ཀ"), ("B", "ཁ")], script="Tibt", answer_key="B")
    assert 'lang="bo"' in bo and "Noto Serif Tibetan" in bo and "(ཁ)" in bo
    ug = render.question_html("سوئال", [("A", "بىر"), ("B", "ئىككى")], script="Arab", language="ug")
    assert ug.count('dir="rtl"') >= 3 and "Noto Naskh Arabic" in ug
    mn = render.question_html("ᠮᠣᠩᠭᠣᠯ", [("A", "ᠨᠢᠭᠡ"), ("B", "ᠬᠣᠶᠠᠷ")], script="Mong")
    assert "wb-vertical" in mn and "Noto Sans Mongolian" in mn
    # script detected from the text when the column is empty
    assert 'data-script="Tibt"' in render.question_html("བོད", [("A", "x"), ("B", "y")], script=None)
    # nothing from the data can open a tag or an attribute
    evil = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
    h = render.question_html(evil, [("A", evil), ("B", "ok")], script="Arab", language=evil, answer_key="A",
                             counts={"A": 1}, n_answers=2)
    assert "<script" not in h and "<img" not in h and 'lang="&quot;&gt;' in h
    row = render.queue_row_html(subject=evil, tier=1, agreement_count=3, n_models=4, top_answer=evil,
                                answer_key=evil, status="disputed", structure_suspect=True, key_mismatch=True,
                                reviewed_by_me=False, stem=evil, script=None, language=evil)
    assert "<script" not in row and "<img" not in row
    assert "<script" not in render.family_table_html([(evil, {"A": 1}, 0)], ["A", "B"], "A")
    assert "<script" not in render.warnings_html([evil])


def test_unsaved_draft_survives_moving_to_another_item_and_back(db):
    at = start("Tenzin")
    ids = queue_ids(at)
    open_item(at, ids[0])
    fill_verdict(at, ids[0], "ambiguous", rationale="two readings of the stem")
    at.button(key="nav_next").click().run()
    assert shows_item(at, ids[1])
    at.button(key="nav_prev").click().run()
    assert shows_item(at, ids[0])
    assert at.text_area(key=f"form::demo::{ids[0]}::rationale").value == "two readings of the stem"
    assert at.button(key="vbtn_ambiguous").proto.type == "primary"
    assert sql(db, "SELECT count(*) FROM reviews")[0][0] == 0
