"""audit.analyze.keyerror._prior: the evidence log likelihood ratios, the φ
bands, the agreement share, the W/M/R belief algebra (against the three-state
posterior written out by hand), the maximum-likelihood φ (against scipy's
bounded optimiser) and the beta-binomial strength (against Kleinman's moment
formula computed by hand)."""
import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit, logit

from audit.analyze.keyerror._prior import (
    LLR_DUPLICATE_OPTIONS,
    LLR_PARALLEL_MATCH,
    LLR_PARALLEL_MISMATCH,
    PHI_PRIOR,
    PHI_PRIOR_MEAN,
    PHI_STRENGTH,
    agreement_share,
    belief_inputs,
    combined_score,
    fit_misconception_prior,
    fit_misconception_prior_bands,
    fit_misconception_strength,
    phi_band,
)


def test_evidence_ratios_are_the_stated_assumptions():
    assert math.exp(LLR_PARALLEL_MISMATCH) == pytest.approx(0.5 / 0.1)
    assert math.exp(LLR_PARALLEL_MATCH) == pytest.approx(0.5 / 0.9)
    assert math.exp(LLR_DUPLICATE_OPTIONS) == pytest.approx(3.0)
    for (a, b), m in zip(PHI_PRIOR, PHI_PRIOR_MEAN):
        assert a + b == pytest.approx(PHI_STRENGTH) and a / (a + b) == pytest.approx(m)


def test_band_edges_belong_to_the_upper_band():
    assert phi_band([0.0, 0.7499, 0.75, 0.8999, 0.9, 1.0]).tolist() == [0, 0, 1, 1, 2, 2]


def test_agreement_share_ignores_the_key_and_letters_past_the_item():
    counts = np.array([
        [2, 5, 1, 0, 0, 0],     # key A: top other B (5) of 8
        [0, 0, 0, 0, 0, 0],     # no answers
        [1, 1, 0, 0, 0, 7],     # key A, only 4 options: the F column is not an option of the item
        [0, 0, 0, 0, 0, 10],    # 6 options, key F: every model on the key
    ])
    x = agreement_share(counts, [0, 1, 0, 5], [4, 4, 4, 6])
    assert x.tolist() == pytest.approx([5 / 8, 0.0, 1 / 9, 0.0])


def test_agreement_share_without_columns():
    assert agreement_share(np.zeros((3, 0)), [0, 0, 0], [4, 4, 4]).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("phi", [0.1, 0.24, 0.5, 0.9])
@pytest.mark.parametrize("lam", [-2.0, 0.0, 1.6])
def test_belief_inputs_is_the_three_state_posterior(phi, lam):
    # States W, M, R; the models cannot tell W from M.  Prior odds of (W ∪ M) : R gain
    # (φ e^λ + 1 − φ); given W ∪ M, P(W) = φ e^λ / (φ e^λ + 1 − φ).
    lam_em, clamp, psi = belief_inputs(np.array([lam]), None, phi)
    assert clamp is None
    assert lam_em[0] == pytest.approx(math.log(phi * math.exp(lam) + 1 - phi))
    assert psi[0] == pytest.approx(phi * math.exp(lam) / (phi * math.exp(lam) + 1 - phi))


def test_belief_inputs_settled_keys():
    lam, clamp, psi = belief_inputs(np.zeros(3), np.array([np.nan, 0.0, 1.0]), 0.3)
    # settled right: W ruled out, M still possible → log(1 − φ), ψ = 0, not clamped
    assert lam[1] == pytest.approx(math.log(0.7)) and psi[1] == 0.0 and math.isnan(clamp[1])
    # settled wrong: clamped, ψ = 1
    assert clamp[2] == 1.0 and psi[2] == 1.0
    assert math.isnan(clamp[0]) and psi[0] == pytest.approx(0.3)


def test_belief_inputs_phi_per_item_and_extreme_phi():
    lam, _, psi = belief_inputs(np.zeros(2), None, np.array([0.0, 1.0]))
    assert np.isfinite(lam).all() and psi[0] == pytest.approx(0.0, abs=1e-5) and psi[1] == pytest.approx(1.0, abs=1e-5)


def test_combined_score_by_hand():
    prior, llr, ev, phi = -2.0, 1.5, math.log(5), 0.32
    s, b = combined_score([prior], [llr], [ev], phi)
    gain = math.log(phi * 5 + 1 - phi)
    assert b[0] == pytest.approx(expit(prior + llr + gain))
    assert s[0] == pytest.approx(b[0] * expit(logit(phi) + ev))


def test_combined_score_huge_logits_do_not_overflow():
    s, b = combined_score([-1e6, 1e6], [0, 0], [0, 0], 0.5)
    assert b.tolist() == pytest.approx([0.0, 1.0]) and s.tolist() == pytest.approx([0.0, 0.5])
    assert np.isfinite(b).all()


def test_fit_prior_is_the_maximum_likelihood_estimate():
    rng = np.random.default_rng(7)
    b = rng.uniform(0.2, 1.0, 400)
    y = rng.random(400) < 0.35 * b

    def nll(phi):
        p = phi * b
        return -np.sum(np.where(y, np.log(p), np.log1p(-p)))

    ref = minimize_scalar(nll, bounds=(1e-4, 1 - 1e-4), method="bounded", options={"xatol": 1e-8}).x
    assert fit_misconception_prior(b, y) == pytest.approx(ref, abs=1.5e-3)   # a grid of step 0.001


def test_fit_prior_drops_missing_p_reject():
    est = fit_misconception_prior([1.0, 1.0, np.nan, 1.0, 1.0], [True, False, True, False, False])
    assert est == pytest.approx(0.25, abs=1e-3)


def test_bands_are_pooled_when_they_would_decrease():
    # band 0: 3 of 4 wrong (0.75), band 1: 0 of 4 → clipped 0.02, band 2: 2 of 4; pooled adjacent violators
    b = np.ones(12)
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0], bool)
    x = np.repeat([0.5, 0.8, 0.95], 4)
    got = fit_misconception_prior_bands(b, y, x)
    pooled01 = (0.75 * 4 + 0.02 * 4) / 8
    assert got.tolist() == pytest.approx([pooled01, pooled01, 0.5], abs=1e-3)
    assert np.all(np.diff(got) >= 0)


def test_bands_without_items_keep_the_prior_mean():
    got = fit_misconception_prior_bands([1, 1], [1, 0], [0.1, 0.2])
    assert got[0] == pytest.approx(0.5, abs=1e-3)
    assert got[1:].tolist() == pytest.approx([max(0.5, PHI_PRIOR_MEAN[1]), max(0.5, PHI_PRIOR_MEAN[2])], abs=1e-3)


def test_strength_is_kleinmans_moment_estimate():
    n = np.array([10.0, 20.0, 30.0, 40.0])
    k = np.array([1, 8, 3, 20])
    group = np.repeat(np.arange(4), n.astype(int))
    y = np.concatenate([np.r_[np.ones(ki), np.zeros(int(ni) - ki)] for ki, ni in zip(k, n)]).astype(bool)
    N, m = n.sum(), k.sum() / n.sum()
    S = (n * (k / n - m) ** 2).sum()
    tau2 = (S - m * (1 - m) * 3) / (N - (n ** 2).sum() / N)
    assert tau2 > 0
    assert fit_misconception_strength(np.ones(len(y)), y, group) == pytest.approx(m * (1 - m) / tau2 - 1)


def test_strength_is_infinite_without_extra_variance():
    g = np.repeat([0, 1], 10)
    y = np.tile([1, 0], 10).astype(bool)       # both groups at exactly 0.5
    assert fit_misconception_strength(np.ones(20), y, g) == math.inf
    assert fit_misconception_strength(np.ones(5), np.ones(5, bool), np.zeros(5)) == math.inf   # one group
    assert fit_misconception_strength(np.zeros(4), np.ones(4, bool), [0, 0, 1, 1]) == math.inf  # nothing rejected
