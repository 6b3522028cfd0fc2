"""The level's Beta, its update by the random audit sample, and the report's
count and costs by quadrature against a Monte Carlo of the same model."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from audit.analyze.keyerror import Level, count_and_cost, level_offset, update_level


def test_nodes_are_slice_means_of_the_beta():
    lv = Level(1.4, 58.6)
    x = lv.nodes(24)
    assert np.all(np.diff(x) > 0) and x.mean() == pytest.approx(beta(1.4, 58.6).mean(), rel=1e-9)
    u = beta(1.4, 58.6).ppf([0.0, 1 / 24])
    assert u[0] <= x[0] <= u[1]


def test_the_sample_updates_the_level_conjugately():
    lv = update_level((1.4, 58.6), 7.0, 150.0)
    assert (lv.a, lv.b) == (8.4, 201.6)


def test_count_and_cost_match_a_monte_carlo():
    rng = np.random.default_rng(0)
    n, J = 800, 5
    h1 = np.r_[rng.uniform(10, 60, 30), rng.uniform(0.05, 0.5, n - 30)]
    h0 = np.r_[rng.uniform(0.2, 1, 30), rng.uniform(0.8, 1.2, n - 30)]
    h1, h0 = h1 / h1.mean(), h0 / h0.mean()
    C = (rng.random((n, J)) < 0.7).astype(float)
    C[:30] = (rng.random((30, J)) < 0.2)
    lv, s_ab = Level(3.0, 97.0), (16.0, 4.0)
    r = count_and_cost(h1, h0, lv, s_ab, correct=C)
    D = 4000
    pi, s = beta(*lv.__dict__.values()).rvs(D, random_state=rng), beta(*s_ab).rvs(D, random_state=rng)
    M = s[:, None] * h1 + (1 - s)[:, None] * h0
    a = level_offset(M, pi * n)
    Q = 1 / (1 + np.exp(-(a[:, None] + np.log(M))))
    W = rng.random(Q.shape) < Q
    tot = W.sum(1)
    assert r["estimate"] == pytest.approx(tot.mean(), rel=0.03)
    lo, hi = np.quantile(tot, [0.05, 0.95])
    assert abs(r["low"] - lo) <= 2 and abs(r["high"] - hi) <= 0.06 * hi
    acc_right = (C.sum(0) - W.astype(float) @ C) / (n - tot[:, None])
    np.testing.assert_allclose(r["accuracy_right_keys"], acc_right.mean(0), atol=0.002)
