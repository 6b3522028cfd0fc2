"""Settlement: each status case by hand, then random review histories
checked against an independent pure-Python implementation of the rule."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from audit.review import add_review, add_reviews, review_status, set_required_reviews, settled_verdicts
from tests.support.review_bench import bench_copy

T0 = datetime(2026, 3, 1, 9, 0)


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    return bench_copy(tmp_path)  # q01–q04 tier 1, q05–q06 tier 2, q07–q12 tier 5


def _status(db, reviewer=None):
    return review_status("bench", reviewer=reviewer, db=db).set_index("question_id")


def test_each_settlement_case(db):
    r = lambda q, who, v, a=None, **kw: add_review("bench", q, who, v, corrected_answer=a, db=db, **kw)
    r("q01", "ann", "key_wrong", "B", cause="key_slip"); r("q01", "bo", "key_wrong", "B", cause="translation")
    r("q01", "cy", "key_wrong", "B", cause="translation")                                 # agreeing → done
    r("q02", "ann", "key_wrong", "B"); r("q02", "bo", "key_wrong", "C")                   # answers differ → disputed
    r("q03", "ann", "key_wrong", "B"); r("q03", "bo", "key_correct")
    r("q03", "lead", "key_wrong", "D", is_adjudication=True, rationale="D per the source")  # adjudicated → done
    r("q04", "ann", "ambiguous"); r("q04", "bo", "ambiguous")                             # agreeing ambiguous
    r("q05", "ann", "defective"); r("q05", "bo", "skip")                                  # skip does not count
    r("q06", "ann", "skip")                                                               # only a skip → unreviewed
    r("q07", "ann", "defective")                                                          # tier 5 needs one
    r("q08", "ann", "key_correct"); r("q08", "bo", "key_wrong", "C")
    r("q08", "bo", "key_correct", revision=True)                      # bo changed their mind → agreement
    s = _status(db, reviewer="bo")
    expected = {"q01": "done", "q02": "disputed", "q03": "done", "q04": "done", "q05": "needs_second_review",
                "q06": "unreviewed", "q07": "done", "q08": "done", "q09": "unreviewed"}
    assert s.loc[list(expected), "status"].to_dict() == expected
    assert s.loc["q01", "n_reviews"] == 3 and s.loc["q01", "n_reviewers"] == 3 and s.loc["q01", "required"] == 2
    assert s.loc["q07", "required"] == 1 and s.loc["q05", "n_verdicts"] == 1
    assert bool(s.loc["q03", "adjudicated"]) and not bool(s.loc["q02", "adjudicated"])
    assert bool(s.loc["q05", "reviewed_by_me"]) is False  # bo only skipped q05
    assert bool(s.loc["q08", "reviewed_by_me"]) is True
    assert s.loc["q08", "n_reviews"] == 3 and s.loc["q08", "n_verdicts"] == 2

    v = settled_verdicts("bench", db=db).set_index("question_id")
    assert list(v.index) == ["q01", "q03", "q04", "q07", "q08"]
    assert v.loc["q01", ["verdict", "corrected_answer", "cause", "reviewers"]].tolist() == [
        "key_wrong", "B", "translation", "ann, bo, cy"]  # the cause most reviewers gave
    assert v.loc["q03", ["verdict", "corrected_answer", "adjudicator", "rationale"]].tolist() == [
        "key_wrong", "D", "lead", "D per the source"]
    assert v.loc["q03", "reviewers"] == "ann, bo, lead" and bool(v.loc["q03", "adjudicated"])
    assert v.loc["q04", "verdict"] == "ambiguous" and v.loc["q07", "verdict"] == "defective"
    assert v.loc["q08", "verdict"] == "key_correct" and v.loc["q08", "n_reviews"] == 3
    assert v.loc["q01", "answer_key"] == "A" and v.loc["q01", "tier"] == 1
    for col in ["question_id", "verdict", "corrected_answer", "cause", "reviewers", "n_reviews", "adjudicated",
                "last_reviewed_at"]:
        assert col in v.reset_index().columns


def test_required_reviews_setting_changes_settlement(db):
    add_review("bench", "q01", "ann", "key_correct", db=db)
    add_review("bench", "q01", "bo", "key_correct", db=db)
    add_review("bench", "q09", "ann", "key_correct", db=db)
    assert _status(db).loc[["q01", "q09"], "status"].tolist() == ["done", "done"]
    set_required_reviews(flagged=3, other=2, db=db)
    s = _status(db)
    assert s.loc[["q01", "q09"], "status"].tolist() == ["needs_second_review", "needs_second_review"]
    assert s.loc[["q01", "q09"], "required"].tolist() == [3, 2]


def test_latest_means_insertion_order_not_claimed_time(db):
    # a time claimed by a file never reorders verdicts; the row
    # recorded last is the reviewer's current one
    add_review("bench", "q01", "ann", "key_wrong", corrected_answer="B", created_at=T0 + timedelta(hours=2), db=db)
    add_review("bench", "q01", "ann", "key_correct", created_at=T0, revision=True, db=db)
    add_review("bench", "q01", "bo", "key_wrong", corrected_answer="B", created_at=T0 + timedelta(hours=1), db=db)
    assert settled_verdicts("bench", db=db).empty          # ann now says key_correct, bo key_wrong
    assert _status(db).loc["q01", "status"] == "disputed"


# ---- random histories against an independent implementation -------------

def reference_status(rows, tier, flagged=2, other=1):
    """The settlement rule written out plainly: (status, verdict, answer)."""
    order = sorted(rows, key=lambda r: (r["created_at"], r["review_id"]))
    adjs = [r for r in order if r["is_adjudication"]]
    if adjs:
        return "done", adjs[-1]["verdict"], adjs[-1]["corrected_answer"]
    current = {}
    for r in order:
        if r["verdict"] != "skip":
            current[r["reviewer"]] = r
    if not current:
        return "unreviewed", None, None
    opinions = {(r["verdict"], r["corrected_answer"]) for r in current.values()}
    if len(opinions) > 1:
        return "disputed", None, None
    (verdict, answer), = opinions
    need = flagged if tier in (1, 2) else other
    return ("done", verdict, answer) if len(current) >= need else ("needs_second_review", None, None)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_settlement_matches_reference_on_random_histories(tmp_path, monkeypatch, seed):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    db = bench_copy(tmp_path)
    rng = random.Random(seed)
    tiers = {f"q{i:02d}": (1 if i <= 4 else 2 if i <= 6 else 5) for i in range(1, 13)}
    rows = []
    for q in tiers:
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 5])):
            verdict = rng.choice(["key_correct", "key_correct", "key_wrong", "key_wrong", "ambiguous",
                                  "defective", "skip"])
            adj = verdict != "skip" and rng.random() < 0.1
            rows.append({
                "question_id": q, "reviewer": "lead" if adj else rng.choice(["ann", "bo", "cy"]),
                "verdict": verdict, "corrected_answer": rng.choice("BC") if verdict == "key_wrong" else None,
                "is_adjudication": adj, "created_at": T0 + timedelta(minutes=rng.randrange(0, 50)),
                "revision": True,   # a reviewer's second verdict on an item is an explicit revision
            })
    saved = add_reviews("bench", rows, db=db)
    by_item: dict = {q: [] for q in tiers}
    for r in saved:
        by_item[r.question_id].append({"review_id": r.review_id, "reviewer": r.reviewer, "verdict": r.verdict,
                                       "corrected_answer": r.corrected_answer, "created_at": r.created_at,
                                       "is_adjudication": r.is_adjudication})
    status = _status(db)
    settled = settled_verdicts("bench", db=db).set_index("question_id")
    for q, hist in by_item.items():
        st, verdict, answer = reference_status(hist, tiers[q])
        assert status.loc[q, "status"] == st, (q, hist)
        if st == "done":
            assert settled.loc[q, "verdict"] == verdict
            got = settled.loc[q, "corrected_answer"]
            assert (None if got is None or got != got else got) == answer
        else:
            assert q not in settled.index
