"""The split of p_reject into a wrong key and a shared misconception, by a
level and an allocation, checked by hand: the scores add up to n·π, odds
stay proportional to the allocation, settled items are clamped and the rest
share what is left, and other evidence moves mass without moving the level."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from audit.analyze.keyerror import SPLIT_PRIOR, level_offset, scores, split


def _inputs(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = np.r_[rng.uniform(0.6, 1.0, 40), rng.uniform(0.0, 0.05, n - 40)]
    v = np.r_[rng.uniform(0.2, 1.0, 40), rng.uniform(-1.0, 0.0, n - 40)]
    t = np.r_[rng.integers(0, 2, 40), np.ones(n - 40)]
    return p, v, t, np.full(n, 0.08)


def test_the_count_is_n_pi_and_the_odds_follow_the_allocation():
    p, v, t, e = _inputs()
    sp = split(p, v, t, e, SPLIT_PRIOR, accuracy=0.6)
    assert sp.score.sum() == pytest.approx(len(p) * sp.pi, rel=1e-9)
    assert sp.pi == pytest.approx(SPLIT_PRIOR.base_rate)
    m = sp.s * sp.h1 + (1 - sp.s) * sp.h0
    odds = sp.score / (1 - sp.score)
    np.testing.assert_allclose(odds / m, (odds / m)[0], rtol=1e-8)       # σ(α + log m): odds ∝ m
    # α by an independent root finder
    a = brentq(lambda x: (1 / (1 + np.exp(-(x + np.log(m))))).sum() - len(p) * sp.pi, -50, 50)
    assert float(level_offset(m[None, :], np.array([len(p) * sp.pi]))[0]) == pytest.approx(a, abs=1e-6)
    assert sp.score[:40].mean() > 10 * sp.score[40:].mean()


def test_settled_items_are_clamped_and_the_rest_share_what_is_left():
    p, v, t, e = _inputs()
    sp = split(p, v, t, e, SPLIT_PRIOR)
    settled = np.zeros(len(p), bool)
    settled[:5] = True
    wrong = np.zeros(len(p), bool)
    wrong[:3] = True
    total = len(p) * sp.pi
    q, _ = scores(sp.h1, sp.h0, sp.s, total, settled=settled, wrong=wrong)
    assert q[:3].tolist() == [1.0] * 3 and q[3:5].tolist() == [0.0] * 2
    assert q[5:].sum() == pytest.approx(total - 3, rel=1e-9)


def test_other_evidence_moves_mass_not_the_level():
    p, v, t, e = _inputs()
    lam = np.zeros(len(p))
    lam[100] = np.log(20.0)                         # a judge run says "wrong" about a held key
    a = split(p, v, t, e, SPLIT_PRIOR)
    b = split(p, v, t, e, SPLIT_PRIOR, evidence_llr=lam)
    assert b.score[100] > 5 * a.score[100]
    assert b.score.sum() == pytest.approx(a.score.sum(), rel=1e-9)
