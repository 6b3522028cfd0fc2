"""audit.review.dashboard: the dashboards' data on the analysed toy
benchmark — tiers per subject (long and pivoted, checked against the stored
audit), progress per reviewer (counted by hand from the toy's reviews) and
per subject, and the benchmark list."""
from __future__ import annotations

import pandas as pd
import pytest

from audit.analyze import analyze_benchmark
from audit.review.dashboard import list_benchmarks, progress_by_reviewer, progress_by_subject, tier_by_subject
from audit.store import connect
from tests.support.toy_release import BENCH, toy_db


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("dashboard"), migrated_template)
    analyze_benchmark(BENCH, db=db)
    return db


def test_tier_by_subject_matches_the_stored_audit(toy):
    long = tier_by_subject(BENCH, db=toy)
    assert list(long.columns) == ["subject", "tier", "bucket", "n"]
    with connect(toy, read_only=True) as con:
        raw = con.execute("SELECT q.subject, a.tier FROM current_audit a "
                          "JOIN questions q USING (benchmark, question_id) WHERE a.benchmark = ?", [BENCH]).df()
    want = raw.groupby(["subject", "tier"]).size().to_dict()
    assert {(r.subject, r.tier): r.n for r in long.itertuples()} == want
    assert long["n"].sum() == 10 and (long["bucket"] == "tier" + long["tier"].astype(str)).all()


def test_tier_by_subject_pivot(toy):
    wide = tier_by_subject(BENCH, pivot=True, db=toy)
    assert wide.index.tolist() == ["=cmd", "lang", "math"]
    assert list(wide.columns) == sorted(wide.columns) and all(c.startswith("tier") for c in wide.columns)
    assert wide.to_numpy().sum() == 10 and (wide.dtypes == "int64").all()
    long = tier_by_subject(BENCH, db=toy)
    for r in long.itertuples():
        assert wide.loc[r.subject, r.bucket] == r.n


def test_an_unknown_benchmark_is_empty(toy):
    assert tier_by_subject("nope", db=toy).empty
    assert tier_by_subject("nope", pivot=True, db=toy).shape == (0, 0)
    assert progress_by_reviewer("nope", db=toy).empty


def test_progress_by_reviewer_hand_counted(toy):
    df = progress_by_reviewer(BENCH, db=toy)
    cols = ["reviewer", "n_items", "n_reviews", "key_correct", "key_wrong", "ambiguous", "defective", "skip",
            "adjudications"]
    # alice: t02 t03 key_wrong, t05 ambiguous, t07 key_correct; bob: t02 t03 t08 key_wrong, t06 defective;
    # carol: the adjudication of t04
    assert df[cols].values.tolist() == [["alice", 4, 4, 1, 2, 1, 0, 0, 0], ["bob", 4, 4, 0, 3, 0, 1, 0, 0],
                                        ["carol", 1, 1, 0, 1, 0, 0, 0, 1]]
    assert (df["first_review_at"] <= df["last_review_at"]).all()


def test_progress_by_subject_hand_counted(toy):
    df = progress_by_subject(BENCH, db=toy)
    # once analysed, t02 (two agreeing reviews) is settled, t08 (Tier 1, one review) needs a second one,
    # t03 is disputed; t01, t09, t10 are unreviewed
    assert df.values.tolist() == [["lang", 5, 3, 3, 0, 0, 2], ["math", 4, 3, 1, 1, 1, 1], ["=cmd", 1, 1, 1, 0, 0, 0]]
    assert list(df.columns) == ["subject", "total", "reviewed", "done", "needs_second_review", "disputed",
                                "unreviewed"]


def test_list_benchmarks(toy, db_path):
    assert list_benchmarks(db=toy) == [BENCH]
    assert list_benchmarks(db=db_path) == []
    assert isinstance(progress_by_reviewer(BENCH, db=toy), pd.DataFrame)
