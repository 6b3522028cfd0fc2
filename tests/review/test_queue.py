"""The triage queue: filters, the priority order (and a registered one),
progress, previous/next — checked against plain Python over the same rows."""
from __future__ import annotations

import pytest

from audit.errors import AuditError
from audit.review import add_review, register_order, review_queue
from audit.review.queue import QUEUE_ORDERS, neighbours, next_for_reviewer, queue_progress
from audit.store import connect
from tests.support.review_bench import bench_copy, link_parallel, make_bench

# bench: q01–q04 tier 1, q05–q06 tier 2, q07–q12 tier 5; agreement_count of a
# flagged item is 3 for even positions (q01, q03, q05) and 2 for odd ones;
# subjects cycle history, grammar, medicine; q03 is structure-suspect.


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    path = bench_copy(tmp_path)
    link_parallel(path, "bench", "q02", key="B", key_match=False)
    link_parallel(path, "bench", "q04", key="A", key_match=True)
    return path


def test_builder_makes_a_consistent_benchmark(db_path):
    ids = make_bench(db_path)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM questions").fetchone()[0] == len(ids)
        assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 3 * len(ids)
        assert con.execute("SELECT count(*) FROM current_audit WHERE tier IN (1, 2)").fetchone()[0] == 6


def ids(df):
    return df["question_id"].tolist()


def test_default_queue_is_tier_1_2_in_priority_order(db):
    q = review_queue("bench", db=db)
    # tier ascending, then agreement count descending, then import order
    assert ids(q) == ["q01", "q03", "q02", "q04", "q05", "q06"]
    assert q["position"].tolist() == [1, 2, 3, 4, 5, 6]
    rows = q.set_index("question_id")
    assert rows.loc["q01", "stem_preview"] == "stem of q01" and rows.loc["q01", "answer_key"] == "A"
    assert rows.loc["q03", "structure_reason"] == "options merged"
    assert list(q.columns[:3]) == ["position", "question_id", "seq"]
    assert set(q["status"]) == {"unreviewed"} and set(q["required"]) == {2}


def test_filters(db):
    assert ids(review_queue("bench", tiers=[2], db=db)) == ["q05", "q06"]
    assert ids(review_queue("bench", tiers=5, db=db)) == ["q07", "q08", "q09", "q10", "q11", "q12"]
    assert len(review_queue("bench", tiers=None, db=db)) == 12
    assert review_queue("bench", tiers=[], db=db).empty and review_queue("bench", subjects=[], db=db).empty
    assert ids(review_queue("bench", subjects=["grammar"], db=db)) == ["q02", "q05"]
    assert ids(review_queue("bench", structure_suspect=True, db=db)) == ["q03"]
    assert "q03" not in ids(review_queue("bench", structure_suspect=False, db=db))
    assert ids(review_queue("bench", parallel_mismatch=True, db=db)) == ["q02"]
    assert ids(review_queue("bench", parallel_mismatch=False, db=db)) == ["q01", "q03", "q04", "q05", "q06"]
    assert ids(review_queue("bench", subjects="history", tiers=(1, 2, 5), db=db)) == ["q01", "q04", "q07", "q10"]


@pytest.mark.slow
def test_status_filters_follow_reviews(db):
    add_review("bench", "q01", "ann", "key_wrong", corrected_answer="B", db=db)
    add_review("bench", "q01", "bo", "key_wrong", corrected_answer="B", db=db)   # done
    add_review("bench", "q02", "ann", "key_wrong", corrected_answer="B", db=db)
    add_review("bench", "q02", "bo", "key_correct", db=db)                       # disputed
    add_review("bench", "q03", "ann", "key_correct", db=db)                      # needs a second review
    add_review("bench", "q04", "bo", "skip", db=db)                              # still unreviewed
    assert ids(review_queue("bench", status="done", db=db)) == ["q01"]
    assert ids(review_queue("bench", status="disputed", db=db)) == ["q02"]
    assert ids(review_queue("bench", status="needs_second_review", db=db)) == ["q03"]
    assert ids(review_queue("bench", status="unreviewed", db=db)) == ["q04", "q05", "q06"]
    assert ids(review_queue("bench", status=["disputed", "done"], db=db)) == ["q01", "q02"]
    assert ids(review_queue("bench", status="reviewed_by_me", reviewer="ann", db=db)) == ["q01", "q03", "q02"]
    # what is left for bo: everything bo has not given a verdict on
    assert ids(review_queue("bench", status="not_reviewed_by_me", reviewer="bo", db=db)) == [
        "q03", "q04", "q05", "q06"]
    with pytest.raises(AuditError, match="need the reviewer"):
        review_queue("bench", status="reviewed_by_me", db=db)
    with pytest.raises(AuditError, match="unknown review status"):
        review_queue("bench", status="finished", db=db)

    p = queue_progress("bench", reviewer="ann", db=db)
    assert (p.total, p.reviewed, p.done, p.disputed, p.needs_second_review, p.unreviewed, p.reviewed_by_me) == (
        6, 3, 1, 1, 1, 3, 3)
    assert p.label == "3 of 6 reviewed" and p.fraction == 0.5
    assert queue_progress("bench", tiers=None, db=db).label == "3 of 12 reviewed"
    assert queue_progress("bench", subjects=["grammar"], db=db).label == "1 of 2 reviewed"


def test_paging_and_orders(db):
    full = review_queue("bench", tiers=None, db=db)
    page = review_queue("bench", tiers=None, limit=4, offset=4, db=db)
    assert ids(page) == ids(full)[4:8] and page["position"].tolist() == [5, 6, 7, 8]
    assert ids(review_queue("bench", order="id", db=db)) == ["q01", "q02", "q03", "q04", "q05", "q06"]
    with pytest.raises(AuditError, match="unknown queue order"):
        review_queue("bench", order="random", db=db)
    # a pluggable ordering: e.g. a score column added later; here: subject
    register_order("test_subject_desc", "subject DESC, tier", "Subject Z–A")
    try:
        got = review_queue("bench", order="test_subject_desc", db=db)
        assert list(zip(got["subject"], got["tier"], got["seq"])) == sorted(
            zip(got["subject"], got["tier"], got["seq"]), key=lambda r: (-ord(r[0][0]), r[1], r[2]))
        assert ids(got) == ["q03", "q06", "q01", "q04", "q02", "q05"]
    finally:
        QUEUE_ORDERS.pop("test_subject_desc")


def test_neighbours_within_filter_even_after_the_item_leaves_it(db):
    order = ids(review_queue("bench", db=db))  # q01 q03 q02 q04 q05 q06
    assert neighbours("bench", "q01", db=db) == (None, "q03")
    assert neighbours("bench", "q02", db=db) == ("q03", "q04")
    assert neighbours("bench", "q06", db=db) == ("q05", None)
    assert neighbours("bench", "q03", subjects=["medicine"], db=db) == (None, "q06")
    # saving a verdict removes q02 from "unreviewed"; next/previous still work from it
    add_review("bench", "q02", "ann", "key_correct", db=db)
    assert "q02" not in ids(review_queue("bench", status="unreviewed", db=db))
    assert neighbours("bench", "q02", status="unreviewed", db=db) == ("q03", "q04")
    assert order == ["q01", "q03", "q02", "q04", "q05", "q06"]
    assert neighbours("bench", "nope", db=db) == (None, None)


@pytest.mark.slow
def test_needs_me_and_next_for_reviewer(db):
    # priority order: q01 q03 q02 q04 q05 q06
    add_review("bench", "q01", "ann", "key_correct", db=db)
    add_review("bench", "q01", "bo", "key_correct", db=db)                       # done: needs nobody
    add_review("bench", "q03", "bo", "key_wrong", corrected_answer="B", db=db)   # needs a 2nd: needs ann
    add_review("bench", "q02", "ann", "key_correct", db=db)                      # ann has reviewed it
    add_review("bench", "q04", "ann", "key_correct", db=db)
    add_review("bench", "q04", "bo", "ambiguous", db=db)                         # disputed
    add_review("bench", "q05", "ann", "skip", db=db)                             # a skip does not count
    order = ids(review_queue("bench", db=db))
    status = dict(zip(order, review_queue("bench", reviewer="ann", db=db)["status"]))
    mine = {"q01", "q02", "q04"}
    expect = [q for q in order if q not in mine and status[q] in ("unreviewed", "needs_second_review")]
    assert expect == ["q03", "q05", "q06"]
    assert ids(review_queue("bench", status="needs_me", reviewer="ann", db=db)) == expect
    assert next_for_reviewer("bench", "ann", db=db) == "q03"
    assert next_for_reviewer("bench", "ann", after="q03", db=db) == "q05"
    assert next_for_reviewer("bench", "ann", after="q02", db=db) == "q05"   # after an item it has done
    assert next_for_reviewer("bench", "ann", after="q06", db=db) == "q03"   # wraps to the top
    assert next_for_reviewer("bench", "ann", after="q11", tiers=None, db=db) == "q12"  # outside the filter
    assert next_for_reviewer("bench", "ann", tiers=[2], db=db) == "q05"
    # bo: q02 (ann only) and q05/q06 unreviewed
    assert next_for_reviewer("bench", "bo", db=db) == "q02"
    for q in expect:
        add_review("bench", q, "ann", "key_correct", db=db)
    assert next_for_reviewer("bench", "ann", db=db) is None
    with pytest.raises(AuditError, match="needs me"):
        review_queue("bench", status="needs_me", db=db)
