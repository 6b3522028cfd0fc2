"""A lead who saves a plain verdict on an item that is already disputed can
still settle it; a lead whose verdict was one of those that disagreed, or
who gave the only verdict, cannot (audit.review.dispute, enforced by
add_review and shown by item_view)."""
from __future__ import annotations

import pytest

import audit
from audit.store import connect
from audit.store.records import Option, Question
from tests.support.accounts import ensure_account


@pytest.fixture
def camp(db_path):
    from audit.ingest.storing import store_questions

    with connect(db_path) as con:
        store_questions(con, "b", "b", [Question("b", q, "?", [Option(L, L.lower()) for L in "ABCD"], "A")
                                        for q in ("q1", "q2", "q3")])
    for name, role in (("Pema", "reviewer"), ("Dolma", "reviewer"), ("Lhamo", "lead"), ("Karma", "lead")):
        ensure_account(name, role, db=db_path)
    return db_path


def _status(db, qid):
    return audit.review.review_status("b", db=db).set_index("question_id").loc[qid]


def test_a_lead_who_joins_a_dispute_can_still_settle_it(camp):
    add = audit.review.add_review
    add("b", "q1", "Pema", "key_correct", db=camp)
    add("b", "q1", "Dolma", "key_wrong", corrected_answer="B", db=camp)
    assert audit.review.item_view("b", "q1", reviewer="Lhamo", db=camp).can_adjudicate
    add("b", "q1", "Lhamo", "ambiguous", db=camp)                      # a plain verdict on the dispute
    view = audit.review.item_view("b", "q1", reviewer="Lhamo", db=camp)
    assert view.status == "disputed" and view.n_verdicts == 3 and view.can_adjudicate
    r = add("b", "q1", "Lhamo", "key_correct", is_adjudication=True, db=camp)
    assert r.is_adjudication and _status(camp, "q1")["status"] == "done"


def test_a_party_to_the_dispute_cannot_settle_it(camp):
    add = audit.review.add_review
    add("b", "q2", "Pema", "key_correct", db=camp)
    add("b", "q2", "Lhamo", "key_wrong", corrected_answer="C", db=camp)   # Lhamo's verdict starts the dispute
    assert not audit.review.item_view("b", "q2", reviewer="Lhamo", db=camp).can_adjudicate
    with pytest.raises(audit.PermissionDeniedError, match="gave a verdict on question 'q2'"):
        add("b", "q2", "Lhamo", "key_correct", is_adjudication=True, db=camp)
    assert audit.review.item_view("b", "q2", reviewer="Karma", db=camp).can_adjudicate
    # the only verdict: adjudicating it would settle the item single-handed
    add("b", "q3", "Karma", "key_correct", db=camp)
    with pytest.raises(audit.PermissionDeniedError):
        add("b", "q3", "Karma", "key_correct", is_adjudication=True, db=camp)


def test_a_joiner_becomes_a_party_once_the_others_agree(camp):
    add = audit.review.add_review
    add("b", "q1", "Pema", "key_correct", db=camp)
    add("b", "q1", "Dolma", "key_wrong", corrected_answer="B", db=camp)
    add("b", "q1", "Lhamo", "key_wrong", corrected_answer="C", db=camp)   # joins
    add("b", "q1", "Dolma", "key_correct", revision=True, db=camp)        # the others now agree: Lhamo alone disagrees
    assert not audit.review.item_view("b", "q1", reviewer="Lhamo", db=camp).can_adjudicate
