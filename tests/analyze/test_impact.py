"""audit.analyze._impact: what wrong keys cost, on hand-built ImpactData —
the expected count is Σ score and, with settled items (no φ rescaling), its
interval is the Poisson-binomial's (checked against scipy's binomial
quantiles for equal scores); the φ draws widen it; accuracy on right keys
and with corrected keys by hand; the selection control by hand for one
excluded item; and the loader on the demo database (estimate = the stored
scores' sum)."""
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from audit.analyze._impact import (
    MIN_SCORE,
    ImpactData,
    _draws,
    expected_wrong_keys,
    impact_summary,
    load_impact,
    selection_control,
    wrong_key_cost,
)
from audit.analyze.keyerror import PHI_PRIOR_MEAN
from tests.support.tiny import rows, tiny_benchmark


def _data(score, *, settled=None, fixed=None, subject=None, bucket=None, correct=None, alt=None, valid=None,
          p_reject=None, agreement=None, phi=None):
    n = len(score)
    items = pd.DataFrame({
        "qn": np.arange(1, n + 1), "question_id": [f"q{i}" for i in range(n)],
        "subject": subject or ["s"] * n, "tier": [None] * n, "bucket": bucket or ["tier0"] * n,
        "score": score, "p_reject": p_reject if p_reject is not None else score,
        "alternative": ["B"] * n, "fixed_reason": fixed or [None] * n,
        "agreement_share": agreement if agreement is not None else [0.5] * n,
        "settled": settled if settled is not None else [False] * n,
    })
    c = np.asarray(correct if correct is not None else np.zeros((n, 1)), dtype=bool)
    return ImpactData("b", [f"m{j}" for j in range(c.shape[1])], items,
                      np.asarray(valid, dtype=bool) if valid is not None else np.ones_like(c),
                      c, np.asarray(alt if alt is not None else np.zeros_like(c), dtype=bool),
                      np.asarray(phi if phi is not None else PHI_PRIOR_MEAN, dtype=float),
                      int(np.sum(settled)) if settled is not None else 0)


def test_settled_items_give_the_binomial_interval():
    n, p = 200, 0.3
    d = _data([p] * n, settled=[True] * n)
    out = expected_wrong_keys(d, draws=8000, seed=1, level=0.9)
    row = out.iloc[0]
    assert row["group"] == "all" and row["n_items"] == n
    assert row["estimate"] == pytest.approx(n * p)
    assert abs(row["low"] - binom.ppf(0.05, n, p)) <= 1
    assert abs(row["high"] - binom.ppf(0.95, n, p)) <= 1


def test_phi_uncertainty_widens_the_interval():
    n, p = 200, 0.3
    fixed = expected_wrong_keys(_data([p] * n, settled=[True] * n), draws=5000, seed=2).iloc[0]
    free = expected_wrong_keys(_data([p] * n), draws=5000, seed=2).iloc[0]
    assert free["estimate"] == fixed["estimate"]
    assert free["high"] - free["low"] > 1.5 * (fixed["high"] - fixed["low"])


def test_tiny_scores_count_as_their_expectation():
    d = _data([MIN_SCORE / 2] * 10 + [1.0], settled=[False] * 10 + [True])
    row = expected_wrong_keys(d, draws=100).iloc[0]
    assert row["estimate"] == pytest.approx(1.0 + 10 * MIN_SCORE / 2)
    assert row["low"] == row["high"] == pytest.approx(1.0 + 10 * MIN_SCORE / 2)


def test_groups_by_subject_and_tier_and_missing_scores():
    d = _data([1.0, 0.0, np.nan, 1.0], settled=[True] * 4, subject=["ཀ", "b", "b", "b"],
              bucket=["tier1", None, "multi_answer", "tier1"])
    by_s = expected_wrong_keys(d, by="subject", draws=50)
    assert by_s[["group", "n_items", "estimate", "low", "high"]].values.tolist() == [
        ["b", 3, 1.0, 1.0, 1.0], ["ཀ", 1, 1.0, 1.0, 1.0]]
    by_t = expected_wrong_keys(d, by="tier", draws=50)
    assert dict(zip(by_t["group"], by_t["estimate"])) == {"": 0.0, "multi_answer": 0.0, "tier1": 2.0}


def test_cost_by_hand_with_certain_key_states():
    # 4 items, 2 models; item 0's key is wrong for certain (score 1), the rest right (score 0)
    correct = [[1, 0], [1, 1], [0, 1], [1, 0]]
    alt = [[0, 1], [0, 0], [0, 0], [0, 0]]
    d = _data([1.0, 0.0, 0.0, 0.0], settled=[True] * 4, correct=correct, alt=alt)
    cost = wrong_key_cost(d, draws=200).set_index("model")
    # m0: 3/4 reported; on the 3 right-key items 2/3; corrected: item 0 scored by the alternative (m0 did not
    # give it) → 2/4.  m1: 2/4 reported; on right keys 2/3; corrected: + the alternative on item 0 → 3/4.
    assert cost.loc["m0", "accuracy"] == 0.75 and cost.loc["m1", "accuracy"] == 0.5
    assert cost["accuracy_right_keys"].tolist() == pytest.approx([2 / 3, 2 / 3])
    assert cost["accuracy_corrected"].tolist() == pytest.approx([0.5, 0.75])
    assert cost["cost_points"].tolist() == pytest.approx([(2 / 3 - 0.75) * 100, (2 / 3 - 0.5) * 100])
    assert (cost["accuracy_right_keys_low"] == cost["accuracy_right_keys_high"]).all()


def test_corrected_accuracy_is_the_exact_expectation():
    rng = np.random.default_rng(0)
    n = 50
    s = rng.uniform(0, 1, n)
    c = rng.random((n, 3)) < 0.6
    a = ~c & (rng.random((n, 3)) < 0.5)
    cost = wrong_key_cost(_data(s.tolist(), correct=c, alt=a), draws=100)
    assert cost["accuracy_corrected"].tolist() == pytest.approx(((c.sum(0) - s @ c + s @ a) / n).tolist())


def test_draws_are_reproducible():
    d = _data(np.linspace(0.01, 0.9, 30).tolist())
    i1, w1, _ = _draws(d, 100, 7)
    i2, w2, _ = _draws(d, 100, 7)
    assert (i1 == i2).all() and (w1 == w2).all()
    assert not (w1 == _draws(d, 100, 8)[1]).all()


def test_selection_control_by_hand():
    # 3 items, one model.  Items 0 and 1 are hard (1 of 2 models... here: the one model wrong),
    # item 2 easy.  Exclude item 0 (score 0.4, so it counts with weight 0.6 as a typical item of its
    # stratum whose key the models confirm: item 1, p_reject 0.1, stratum 0, incorrect).
    correct = [[0], [0], [1]]
    d = _data([0.4, 0.05, 0.0], p_reject=[0.9, 0.1, 0.0], correct=correct)
    got = selection_control(d, {"x": ["q0"], "none": [], "unknown": ["zz"]})
    base = 1 / 3
    # removed: 0.6 valid answers and 0.6 × 0 correct answers
    assert got["x"][0] == pytest.approx((1 / (3 - 0.6) - base) * 100)
    assert got["none"][0] == pytest.approx(0.0) and got["unknown"][0] == pytest.approx(0.0)


def test_selection_control_without_scores_is_nan():
    d = _data([np.nan, np.nan], correct=[[1], [0]])
    assert np.isnan(selection_control(d, {"x": ["q0"]})["x"]).all()


ANSWERS = {"gpt-4o": "ABCDABCDBBCD", "llama-3": "ABCDABCDBBCA", "qwen-2": "ABCDABCABBCA", "claude-3": "ABCDBBCDBBCA"}


@pytest.fixture(scope="module")
def small_db(migrated_template, tmp_path_factory):
    """'tiny' (12 items, 4 models) and 'solo' (one model), analysed; read only."""
    from audit.analyze import analyze_benchmark

    work = tmp_path_factory.mktemp("impact")
    db = work / "small.duckdb"
    shutil.copyfile(migrated_template, db)
    tiny_benchmark(db, work, n=12, answers=ANSWERS)
    tiny_benchmark(db, work, name="solo", n=4, answers={"only": "ABCA"})
    analyze_benchmark(db=db)
    return db


def test_load_and_summary_on_a_small_benchmark(small_db):
    d = load_impact("tiny", db=small_db)
    assert d.valid.shape == (12, 4) and d.valid.all() and not (d.alt & d.correct).any()
    assert d.correct.sum(0).tolist() == [sum(a == k for a, k in zip(ANSWERS[m], "ABCD" * 3)) for m in d.models]
    ((stored,),) = rows(small_db, "SELECT sum(score) FROM key_error_scores WHERE run_id = "
                                  "(SELECT max(run_id) FROM audit_runs WHERE benchmark = 'tiny')")
    r = impact_summary("tiny", db=small_db, draws=300)
    e = r["expected_wrong_keys"]
    assert e["estimate"] == pytest.approx(stored) and e["n_items"] == 12
    assert e["low"] <= e["estimate"] <= e["high"] and r["scored"] and r["level"] == 0.9
    assert r["expected_wrong_keys_by_tier"]["estimate"].sum() == pytest.approx(stored)
    assert sorted(r["wrong_key_cost"]["model"]) == sorted(ANSWERS)


def test_summary_of_one_model_is_not_scored(small_db):
    r = impact_summary("solo", db=small_db, draws=10)
    assert r["scored"] is False and r["expected_wrong_keys"] is None and r["wrong_key_cost"] is None
