"""Simulated campaigns through the library calls the workbench makes
(tests/support/campaign.py; tests/bench/bench_campaign_reliability.py
prints the same figures over several seeds):

* 300 items, 30 known-answer items, reviewers right 95%, 80% and 55% of the
  time: the reliability ranking comes out right, the 55% reviewer is flagged
  within their first 20 known-answer items, every 95% interval covers the
  simulated accuracy;
* MMLU-Redux, the experts' labels as truth, reviewers right 90% of the
  time: the adaptive policy (the weighted rule, second reviews by expected
  information gain) settles at least as many true wrong keys as fixed double
  review of every Tier 1–2 item with at most 60% of its second reviews, and
  lets through by settling on one verdict at most one wrong key more.
"""
from __future__ import annotations

import pytest

from audit.accounts import add_account
from audit.review import review_status
from tests.support.campaign import policy_campaign, redux_template, reliability_campaign

pytestmark = pytest.mark.slow
PW = "a long password 1"


def test_reliability_campaign(db_path):
    add_account("Admin Nyima", PW, db=db_path)
    add_account("Lead Dolkar", PW, role="lead", actor="Admin Nyima", db=db_path)
    for r in ("Reviewer 95", "Reviewer 80", "Reviewer 55"):
        add_account(r, PW, actor="Admin Nyima", db=db_path)
    run = reliability_campaign(db_path, seed=0, admin="Admin Nyima")
    tab = run.table.set_index("reviewer")
    assert set(tab["n_gold"]) == {30}                                  # each answered every known-answer item
    truth = ["Reviewer 95", "Reviewer 80", "Reviewer 55"]
    assert list(tab["gold_accuracy"].sort_values(ascending=False).index) == truth
    assert list(tab["estimated_accuracy"].sort_values(ascending=False).index) == truth
    for r, p in run.accuracy.items():
        assert tab.loc[r, "gold_accuracy_low"] <= p <= tab.loc[r, "gold_accuracy_high"], r
    assert run.first_flag["Reviewer 55"] is not None and run.first_flag["Reviewer 55"] <= 20
    assert dict(tab["flagged"]) == {"Reviewer 55": True, "Reviewer 80": False, "Reviewer 95": False}
    assert tab.loc["Reviewer 55", "agreement"] < tab.loc["Reviewer 80", "agreement"] < tab.loc["Reviewer 95",
                                                                                               "agreement"]


@pytest.mark.shared_data
def test_adaptive_against_fixed_double_review(mmlu_redux_dir, tmp_path):
    tpl = redux_template(mmlu_redux_dir, tmp_path / "redux.duckdb")
    fixed = policy_campaign(tpl, tmp_path / "fixed.duckdb", "fixed", seed=0)
    tier_1_2 = int(review_status("mmlu-redux", db=tpl)["tier"].isin([1, 2]).sum())
    assert tier_1_2 > 40
    assert fixed.second_reviews == fixed.first_reviews == tier_1_2     # every Tier 1–2 item twice
    adaptive = policy_campaign(tpl, tmp_path / "adaptive.duckdb", "adaptive", seed=0,
                               budget=int(0.6 * fixed.second_reviews))
    assert adaptive.second_reviews <= 0.6 * fixed.second_reviews
    assert adaptive.settled_wrong_keys >= fixed.settled_wrong_keys
    assert adaptive.let_through_lone <= fixed.let_through + 1
