"""audit.review.summary: the reviewer summary CTEs on a hand-made
``reviews`` table — each reviewer's latest non-skip review, adjudications
listed first and not counted as reviewers, rationales joined, dates
distinct and sorted."""
from __future__ import annotations

import duckdb
import pytest

from audit.review.summary import REVIEWER_SUMMARY_CTES

ROWS = [
    # review_id, benchmark, question_id, reviewer, verdict, corrected_answer, rationale, created_at, is_adjudication
    (1, "b", "q1", "bob", "key_wrong", "B", "old thought", "2026-01-02 10:00:00", False),
    (2, "b", "q1", "bob", "key_correct", None, "second thought", "2026-01-05 09:00:00", False),
    (3, "b", "q1", "alice", "key_correct", None, None, "2026-01-02 23:59:59", False),
    (4, "b", "q1", "lead", "key_correct", None, "final | `x`", "2026-01-07 00:00:00", True),
    (5, "b", "q1", "lead", "skip", None, "skipped later", "2026-01-08 00:00:00", False),
    (6, "b", "q2", "alice", "skip", None, "only a skip", "2026-01-03 00:00:00", False),
    (7, "b", "q3", "བསོད་ནམས", "ambiguous", None, "ཡིག་ཆ", "2026-01-04 00:00:00", False),
    (8, "other", "q1", "carol", "defective", None, "other benchmark", "2026-01-01 00:00:00", False),
]


@pytest.fixture
def con():
    c = duckdb.connect()
    c.execute("CREATE TABLE reviews (review_id BIGINT, benchmark VARCHAR, question_id VARCHAR, reviewer VARCHAR, "
              "verdict VARCHAR, corrected_answer VARCHAR, rationale VARCHAR, created_at TIMESTAMP, "
              "is_adjudication BOOLEAN)")
    c.executemany("INSERT INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    c.execute("ALTER TABLE reviews ADD COLUMN proposed_fix VARCHAR")   # no reviewer proposed a fix here
    # no known-answer item here: every verdict counts towards settlement
    c.execute("CREATE TABLE gold_items (benchmark VARCHAR, question_id VARCHAR, answer VARCHAR, origin VARCHAR, "
              "after_review_id BIGINT)")
    yield c
    c.close()


def _rv(con, benchmark="b"):
    df = con.execute(f"WITH {REVIEWER_SUMMARY_CTES} SELECT * FROM rv ORDER BY question_id",
                     {"benchmark": benchmark}).df()
    return {r.question_id: r for r in df.itertuples()}


def test_the_summary_per_item(con):
    rv = _rv(con)
    assert set(rv) == {"q1", "q3"}                      # q2 has only a skip
    q1 = rv["q1"]
    assert q1.n_reviewers == 2                            # alice and bob; the adjudication is not a reviewer
    assert q1.reviewers == "lead (adjudication); alice; bob"
    assert q1.rationale == "lead (adjudication): final | `x` | bob: second thought"
    assert q1.review_dates == "2026-01-02 2026-01-05 2026-01-07"
    q3 = rv["q3"]
    assert (q3.n_reviewers, q3.reviewers, q3.rationale) == (1, "བསོད་ནམས", "བསོད་ནམས: ཡིག་ཆ")


def test_latest_keeps_one_row_per_reviewer_and_role(con):
    df = con.execute(f"WITH {REVIEWER_SUMMARY_CTES} SELECT question_id, reviewer, verdict, "
                     "coalesce(rationale, '') FROM latest WHERE rn = 1 ORDER BY question_id, reviewer",
                     {"benchmark": "b"}).df()
    assert df.values.tolist() == [["q1", "alice", "key_correct", ""], ["q1", "bob", "key_correct", "second thought"],
                                  ["q1", "lead", "key_correct", "final | `x`"], ["q3", "བསོད་ནམས", "ambiguous", "ཡིག་ཆ"]]


def test_other_benchmarks_are_apart(con):
    rv = _rv(con, "other")
    assert list(rv) == ["q1"] and rv["q1"].reviewers == "carol"
    assert _rv(con, "none") == {}
