"""Reviewers' work reaches the release: the proposed fix is in CHANGELOG.csv,
an adjudication without a cause takes the cause the reviewers it upholds
gave (``cause_from`` says which rule), and booleans read yes / no."""
from __future__ import annotations

import pandas as pd

import audit
from audit.store import connect
from audit.store.records import Option, Question
from tests.support.accounts import ensure_account


def test_changelog_has_the_fix_and_the_reviewers_cause(db_path, tmp_path):
    from audit.ingest.storing import store_questions

    db = db_path
    with connect(db) as con:
        store_questions(con, "b", "b", [Question("b", q, "?", [Option(L, L.lower()) for L in "ABCD"], "A")
                                        for q in ("q1", "q2")])
    for name, role in (("Pema", "reviewer"), ("Dolma", "reviewer"), ("Lhamo", "lead")):
        ensure_account(name, role, db=db)
    add = audit.review.add_review
    add("b", "q1", "Pema", "key_wrong", corrected_answer="B", cause="translation", proposed_fix="Reword B", db=db)
    add("b", "q1", "Dolma", "key_correct", db=db)
    add("b", "q1", "Lhamo", "key_wrong", corrected_answer="B", is_adjudication=True, db=db)   # no cause, no fix
    add("b", "q2", "Pema", "key_wrong", corrected_answer="C", cause="key_slip", db=db)
    add("b", "q2", "Dolma", "key_wrong", corrected_answer="C", cause="key_slip", db=db)
    s = audit.create_version("b", "1.1", db=db, exports_dir=tmp_path / "exports", actor="Lhamo")
    ch = pd.read_csv(s.path / "CHANGELOG.csv", dtype=str, keep_default_na=False).set_index("question_id")
    assert ch.loc["q1", ["cause", "cause_from", "adjudicated"]].tolist() == ["translation", "reviewers", "yes"]
    assert ch.loc["q1", "proposed_fix"] == "Pema: Reword B"
    assert ch.loc["q2", ["new_key", "cause", "cause_from", "adjudicated", "proposed_fix"]].tolist() == \
        ["C", "key_slip", "reviewers", "no", ""]
    settled = audit.review.settled_verdicts("b", db=db).set_index("question_id")
    assert settled.loc["q1", "proposed_fix"] == "Pema: Reword B"   # the adjudication upheld Pema's verdict
