"""audit.review.overview: ``audit review status`` in plain lines — Tier 1–2
or all items, counts per status (the toy benchmark's, by hand), the
disputed ids (cut after ``max_disputed``) and the agreement line."""
from __future__ import annotations

import pytest

from audit.analyze import analyze_benchmark
from audit.review.overview import ReviewOverview, review_overview
from audit.review.queue import QueueProgress
from tests.support.toy_release import BENCH, toy_db


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("overview"), migrated_template)
    analyze_benchmark(BENCH, db=db)
    return db


def test_tier_1_2_only(toy):
    o = review_overview(BENCH, db=toy)
    # Tier 1-2 after the analysis: t02 (settled) and t08 (one review of two)
    assert (o.progress.total, o.progress.reviewed, o.progress.done, o.progress.needs_second_review) == (2, 2, 1, 1)
    lines = o.lines()
    assert lines[:5] == ["toy (Tier 1–2): 2 of 2 reviewed", "  Not reviewed yet              0",
                         "  Needs a second review         1", "  Disputed                      0",
                         "  Settled                       1"]
    assert o.disputed == [] and lines[-1].startswith("reviewer agreement: ")


def test_all_items_with_the_disputed_one(toy):
    o = review_overview(None, all_tiers=True, db=toy)       # the only benchmark
    assert o.benchmark == BENCH and o.disputed == ["t03"]
    lines = o.lines()
    assert lines[0] == "toy (all items): 7 of 10 reviewed"
    assert [int(x.split()[-1]) for x in lines[1:5]] == [3, 1, 1, 5]
    assert "disputed: t03" in lines


def test_a_long_disputed_list_is_cut():
    p = QueueProgress(total=30, reviewed=30, done=0, disputed=30, needs_second_review=0, unreviewed=0,
                      reviewed_by_me=0)
    o = ReviewOverview("b", True, p, disputed=[f"q{i}" for i in range(30)])
    line = next(x for x in o.lines(max_disputed=3) if x.startswith("disputed"))
    assert line == "disputed: q0, q1, q2 …"
    assert next(x for x in o.lines(max_disputed=30) if x.startswith("disputed")).endswith("q29")
    assert not any(x.startswith("reviewer agreement") for x in o.lines())
