"""The admin page's evidence-blind switch and guidelines editor (Streamlit
AppTest on a real DuckDB file), and what a reviewer then meets on the item
page: the question and the blind-answer form without the evidence, the
guidelines one click away, the verdict form once the blind answer is in."""
from __future__ import annotations

import pytest

import audit
from audit.review.blind import blind_review_enabled, get_blind_answer
from audit.review.guidelines import get_guidelines
from tests.workbench.test_app import _clear_caches, db, demo_template, open_item, queue_ids, start, texts  # noqa: F401

pytestmark = pytest.mark.slow


def _admin_page(at):
    at.session_state["wb_goto"] = "admin"
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_admin_sets_blind_review_and_guidelines_and_a_reviewer_answers_blind_first(db):
    at = _admin_page(start("test-admin", "admin"))
    at.toggle(key="admin_blind_on").set_value(True)
    next(b for b in at.button if b.label == "Save" and "admin_blind" in str(b.form_id)).click().run()
    assert not at.exception, at.exception
    assert blind_review_enabled(db=db)
    at.text_area(key="admin_guidelines_text::en").input("Read the **question** first.")
    next(b for b in at.button if b.label == "Save" and "admin_guidelines" in str(b.form_id)).click().run()
    assert not at.exception, at.exception
    g = get_guidelines("en", db=db)
    assert (g.version, g.text) == (1, "Read the **question** first.")

    rev = start("Blind Reviewer")
    qid = queue_ids(rev)[0]
    open_item(rev, qid)
    shown = texts(rev)
    assert "Your answer first" in shown and "Read the **question** first." in shown
    assert not any(b.key == "save" for b in rev.button)            # no verdict form yet
    assert not [e for e in rev.get("html") if 'class="wb-votes"' in e.proto.body]   # (the style sheet names it)
    view = audit.review.item_view("demo", qid, db=db)
    rev.radio(key=f"blind::demo::{qid}").set_value(view.question.options[0].label)
    rev.button(key="blind_save").click().run()
    assert not rev.exception, rev.exception
    assert get_blind_answer("demo", qid, "Blind Reviewer", db=db).answer == view.question.options[0].label
    assert any(b.key == "save" for b in rev.button)                # now the verdict form
    assert [e for e in rev.get("html") if 'class="wb-votes"' in e.proto.body or 'class="wb-bar' in e.proto.body]
