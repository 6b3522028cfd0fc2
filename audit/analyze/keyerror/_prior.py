"""A rejected key: a wrong key or a shared misconception.

The model (:mod:`audit.analyze.keyerror._model`) gives p_reject_i, the
probability that the answer the models hold to be true is not the key.
This module splits it, and holds the priors of the evidence known at
analysis time.

Real models share misconceptions: on MMLU-Redux ``abstract_algebra/76`` 13
of 14 models give the same wrong answer and the key is right.  Votes alone
cannot tell that from a wrong key, so the model's true answer T_i is read as the answer the
*models* hold to be true (B_i), and the item is in one of three states:

* W — the key is wrong (B_i = the true answer ≠ the key);
* M — a shared misconception: the key is right, but the models converge on
  a distractor (B_i ≠ the key);
* R — the key is right and the models hold it (B_i = the key; guessing
  included).

The models' answers have the same likelihood under W and M, so the EM
(unchanged, and as fast) gives p_reject_i = P(B_i ≠ k_i | answers) =
P(W ∪ M), and the split between W and M comes from a prior learned from
expert labels: φ = P(W | W ∪ M), one value per band of the agreement share
x_i (the share of the usable answers on the most chosen non-key option;
:data:`PHI_BANDS`, :data:`PHI_PRIOR_MEAN`, fitted on MMLU-Redux by
:func:`fit_misconception_prior_bands` and kept non-decreasing in x).  Other
evidence λ_i (parallel source, lint, judges) is about W against M ∪ R, so

    P(W ∪ M) prior odds gain log(φ·e^λ + 1 − φ)   (:func:`belief_inputs`)
    score_i = P(W | everything) = p_reject_i · ψ_i,   ψ_i = σ(logit φ + λ_i)

A key settled right rules W out but leaves M possible; a key settled wrong
clamps B_i.  The campaign's settled verdicts update φ (a conjugate Beta
update per band after a ratio shared by every band,
:func:`~audit.analyze.keyerror._update.misconception_split`), so experts
who keep confirming keys that the models reject lower similar items'
scores without a refit.

References: A. P. Gema et al. (2024), Are we done with MMLU? (MMLU-Redux,
the expert labels the φ prior was fitted on); G. Kleinman (1973),
Proportions with extraneous variance: single and independent samples, JASA 68.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

# Evidence known at analysis time, as likelihood ratios (key wrong : key
# right).  Assumptions, not measurements: a wrong key is found as a mismatch
# by a parallel source half of the time; a correct key mismatches 10% of the
# time (translation / source differences).  Duplicate option texts make a
# key three times as likely to be wrong.  The verdict-driven update
# (:mod:`audit.analyze.keyerror._update`) replaces the parallel ratio by one
# measured on settled items once there are some.
PARALLEL_SENS, PARALLEL_SPEC = 0.5, 0.9
LLR_PARALLEL_MISMATCH = math.log(PARALLEL_SENS / (1 - PARALLEL_SPEC))
LLR_PARALLEL_MATCH = math.log((1 - PARALLEL_SENS) / PARALLEL_SPEC)
LLR_DUPLICATE_OPTIONS = math.log(3.0)
# The shared-misconception split (see the module docstring): φ = P(key wrong |
# the models' shared answer is not the key), one value per band of the
# agreement share x (the share of the models' usable answers on the most
# chosen non-key option): [0, 0.75), [0.75, 0.9), [0.9, 1].  Beta priors
# fitted on the expert labels of MMLU-Redux (tests/bench/bench_calibration.py
# prints the fit).  Data: ../shared/data/mmlu_redux_dev (Gema et al. 2024,
# CC BY 4.0), 15 subjects × 100 items, 14 HELM models, 35 items labelled
# wrong_groundtruth; φ̂ by maximum likelihood per band (label ~
# Bernoulli(φ·p_reject), :func:`fit_misconception_prior`).  Each band's prior
# is worth PHI_STRENGTH rejected keys: a campaign's settled verdicts on items
# the models reject move it (:mod:`audit.analyze.keyerror._update`), band by band, so
# verdicts on near-unanimous items do not move the items where fewer models
# agree.  The strength is an empirical-Bayes figure, not a guess: φ varies
# between MMLU-Redux's 15 subjects well beyond binomial noise, as a Beta
# prior worth 6.3 rejected keys (:func:`fit_misconception_strength`, the
# method of moments of Kleinman 1973; printed by the bench), so a prior
# fitted on one set of subjects is worth about 6 rejected keys of another
# (a stronger prior would let a 50-item campaign move the remaining items'
# expected count by less than the held-out evidence allows).
PHI_BANDS = (0.75, 0.9)
PHI_PRIOR_MEAN = (0.24, 0.24, 0.32)
PHI_STRENGTH = 6.0
PHI_PRIOR = tuple((m * PHI_STRENGTH, (1 - m) * PHI_STRENGTH) for m in PHI_PRIOR_MEAN)


def phi_band(agreement: ArrayLike) -> np.ndarray:
    """The φ band (0, 1, 2) of agreement shares.

    >>> phi_band([0.0, 0.8, 0.95]).tolist()
    [0, 1, 2]
    """
    return np.searchsorted(np.asarray(PHI_BANDS), np.asarray(agreement, dtype=float), side="right")


def agreement_share(counts: np.ndarray, key: ArrayLike, n_options: ArrayLike) -> np.ndarray:
    """x per item: answers on the most chosen non-key option / usable answers
    (0 without answers); ``counts`` items × Kmax (unweighted).

    >>> agreement_share(np.array([[6, 3, 1, 0], [0, 0, 0, 0]]), [0, 1], [4, 4]).tolist()
    [0.3, 0.0]
    """
    cnt = np.asarray(counts, dtype=float)
    km = cnt.shape[1]
    k = np.asarray(key, dtype=np.int64)
    if not km:
        return np.zeros(len(k))
    ct = np.ascontiguousarray(cnt.T)         # Kmax × n: sums and maxima over the letters as row operations
    letters = np.arange(km)[:, None]
    other = (letters != k) & (letters < np.asarray(n_options))
    tot = ct.sum(0)
    top = np.where(other, ct, 0.0).max(0)
    return np.where(tot > 0, top / np.where(tot > 0, tot, 1.0), 0.0)


def belief_inputs(evidence_llr: np.ndarray, clamp: np.ndarray | None, phi: ArrayLike
                  ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Translate evidence about the key into the EM's terms (three states:
    key wrong W, shared misconception M, key confirmed R; the models' answers
    cannot tell W from M).  Evidence λ (key wrong : key right) multiplies
    W only, so the prior odds of "the models' shared answer is not the
    key" gain log(φ·e^λ + 1 − φ); a key settled right rules W out (log(1 − φ),
    the item stays free to be a misconception), a key settled wrong is
    clamped as before.  Returns (λ for the EM, the clamp for the EM, ψ =
    P(W | the models reject the key, evidence)) per item.

    >>> lam, c, psi = belief_inputs(np.array([0.0, 0.0]), np.array([np.nan, 0.0]), 0.25)
    >>> [round(float(x), 3) for x in lam], [round(float(x), 2) for x in psi]
    ([0.0, -0.288], [0.25, 0.0])
    """
    ph = np.clip(np.asarray(phi, dtype=float), 1e-6, 1 - 1e-6)
    lam = np.logaddexp(np.log(ph) + evidence_llr, np.log1p(-ph))
    psi = 1.0 / (1.0 + np.exp(-np.clip(np.log(ph) - np.log1p(-ph) + evidence_llr, -700, 700)))
    if clamp is None:
        return lam, None, psi
    right = clamp == 0
    lam = np.where(right, np.log1p(-ph), lam)
    psi = np.where(right, 0.0, np.where(clamp == 1, 1.0, psi))
    return lam, np.where(right, np.nan, clamp), psi


def combined_score(prior_logit: ArrayLike, llr_models: ArrayLike, evidence_llr: ArrayLike, phi: ArrayLike
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(score, p_reject) of items from the stored parts of their fit: the
    belief prior's logit (the subject's rate of rejected keys), the models'
    log LR and the other evidence λ (key wrong : key right), with the
    misconception split φ.  The same algebra as the fit's last E-step:
    p_reject = σ(prior + llr_models + log(φe^λ + 1 − φ)), score = p_reject·ψ.

    >>> s, b = combined_score([-3.0], [10.0], [0.0], 0.25)
    >>> round(float(b[0]), 3), round(float(s[0]), 3)
    (0.999, 0.25)
    """
    lam, _, psi = belief_inputs(np.asarray(evidence_llr, dtype=np.float64), None, phi)
    z = np.asarray(prior_logit, dtype=np.float64) + np.asarray(llr_models, dtype=np.float64) + lam
    b = 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))
    return b * psi, b


def fit_misconception_prior_bands(p_reject: ArrayLike, wrong: ArrayLike, agreement: ArrayLike) -> np.ndarray:
    """:func:`fit_misconception_prior` in each band of :data:`PHI_BANDS`
    (clipped to [0.02, 0.98]: a band without a labelled wrong key still
    keeps a small chance), made non-decreasing in the agreement.

    >>> fit_misconception_prior_bands([1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 1, 0], [0.5, 0.5, 0.8, 0.8, 0.95, 0.95]).tolist()
    [0.26, 0.26, 0.5]
    """
    band = phi_band(agreement)
    b = np.asarray(p_reject, dtype=float)
    y = np.asarray(wrong, dtype=bool)
    est = [min(max(fit_misconception_prior(b[band == k], y[band == k]), 0.02), 0.98) if (band == k).any()
           else PHI_PRIOR_MEAN[k] for k in range(len(PHI_BANDS) + 1)]
    # non-decreasing in the agreement (pool adjacent violators, weighted by
    # the rejected keys in each band): more models on one other answer never
    # makes a wrong key less likely, and the order of the queue stays that of p_reject × agreement
    blocks = [[est[k], max(float(b[band == k].sum()), 1e-9), 1] for k in range(len(est))]
    i = 0
    while i < len(blocks) - 1:
        if blocks[i][0] > blocks[i + 1][0]:
            v0, w0, n0 = blocks[i]
            v1, w1, n1 = blocks.pop(i + 1)
            blocks[i] = [(v0 * w0 + v1 * w1) / (w0 + w1), w0 + w1, n0 + n1]
            i = max(i - 1, 0)
        else:
            i += 1
    return np.array([v for v, _, n in blocks for _ in range(int(n))])


def fit_misconception_strength(p_reject: ArrayLike, wrong: ArrayLike, group: ArrayLike) -> float:
    """Empirical-Bayes strength of the misconception prior: how many rejected
    keys of a new benchmark (or subject) a φ fitted elsewhere is worth, from
    how much φ varies between groups (subjects) beyond binomial noise.

    Method of moments for the beta-binomial (Kleinman 1973, Proportions with
    extraneous variance: single and independent samples, JASA 68): per group g, n_g = Σ p_reject (the
    rejected keys), k_g the labelled wrong keys, φ̂_g = k_g / n_g; pooled
    m = Σ k / Σ n; S = Σ n_g (φ̂_g − m)²; since E[S] = m(1 − m)(G − 1) +
    τ²(N − Σ n_g² / N), the between-group variance is τ² = (S − m(1 − m)(G −
    1)) / (N − Σ n_g² / N) and a Beta prior with that spread has strength
    m(1 − m) / τ² − 1.  ``inf`` when the groups vary no more than noise.

    >>> rng = np.random.default_rng(3)
    >>> g = np.repeat(np.arange(40), 50)
    >>> y = rng.random(2000) < rng.beta(6, 14, 40)[g]       # φ ~ Beta(6, 14): strength 20
    >>> 8 < fit_misconception_strength(np.ones(2000), y, g) < 50
    True
    """
    b = np.clip(np.nan_to_num(np.asarray(p_reject, dtype=float)), 0.0, 1.0)
    y = np.asarray(wrong, dtype=bool)
    _, gi = np.unique(np.asarray(group), return_inverse=True)
    n = np.bincount(gi, weights=b)
    k = np.bincount(gi, weights=y.astype(float))
    keep = n > 0
    n, k = n[keep], k[keep]
    N = float(n.sum())
    if len(n) < 2 or N <= 0:
        return math.inf
    m = float(k.sum()) / N
    S = float((n * (k / n - m) ** 2).sum())
    tau2 = (S - m * (1 - m) * (len(n) - 1)) / (N - float((n ** 2).sum()) / N)
    return m * (1 - m) / tau2 - 1.0 if tau2 > 0 else math.inf


def fit_misconception_prior(p_reject: ArrayLike, wrong: ArrayLike) -> float:
    """Maximum-likelihood φ = P(key wrong | the models reject the key) from
    expert-labelled items: label_i ~ Bernoulli(φ·p_reject_i) (p_reject from
    a fit without the labels).  How :data:`PHI_PRIOR_MEAN` was obtained on
    MMLU-Redux (tests/bench/bench_calibration.py, with leave-one-subject-out
    refits to show how much it moves).

    >>> rng = np.random.default_rng(1)
    >>> b = np.r_[np.ones(2000), np.zeros(2000)]
    >>> y = rng.random(4000) < 0.3 * b
    >>> bool(abs(fit_misconception_prior(b, y) - y.sum() / 2000) < 1e-3)   # the share of wrong keys among rejected ones
    True
    """
    b = np.clip(np.asarray(p_reject, dtype=float), 0.0, 1.0)
    y = np.asarray(wrong, dtype=bool)
    ok = ~np.isnan(b)
    b, y = b[ok], y[ok]
    grid = np.linspace(0.001, 0.999, 999)
    pb = np.clip(grid[:, None] * b[None, :], 1e-12, 1 - 1e-12)
    ll = np.where(y[None, :], np.log(pb), np.log1p(-pb)).sum(1)
    return float(grid[int(np.argmax(ll))])
