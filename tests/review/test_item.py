"""The item view: question, parallel item, predictions by family with
per-option counts, audit figures, judge verdicts, and the blind history."""
from __future__ import annotations

import pytest

from audit.accounts import set_leads
from audit.errors import NotFoundError
from audit.review import add_review, item_view
from audit.store import connect
from tests.support.review_bench import bench_copy, link_parallel

MODELS = {"claude-a": "anthropic", "claude-b": "anthropic", "gemini-c": "google", "gpt-d": "openai"}


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    path = bench_copy(tmp_path, models=MODELS)
    with connect(path) as con:  # make q01's answers varied: B, B, C, invalid
        con.execute(
            "UPDATE predictions SET answer = 'C', response = 'C it is' WHERE question_id = 'q01' AND model = 'gemini-c'"
        )
        con.execute("UPDATE predictions SET answer = NULL, valid = false, response = 'I cannot tell' "
                    "WHERE question_id = 'q01' AND model = 'gpt-d'")
    link_parallel(path, "bench", "q01", key="B", key_match=False)
    return path


def test_item_view_content(db):
    v = item_view("bench", "q01", reviewer="ann", db=db)
    q = v.question
    assert (q.question_id, q.stem, q.answer_key, q.subject, q.language, q.script) == (
        "q01", "stem of q01", "A", "history", "bo", "Tibt")
    assert [o.label for o in q.options] == ["A", "B", "C", "D"] and q.options[1].text == "option B of q01"
    assert [(f.family, [a.model for a in f.answers]) for f in v.families] == [
        ("anthropic", ["claude-a", "claude-b"]), ("google", ["gemini-c"]), ("openai", ["gpt-d"])]
    gpt = v.families[2].answers[0]
    assert (gpt.answer, gpt.valid, gpt.response) == (None, False, "I cannot tell")
    assert [(c.label, c.n, c.is_key, c.is_top) for c in v.option_counts] == [
        ("A", 0, True, False), ("B", 2, False, True), ("C", 1, False, False), ("D", 0, False, False)]
    assert v.n_invalid == 1
    assert (v.audit.tier, v.audit.top_answer, v.audit.n_models) == (1, "B", 4)
    assert v.parallel.key == "B" and v.parallel.key_match is False and v.parallel.stem == "中文 q01"
    assert [o.text for o in v.parallel.options] == ["选项A", "选项B", "选项C", "选项D"]
    assert (v.status, v.required, v.n_verdicts, v.history, v.judges) == ("unreviewed", 2, 0, [], [])
    s = item_view("bench", "q03", db=db)
    assert s.question.structure_suspect and s.question.structure_reason == "options merged"
    assert s.parallel is None and s.parallels == []
    with pytest.raises(NotFoundError, match="unknown question 'zz'"):
        item_view("bench", "zz", db=db)


def test_judge_verdicts_are_shown_when_present(db):
    with connect(db) as con:
        con.execute("INSERT INTO judge_verdicts (benchmark, question_id, judge, prompt_version, answer_key_correct, "
                    "correct_answer, explanation, confidence, parse_ok, source) VALUES "
                    "('bench', 'q01', 'gpt-judge', 'v1', false, 'B', 'B matches the source', 0.9, true, 'import'), "
                    "('bench', 'q02', 'gpt-judge', 'v1', true, NULL, 'fine', 0.8, true, 'import')")
    j = item_view("bench", "q01", db=db).judges
    assert [(x.judge, x.answer_key_correct, x.correct_answer, x.explanation, x.confidence) for x in j] == [
        ("gpt-judge", False, "B", "B matches the source", 0.9)]


def test_judge_table_is_read_defensively(db):
    with connect(db) as con:  # an older or foreign layout without most columns
        con.execute("DROP TABLE judge_verdicts")
        con.execute("CREATE TABLE judge_verdicts (question_id VARCHAR, judge VARCHAR, explanation VARCHAR)")
        con.execute("INSERT INTO judge_verdicts VALUES ('q01', 'j', 'why')")
    j = item_view("bench", "q01", db=db).judges
    assert [(x.judge, x.answer_key_correct, x.explanation, x.confidence) for x in j] == [("j", None, "why", None)]
    with connect(db) as con:
        con.execute("DROP TABLE judge_verdicts")
    assert item_view("bench", "q01", db=db).judges == []


def test_history_is_hidden_until_the_reviewer_saved_their_own(db):
    add_review("bench", "q01", "ann", "key_wrong", corrected_answer="B", rationale="ann's reason", db=db)
    add_review("bench", "q01", "bo", "skip", db=db)

    bo = item_view("bench", "q01", reviewer="bo", db=db)
    assert bo.history_hidden and bo.n_hidden == 1
    assert [(r.reviewer, r.verdict) for r in bo.history] == [("bo", "skip")]  # own skip only
    assert not any("ann" in (r.rationale or "") for r in bo.history)
    anon = item_view("bench", "q01", db=db)
    assert anon.history == [] and anon.history_hidden and anon.n_hidden == 2
    assert item_view("bench", "q01", reviewer="ann", db=db).history_hidden is False  # ann has saved hers

    add_review("bench", "q01", "bo", "key_correct", db=db)
    bo = item_view("bench", "q01", reviewer="bo", db=db)
    assert not bo.history_hidden and bo.n_hidden == 0
    assert [(r.reviewer, r.verdict) for r in bo.history] == [
        ("ann", "key_wrong"),
        ("bo", "skip"),
        ("bo", "key_correct"),
    ]
    assert bo.status == "disputed" and bo.reviewed_by_me and bo.my_latest.verdict == "key_correct"


def test_leads_see_disputed_items_others_do_not(db):
    set_leads(["Pema"], db=db)
    add_review("bench", "q02", "ann", "key_wrong", corrected_answer="B", db=db)
    add_review("bench", "q02", "bo", "key_correct", db=db)
    lead = item_view("bench", "q02", reviewer="pema", db=db)
    assert lead.is_lead and lead.can_adjudicate and not lead.history_hidden and len(lead.history) == 2
    other = item_view("bench", "q02", reviewer="cy", db=db)
    assert not other.can_adjudicate and other.history_hidden and other.history == []
    # not disputed: the lead is blind like everyone else
    add_review("bench", "q04", "ann", "key_correct", db=db)
    assert item_view("bench", "q04", reviewer="Pema", db=db).history_hidden
    # after adjudication the item is settled
    add_review("bench", "q02", "Pema", "key_wrong", corrected_answer="B", is_adjudication=True, db=db)
    assert item_view("bench", "q02", reviewer="Pema", db=db).status == "done"
