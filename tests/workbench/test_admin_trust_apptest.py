"""The admin page's "Reviewers' reliability" tab and the Dashboards page's
"Reviewers" tab in Streamlit's AppTest on a real DuckDB file: the tables
come from audit.review.reliability, and the tab's buttons call the library
as the signed-in admin."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from audit.accounts import add_account
from audit.review import add_gold, add_review
from audit.review.gold import list_gold
from audit.review.reports import report_error
from tests.support.campaign import analysed_benchmark

pytestmark = pytest.mark.slow   # real DuckDB files, analysed benchmarks, subprocesses: tens of seconds

B = "trust"
PW = "a long password 1"
TIMEOUT = 120


@pytest.fixture
def db(db_path, monkeypatch):
    keys = analysed_benchmark(db_path)
    add_account("Admin Nyima", PW, db=db_path)
    for r in ("Pema", "Tashi"):
        add_account(r, PW, actor="Admin Nyima", db=db_path)
    gold = sorted(keys)[:6]
    for qid in gold:
        add_gold(B, qid, keys[qid], actor="Admin Nyima", db=db_path)
    for i, qid in enumerate(gold):
        add_review(B, qid, "Pema", "key_correct", actor="Pema", db=db_path)
        add_review(B, qid, "Tashi", "key_correct" if i < 2 else "key_wrong",
                   corrected_answer=None if i < 2 else next(x for x in "ABCD" if x != keys[qid]), actor="Tashi",
                   db=db_path)
    for r in ("Pema", "Tashi"):                                        # one item settled by agreement
        add_review(B, "t010", r, "key_correct", actor=r, db=db_path)
    report_error(B, "t011", "<b>bold?</b> the key", name="Reader", db=db_path)
    monkeypatch.setenv("AUDIT_DB", str(db_path))
    return db_path


def _admin_script():
    import streamlit as st

    from workbench.views import admin

    st.session_state["wb_reviewer"] = "Admin Nyima"
    st.session_state["wb_role"] = "admin"
    admin.page()


def _dashboards_script():
    import streamlit as st

    from workbench.views import dashboards

    st.session_state["wb_reviewer"] = "Admin Nyima"
    st.session_state["wb_role"] = "admin"
    dashboards.page()


def _frame(at, column):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_the_admin_tab(db):
    at = AppTest.from_function(_admin_script, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    assert "Reviewers' reliability" in [t.label for t in at.tabs]
    rel = _frame(at, "Known-answer items").set_index("Reviewer")
    assert rel.loc["Tashi", "Known-answer items"] == 6 and rel.loc["Tashi", "Flagged"] == "flagged"
    assert rel.loc["Pema", "Flagged"] == ""
    assert any("Tashi" in w.value for w in at.warning)
    reports = _frame(at, "What is wrong")
    assert reports["What is wrong"].tolist() == ["<b>bold?</b> the key"]       # a text cell, not markup
    n0 = len(list_gold(B, db=db))
    next(b for b in at.button if b.label == "Mark every settled item").click().run()
    assert not at.exception, at.exception
    assert len(list_gold(B, db=db)) == n0 + 1


def test_the_dashboards_tab(db):
    at = AppTest.from_function(_dashboards_script, default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    tab = next(t for t in at.tabs if t.label == "Reviewers")
    assert tab is not None
    frames = [d.value for d in at.dataframe if "Known-answer items" in d.value.columns]
    assert len(frames) == 3                                            # overall, by language, by subject
    by_lang = next(f for f in frames if "Language" in f.columns)
    assert set(by_lang["Why"]) == {"Too few known-answer items to tell"}   # 3 per language each: too few
    assert any("too few to tell" in c.value for c in at.caption)
