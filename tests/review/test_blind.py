"""Evidence-blind review in the library: item_for_review withholds every
piece of evidence until the reviewer has answered blind, the blind answers
are append-only, and blind_agreement agrees with a count made by hand on a
seeded campaign; Label Studio tasks follow the setting."""
from __future__ import annotations

import json

import pandas as pd
import pytest

import audit
from audit.review import blind
from audit.store import connect
from audit.store.records import Option, Question
from tests.support.cli_process import run_audit

ITEMS = {   # id: key
    "q1": "A", "q2": "B", "q3": "C", "q4": "A", "q5": "D", "q6": "B",
}


@pytest.fixture
def camp(db_path):
    """Six items with model votes, a judge and a parallel source on q1;
    accounts: an admin, two reviewers and a lead; blind review on."""
    from audit.ingest.storing import store_questions
    from tests.support.accounts import ADMIN, ensure_account

    db = db_path
    with connect(db) as con:
        store_questions(con, "b", "b", [
            Question("b", q, f"Question {q}?", [Option(L, f"option {L} of {q}") for L in "ABCD"], k,
                     explanation=f"The answer is {k}", raw_text=f"Question {q}? answer {k}")
            for q, k in ITEMS.items()])
        con.execute("INSERT INTO parallel_links (benchmark, question_id, counterpart_source, counterpart_id, "
                    "counterpart_language, counterpart_stem, counterpart_options, counterpart_key, key_match) "
                    "VALUES ('b', 'q1', 'cmmlu', 'c1', 'zh-Hans', '平行题', "
                    "[{'label': 'A', 'text': '甲'}, {'label': 'B', 'text': '乙'}], 'B', false)")
    preds = pd.DataFrame([{"question_id": q, "model": f"{fam}-{i}", "answer": "B" if q == "q1" else k}
                          for q, k in ITEMS.items() for fam in ("llama", "qwen") for i in range(2)])
    path = db.parent / "preds.csv"
    preds.to_csv(path, index=False)
    audit.import_predictions(path, benchmark="b", db=db)
    audit.analyze_benchmark("b", db=db)
    for name, role in (("Pema", "reviewer"), ("Dolma", "reviewer"), ("Lhamo", "lead")):
        ensure_account(name, role, db=db)
    blind.set_blind_review(True, actor=ADMIN, db=db)
    return db


def _evidence_in(view) -> list[str]:
    """Which kinds of evidence a view (or its repr) still carries."""
    found = []
    if view.question.answer_key is not None:
        found.append("key")
    if view.families or any(o.n for o in view.option_counts) or any(o.is_key or o.is_top for o in view.option_counts):
        found.append("votes")
    if view.audit is not None:
        found.append("score/tier")
    if view.judges:
        found.append("judge")
    if view.parallel is not None or view.parallels:
        found.append("parallel")
    if view.question.explanation or view.question.raw_text or view.question.source_record:
        found.append("explanation/raw")
    return found


def test_no_evidence_before_the_blind_answer_all_of_it_after(camp):
    before = audit.review.item_for_review("b", "q1", reviewer="Pema", db=camp)
    assert before.evidence_hidden and _evidence_in(before) == []
    text = repr(before)
    assert "cmmlu" not in text and "llama" not in text and "The answer is" not in text
    assert [o.label for o in before.question.options] == list("ABCD")   # the question stays whole
    blind.record_blind_answer("b", "q1", "Pema", "B", db=camp)
    after = audit.review.item_for_review("b", "q1", reviewer="Pema", db=camp)
    assert not after.evidence_hidden and after.answered_blind and after.blind_answer == "B"
    assert set(_evidence_in(after)) == {"key", "votes", "score/tier", "parallel", "explanation/raw"}
    # another reviewer still sees nothing; with the setting off everyone sees everything
    assert audit.review.item_for_review("b", "q1", reviewer="Dolma", db=camp).evidence_hidden
    assert audit.review.item_for_review("b", "q1", reviewer=None, db=camp).evidence_hidden
    blind.set_blind_review(False, actor="test-admin", db=camp)
    assert not audit.review.item_for_review("b", "q1", reviewer="Dolma", db=camp).evidence_hidden


def test_others_verdicts_are_withheld_from_a_lead_on_a_dispute(camp):
    audit.review.add_review("b", "q2", "Pema", "key_correct", db=camp)
    audit.review.add_review("b", "q2", "Dolma", "key_wrong", corrected_answer="C", db=camp)
    assert audit.review.item_view("b", "q2", reviewer="Lhamo", db=camp).history   # the plain view shows them
    view = audit.review.item_for_review("b", "q2", reviewer="Lhamo", db=camp)
    assert view.evidence_hidden and view.history == [] and view.n_hidden == 2 and view.settled_answer is None


def test_blind_answers_are_append_only_and_checked(camp):
    with pytest.raises(audit.InputError, match="not one of the item's options"):
        blind.record_blind_answer("b", "q1", "Pema", "E", db=camp)
    with pytest.raises(audit.PermissionDeniedError, match="no enabled account"):
        blind.record_blind_answer("b", "q1", "nobody", "A", db=camp)
    with pytest.raises(audit.PermissionDeniedError):
        blind.record_blind_answer("b", "q1", "Pema", "A", actor="Dolma", db=camp)   # a reviewer for another
    assert blind.record_blind_answer("b", "q1", "pema", "ཁ", db=camp).answer == "B"   # Tibetan label read as B
    with pytest.raises(audit.InputError, match="already answered"):
        blind.record_blind_answer("b", "q1", "Pema", "C", db=camp)
    audit.review.add_review("b", "q2", "Dolma", "key_correct", db=camp)
    with pytest.raises(audit.InputError, match="already gave a verdict"):
        blind.record_blind_answer("b", "q2", "Dolma", "B", db=camp)
    assert blind.record_blind_answer("b", "q3", "Dolma", None, db=camp).answer is None   # "I cannot tell"
    with connect(camp, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM blind_answers").fetchall() == [(2,)]


def _seed(db) -> None:
    """Blind answers, then verdicts, on a small campaign (the hand count below)."""
    A = blind.record_blind_answer
    add = audit.review.add_review
    # q1 (key A): Pema blind B, Dolma blind B; both say key wrong -> B: settled key B
    for who, ans in (("Pema", "B"), ("Dolma", "B")):
        A("b", "q1", who, ans, db=db)
        add("b", "q1", who, "key_wrong", corrected_answer="B", db=db)
    # q2 (key B): Pema blind B -> key correct; Dolma blind C -> key correct (changed): settled key B
    A("b", "q2", "Pema", "B", db=db)
    add("b", "q2", "Pema", "key_correct", db=db)
    A("b", "q2", "Dolma", "C", db=db)
    add("b", "q2", "Dolma", "key_correct", db=db)
    # q3 (key C): Pema blind A -> key wrong A; Dolma blind C -> key correct; disputed, Lhamo blind C,
    # adjudicates key correct: settled key C
    A("b", "q3", "Pema", "A", db=db)
    add("b", "q3", "Pema", "key_wrong", corrected_answer="A", db=db)
    A("b", "q3", "Dolma", "C", db=db)
    add("b", "q3", "Dolma", "key_correct", db=db)
    A("b", "q3", "Lhamo", "C", db=db)
    add("b", "q3", "Lhamo", "key_correct", is_adjudication=True, db=db)
    # q4 (key A): Pema cannot tell -> ambiguous (not changed); Dolma blind A -> defective (changed);
    # disputed, never settled
    A("b", "q4", "Pema", None, db=db)
    add("b", "q4", "Pema", "ambiguous", db=db)
    A("b", "q4", "Dolma", "A", db=db)
    add("b", "q4", "Dolma", "defective", db=db)
    # q5 (key D): Pema blind D, no verdict yet
    A("b", "q5", "Pema", "D", db=db)
    # q6 (key B): a verdict without any blind answer does not count
    add("b", "q6", "Dolma", "key_correct", db=db)




def test_blind_agreement_matches_a_hand_count(camp):
    _seed(camp)
    got = blind.blind_agreement("b", db=camp).set_index("reviewer")
    # Hand count.  Settled keys: q1 B, q2 B, q3 C (q4 disputed, q5 unreviewed).
    # Pema: blind q1 B ✓, q2 B ✓, q3 A ✗, q4 none, q5 D (unsettled) → 5 answers, 1 unsure,
    #   3 on settled items, 2 agree; verdicts after: q1 (B=B), q2 (key correct=key), q3 (wrong→A = A),
    #   q4 (none≈ambiguous) → 4 verdicts, 0 changed.
    # Dolma: q1 B ✓, q2 C ✗, q3 C ✓, q4 A (unsettled) → 4 answers, 0 unsure, 3 settled, 2 agree;
    #   verdicts: q1 same, q2 changed (C → key correct), q3 same, q4 changed (A=key → defective) → 4, 2 changed.
    # Lhamo: q3 C ✓ → 1, 0, 1, 1; adjudication key correct = blind C (the key) → 1 verdict, 0 changed.
    hand = {"Pema": (5, 1, 3, 2, 4, 0), "Dolma": (4, 0, 3, 2, 4, 2), "Lhamo": (1, 0, 1, 1, 1, 0)}
    cols = ["n_blind", "n_unsure", "n_settled", "n_agree", "n_verdicts", "n_changed"]
    assert {r: tuple(int(x) for x in got.loc[r, cols]) for r in hand} == hand
    assert got.loc["Pema", "agreement"] == pytest.approx(2 / 3) and got.loc["Dolma", "changed"] == pytest.approx(0.5)
    assert got.loc["Pema", "changed"] == 0.0


def test_review_status_json_reports_the_blind_figures(camp):
    _seed(camp)
    r = run_audit(["review", "status", "--benchmark", "b", "--all-tiers",
                   "--format", "json", "--db", str(camp)], module="audit")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    rows = {x["reviewer"]: x for x in out["blind"]}
    assert rows["Dolma"]["n_changed"] == 2 and rows["Dolma"]["changed"] == 0.5
    assert rows["Pema"]["n_agree"] == 2 and rows["Pema"]["agreement"] == pytest.approx(0.6667, abs=1e-4)
    assert out["progress"]["total"] == 6
    r = run_audit(["review", "status", "--benchmark", "b", "--all-tiers",
                   "--db", str(camp)], module="audit")
    assert "Dolma: 4 answered; 2 of 3 agree with the settled key (67%)" in r.stdout, r.stdout


def test_label_studio_tasks_follow_the_setting(camp):
    from audit.sync._push import build_tasks

    sel = pd.DataFrame({"benchmark": ["b"], "question_id": ["q1"]})
    with connect(camp, read_only=True) as con:
        task = build_tasks(con, sel)[0]
    assert task["answer_key"] is None and task["tier"] is None and "source_key" not in task
    assert "Current key" not in task["item_html"] and "cmmlu" not in json.dumps(task)
    blind.set_blind_review(False, actor="test-admin", db=camp)
    with connect(camp, read_only=True) as con:
        task = build_tasks(con, sel)[0]
    assert task["answer_key"] == "A" and task["source_key"] == "B" and "Current key" in task["item_html"]


def test_each_verdict_records_the_guideline_version(camp):
    from audit.review.guidelines import get_guidelines, set_guidelines

    assert audit.review.add_review("b", "q6", "Pema", "key_correct", db=camp).guideline_version is None
    assert set_guidelines("Answer first.", actor="test-admin", db=camp) == 1
    assert set_guidelines("ལན་སྔོན་ལ།", language="bo", actor="test-admin", db=camp) == 2
    assert set_guidelines("ལན་སྔོན་ལ།", language="bo", actor="test-admin", db=camp) == 2   # unchanged: no version
    with pytest.raises(audit.PermissionDeniedError):
        set_guidelines("x", actor="Lhamo", db=camp)
    r = audit.review.add_review("b", "q6", "Dolma", "key_correct", db=camp)
    assert r.guideline_version == 2
    assert audit.review.list_reviews("b", db=camp)["guideline_version"].tolist()[-2:] == [None, 2] or \
        audit.review.list_reviews("b", db=camp)["guideline_version"].isna().tolist()[-2:] == [True, False]
    assert get_guidelines("bo", db=camp).text == "ལན་སྔོན་ལ།" and get_guidelines("en", version=1, db=camp).version == 1
    assert blind.record_blind_answer("b", "q5", "Dolma", "D", db=camp).guideline_version == 2
