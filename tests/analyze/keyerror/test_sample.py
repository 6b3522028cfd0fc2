"""The random audit sample's design-based count (Horvitz–Thompson over
strata, with a finite-population Beta-binomial interval) against independent
computations: scipy's ``betabinom`` for one stratum, a Monte Carlo of the
same model for two, Σ 1/π_i = N for the draw; and, on MMLU-Redux dev,
200 simulated campaigns of 300 items settled with the experts' labels."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import betabinom

from audit.analyze.keyerror import draw_items, intervals_disagree, sampled_count, strata_of


def test_one_stratum_is_scipys_beta_binomial():
    """3 wrong keys in a simple random sample of 120 of 1,000 items: the
    unsampled 880 hold BetaBinomial(880, 3 + ½, 117 + ½) more (Jeffreys)."""
    st = np.zeros(1000, int)
    smp = np.zeros(1000, bool)
    smp[:120] = True
    wr = np.zeros(1000, bool)
    wr[[3, 50, 99]] = True
    e = sampled_count(st, smp, smp, wr)
    assert e["estimate"] == pytest.approx(1000 * 3 / 120)             # Horvitz–Thompson
    bb = betabinom(880, 3.5, 117.5)
    assert (e["low"], e["high"]) == (3 + bb.ppf(0.05), 3 + bb.ppf(0.95))
    assert (e["n_sampled"], e["n_settled"]) == (120, 120)


def test_two_strata_match_a_monte_carlo_of_the_same_model():
    st = np.r_[np.zeros(900, int), np.ones(100, int)]
    smp = np.zeros(1000, bool)
    smp[:90] = True
    smp[900:950] = True
    wr = np.zeros(1000, bool)
    wr[[5, 901, 902, 903]] = True
    e = sampled_count(st, smp, smp, wr)
    assert e["estimate"] == pytest.approx(900 * 1 / 90 + 100 * 3 / 50)
    rng = np.random.default_rng(0)
    c = 0.5 * np.array([900, 100]) / 1000                               # one Jeffreys half-count, split by size
    draws = (4 + betabinom(810, 1 + c[0], 89 + c[0]).rvs(200_000, random_state=rng)
             + betabinom(50, 3 + c[1], 47 + c[1]).rvs(200_000, random_state=rng))
    lo, hi = np.quantile(draws, [0.05, 0.95])
    assert abs(e["low"] - lo) <= 1 and abs(e["high"] - hi) <= 1, (e, lo, hi)


def test_no_wrong_key_in_the_sample_gives_zero_to_an_upper_bound():
    st = np.zeros(500, int)
    smp = np.zeros(500, bool)
    smp[::5] = True
    e = sampled_count(st, smp, smp, np.zeros(500, bool))
    assert e["estimate"] == 0 and e["low"] == 0 and 0 < e["high"] < 50
    none = sampled_count(st, smp, np.zeros(500, bool), np.zeros(500, bool))
    assert none["estimate"] is None and none["reason"] == "nothing_settled"


def test_the_draw_weights_add_up_and_oversample_the_likely_wrong_bands():
    rng = np.random.default_rng(0)
    sc = np.r_[rng.uniform(0, 0.02, 1800), rng.uniform(0.3, 0.9, 200)]
    d = draw_items(sc, 200, seed=1)
    assert len(d) == 200 and (1 / d["inclusion_probability"]).sum() == pytest.approx(2000)
    hi = d["item"] >= 1800
    assert d.loc[hi, "inclusion_probability"].min() > 2 * d.loc[~hi, "inclusion_probability"].max()
    flat = draw_items(sc, 200, by="none", seed=1)
    assert np.allclose(flat["inclusion_probability"], 0.1)
    assert draw_items(sc, 200, seed=1).equals(d)                        # a seed repeats the draw


def test_intervals_disagree_only_when_they_do_not_overlap():
    assert intervals_disagree({"low": 2, "high": 50}, {"low": 60, "high": 110})
    assert not intervals_disagree({"low": 2, "high": 50}, {"low": 40, "high": 110})


@pytest.mark.slow
@pytest.mark.shared_data
def test_two_hundred_campaigns_on_mmlu_redux_cover_the_experts_count():
    """Samples of 300 of MMLU-Redux dev's 1,500 items, settled with the
    experts' labels: the 90% interval covers the 35 wrong keys in at least
    85% of 200 campaigns, and the band design is narrower than none."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import _model_sets as M

    if not (M.SHARED / "mmlu_redux_dev").exists():
        pytest.skip(f"needs the reference data {M.SHARED / 'mmlu_redux_dev'} (../shared/data/mmlu_redux_dev); "
                    "it is not present on this machine")
    red = M.load_redux()
    score = M.fit_config(red).score
    y = red.wrong
    res = {}
    for by in ("band", "none"):
        codes = np.asarray(strata_of(score, red.subject, by=by)[0])
        cover, width = [], []
        for seed in range(200):
            smp = np.zeros(red.n, bool)
            smp[draw_items(score, 300, subject=red.subject, by=by, seed=seed)["item"].to_numpy()] = True
            e = sampled_count(codes, smp, smp, y)
            cover.append(e["low"] <= y.sum() <= e["high"])
            width.append(e["high"] - e["low"])
        res[by] = (float(np.mean(cover)), float(np.mean(width)))
    print(f"coverage / mean width of the 90% interval: {res}")
    assert res["band"][0] >= 0.85, res
    assert res["band"][1] < res["none"][1], res
