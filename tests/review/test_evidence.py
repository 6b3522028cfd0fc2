"""A verdict refreshes the stored combined key-error score
(``audit.review.evidence.refresh_evidence``).  After every verdict the
stored rows must equal a full recompute, and exactly the rows whose values
changed are rewritten: none after a verdict that settles nothing; after a
settling verdict the item itself and every unsettled scored item, whose
share of the level moves (the settled wrong keys are part of the level's
total) — on a real DuckDB file."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from audit.analyze import analyze_benchmark
from audit.review import add_review, evidence_scores
from audit.review.evidence import refresh_evidence
from audit.store import connect, transaction
from tests.support.analyze_data import make_benchmark
from tests.support.wrong_keys import wrong_key_votes

PARALLEL = [0, 1, 5, 8, 25, 26, 44, 47, 52, 58]
JUDGED = list(range(14, 44, 3))
NUM = ["score", "p_reject", "prior_logit", "llr_parallel", "llr_judges", "alloc_wrong", "alloc_right"]


def _bench(db, tmp_path):
    """60 items in 3 subjects (s0: q00–q19, …), 5 models; the items
    PARALLEL have a parallel key (q00, q01 disagreeing), JUDGED a judge verdict; q00 has a split vote and
    every 7th item a key most models reject (a subject rate well above 0)."""
    questions, preds, fams, _ = wrong_key_votes(60, 20, seed=7)
    for j, m in enumerate(fams):
        preds[("q00", m)] = "C" if j < 3 else "A"
    make_benchmark(db, "ev", questions, fams, preds)
    with connect(db) as con, transaction(con):
        for i in PARALLEL:
            match = i >= 2
            con.execute("INSERT INTO parallel_links VALUES ('ev', ?, 'par', ?, 'zh', 's', [], ?, ?)",
                        [f"q{i:02d}", f"p{i}", "A" if match else "C", match])
    analyze_benchmark("ev", db=db)
    from audit.judge import import_judge

    f = tmp_path / "j.jsonl"
    f.write_text("\n".join(json.dumps({"loc": f"q{i:02d}", "llm_validation": {
        "answer_key_correct": i % 4 != 0, "correct_answer": "A" if i % 4 else "B"}}) for i in JUDGED) + "\n")
    import_judge(f, judge="judge-x", benchmark="ev", db=db)


def _stored(db) -> pd.DataFrame:
    with connect(db, read_only=True) as con:
        return con.execute("SELECT question_id, run_id, score, p_reject, prior_logit, llr_parallel, llr_judges, "
                           "alloc_wrong, alloc_right, n_judges, settled_verdict, updated_at FROM key_error_evidence "
                           "WHERE benchmark = 'ev' "
                           "ORDER BY question_id").df().set_index("question_id")


def _check_equals_full_recompute(db) -> pd.DataFrame:
    got = _stored(db)
    full = evidence_scores("ev", db=db).set_index("question_id").sort_index()
    assert list(got.index) == list(full.index)
    for c in NUM:
        np.testing.assert_allclose(got[c].to_numpy(float), full[c].to_numpy(float), rtol=1e-12, atol=1e-15,
                                   err_msg=c)
    assert (got["n_judges"].to_numpy() == full["n_judges"].to_numpy()).all()
    assert got["settled_verdict"].fillna("-").tolist() == full["settled_verdict"].fillna("-").tolist()
    return got


def _rewritten(before: pd.DataFrame, after: pd.DataFrame) -> set[str]:
    return set(after.index[after["updated_at"] != before.loc[after.index, "updated_at"]])


def _moved(before: pd.DataFrame, after: pd.DataFrame) -> set[str]:
    diff = pd.Series(False, index=after.index)
    for c in NUM:
        a, b = before.loc[after.index, c].to_numpy(float), after[c].to_numpy(float)
        diff |= ~((a == b) | (np.isnan(a) & np.isnan(b)))
    diff |= before.loc[after.index, "settled_verdict"].fillna("-") != after["settled_verdict"].fillna("-")
    return set(after.index[diff])


@pytest.mark.slow
def test_a_verdict_rewrites_exactly_the_rows_it_moves(tmp_path):
    db = tmp_path / "e.duckdb"
    _bench(db, tmp_path)
    # the first verdict stores the state (a full pass; the judge import came after the analysis)
    add_review("ev", "q45", "ann", "skip", db=db)
    s0 = _check_equals_full_recompute(db)
    subject = {f"q{i:02d}": f"s{i // 20}" for i in range(60)}

    steps = [
        # (question, reviewer, verdict, answer, adjudication, what may move)
        ("q40", "ann", "key_correct", None, False, "level"),        # s2, no parallel, no judge
        ("q40", "bob", "key_correct", None, False, "nothing"),      # already settled the same way
        ("q40", "bob", "key_wrong", "B", False, "level"),           # a dispute unsettles it
        ("q40", "lee", "key_wrong", "B", True, "level"),            # a lead settles it key_wrong
        ("q05", "ann", "key_correct", None, False, "level"),        # a parallel item
        ("q20", "ann", "key_correct", None, False, "level"),        # a judged item
        ("q33", "ann", "skip", None, False, "nothing"),
    ]
    from audit.accounts import add_account

    add_account("admin", "admin-password-1", role="admin", db=db)
    add_account("lee", "lead-password-1", role="lead", actor="admin", db=db)
    for who in ("ann", "bob"):   # once accounts exist, only enabled accounts record verdicts
        add_account(who, who + "-password-1", role="reviewer", actor="admin", db=db)
    before = s0
    for qid, who, verdict, answer, adj, what in steps:   # bob's second verdict on q40 is a revision
        add_review("ev", qid, who, verdict, corrected_answer=answer, is_adjudication=adj, revision=True, db=db)
        after = _check_equals_full_recompute(db)
        rewritten, moved = _rewritten(before, after), _moved(before, after)
        assert rewritten == moved, (qid, verdict, sorted(rewritten ^ moved))
        if what == "nothing":
            assert not rewritten, (qid, verdict)
        else:   # the item, and every unsettled item's share of the level
            assert qid in rewritten and len({subject[q] for q in rewritten}) == 3, (qid, verdict)
            assert len(rewritten) > 50
        before = after


def test_other_changes_are_picked_up_by_a_full_pass(tmp_path):
    """A judge import after the last verdict changes the fingerprint: the
    next refresh recomputes everything (and then matches the full pass)."""
    db = tmp_path / "e.duckdb"
    _bench(db, tmp_path)
    add_review("ev", "q45", "ann", "key_correct", db=db)
    _check_equals_full_recompute(db)
    from audit.judge import import_judge

    f = tmp_path / "j2.jsonl"
    f.write_text(json.dumps({"loc": "q45", "llm_validation": {"answer_key_correct": False, "correct_answer": "C"}})
                 + "\n")
    import_judge(f, judge="judge-y", benchmark="ev", db=db)
    with connect(db) as con, transaction(con):
        assert refresh_evidence(con, "ev") == 60            # full pass
        assert refresh_evidence(con, "ev") == 0             # nothing changed since
    _check_equals_full_recompute(db)


def test_no_scored_run_is_a_no_op(tmp_path):
    db = tmp_path / "e.duckdb"
    make_benchmark(db, "ev", [("q1", 4, "A")], {}, {})
    with connect(db) as con, transaction(con):
        assert refresh_evidence(con, "ev") == 0


@pytest.mark.parametrize("full", [True, False])
def test_forced_full_pass_matches(tmp_path, full):
    db = tmp_path / "e.duckdb"
    _bench(db, tmp_path)
    add_review("ev", "q05", "ann", "key_wrong", corrected_answer="C", db=db)
    with connect(db) as con, transaction(con):
        n = refresh_evidence(con, "ev", full=full)
    assert n == (60 if full else 0)
    _check_equals_full_recompute(db)
