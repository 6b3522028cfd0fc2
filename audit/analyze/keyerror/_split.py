"""A rejected key: a wrong key or a shared misconception — the split that
depends on the model set.

The EM (:mod:`audit.analyze.keyerror._model`) gives p_i = P(B_i ≠ key |
answers): the answer the *models* hold is not the key.  That covers two
states the answers cannot tell apart: the key is wrong (W), or the key is
right and the models share a misconception (M).  Their answers have the
same likelihood under both, so the split rests on what was learned
elsewhere.  One fixed share per agreement band, learned on 14 strong
models, tripled the count for weak models (they reject right keys far more
often).  Refitting such a share on the model set does not cure it either:
every labelled model set sees the same 2.3% of wrong keys, so a share
fitted on them learns "2.3% of the items" in disguise.  So the model says
it openly and splits the score into a **level** and an **allocation**:

    q_i = P(W_i | answers, evidence) = σ(α + log m_i + λ_i),
    m_i = s·h1_i + (1 − s)·h0_i,     α such that Σ_i q_i = n·π

* **The level π** — the benchmark's rate of wrong keys.  The expected count
  is n·π exactly (:func:`level_offset` solves α).  π has a Beta prior
  (:class:`SplitPrior`: mean ``base_rate``, worth ``base_strength`` items)
  and the models' answers never move it: only verdicts that are not
  selected on the score do (the random audit sample,
  :mod:`audit.analyze.keyerror._level`).
* **The allocation** — where the wrong keys are, from the answers:

      h1_i ∝ p_i · exp(β1·(max(v_i, 0) − 1) − β2·t_i) · (ε̄ / ε_s(i))^γ
      h0_i ∝ (1 − p_i) · exp(β0·v_i)                  (each with mean 1)

  s is the share of the wrong keys the models reject (the rest they hold:
  6 of MMLU-Redux's 35); v_i the models' log likelihood ratio as a share of
  the most the set can give (:func:`evidence_share`); t_i = 1 when the
  set's most accurate model gives the key (:func:`top_model_holds`); ε_s
  the EM's rate of rejected keys in the item's subject, ε̄ the mean p.  In
  words: a rejected key is the more likely wrong the more of the set's
  evidence rejects it (β1, steeper for accurate sets), much less likely
  when the most accurate model holds it (β2), and less likely in a subject
  whose keys the models reject often — a hard subject (γ = 1: wrong keys
  taken as equally frequent in every subject); a key the models hold is
  more likely wrong when part of the evidence goes against it (β0).
* **Other evidence** λ_i (a parallel source's key, duplicate options,
  judges) moves mass between items: α is solved again with it, so the level
  stays the level.  Settled verdicts clamp their items to 0 or 1 and the
  rest share what is left of n·π (:func:`scores`).

σ(α + log m) keeps odds proportional to m (Bayes' rule for a likelihood
ratio), so no probability passes 1.  The model set enters through p, v, t,
ε_s and its chance-corrected accuracy κ̄, which steepens β1 and lowers s.

**The fitted constants** (:data:`SPLIT_PRIOR`) are a maximum-likelihood
fit (label_i ~ Bernoulli(q_i); :func:`fit_split_prior`) over 98 labelled
model-set configurations of two expert-labelled sets — MMLU-Redux dev (14
HELM models, 1,500 items, 35 wrong keys; Gema et al. 2024) and MMLU-Pro's
answers on 835 of those items (30 models from 19% to 89% accurate; Wang et
al. 2024): weakest-k and strongest-k, random k = 3–8 models, one strong
model among weak ones, the middle of the range — each set weighted
equally.  Held out by groups of subjects, the counts, per-model costs,
score bands and rankings of every configuration are on the figures page
(``tests/bench/bench_key_error_model_sets.py``).  β1' is weakly identified
(0.4–10.9 over the five held-out fits).  The level's strength (60 items: a
factor of about 6 either way in 90% of its mass) is an assumption, not a
measurement: published rates of label errors in test sets range from 0.15%
to 10% (Northcutt, Athalye & Mueller 2021).

References: A. P. Dawid & A. M. Skene (1979), JRSS C 28 (the EM); A. Gelman
et al. (2013), *Bayesian Data Analysis*, 3rd ed.; C. G. Northcutt, A.
Athalye & J. Mueller (2021), Pervasive label errors in test sets
destabilize machine learning benchmarks, NeurIPS Datasets and Benchmarks;
A. P. Gema et al. (2024), Are we done with MMLU?; Y. Wang et al. (2024),
MMLU-Pro.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

#: The ranges of :func:`~audit.analyze.keyerror._modelset.set_features` over
#: the 98 training configurations: the model sets the split was learned on.
TRAINING_DOMAIN = {"accuracy": (0.213, 0.785), "top_gap": (0.039, 3.346), "n_models": (3, 20),
                   "chance": (0.25, 0.25), "rejected": (0.029, 0.454)}


@dataclass(frozen=True)
class SplitPrior:
    """The split's constants (module docstring): ``base_rate`` and
    ``base_strength`` the Beta prior of the level π (mean, pseudo-items);
    ``sensitivity`` and ``s_strength`` the Beta prior of s (mean at κ̄ = ½,
    pseudo wrong keys); ``strength_slope`` β1, ``held_slope`` β0,
    ``top_slope`` β2, ``subject_power`` γ; ``slope_by_accuracy`` and
    ``sensitivity_by_accuracy``: how β1 and logit s move per unit of κ̄ − ½;
    ``domain``: the range of each set feature over the sets it was learned on."""

    base_rate: float = 0.0231
    base_strength: float = 60.0
    sensitivity: float = 0.784
    s_strength: float = 20.0
    strength_slope: float = 5.01
    held_slope: float = 3.06
    top_slope: float = 1.68
    subject_power: float = 1.0
    slope_by_accuracy: float = 8.34
    sensitivity_by_accuracy: float = -2.27
    domain: dict = field(default_factory=lambda: dict(TRAINING_DOMAIN))

    @property
    def pi_ab(self) -> tuple[float, float]:
        """The level's Beta prior (a, b)."""
        return (self.base_rate * self.base_strength, (1 - self.base_rate) * self.base_strength)

    def s_ab_at(self, accuracy: float = 0.5) -> tuple[float, float]:
        """The Beta prior of s for a set of chance-corrected accuracy κ̄.

        >>> [round(x, 2) for x in SplitPrior().s_ab_at(0.5)]
        [15.68, 4.32]
        """
        z = math.log(self.sensitivity / (1 - self.sensitivity)) + self.sensitivity_by_accuracy * (accuracy - 0.5)
        s = 1.0 / (1.0 + math.exp(-z))
        return (s * self.s_strength, (1 - s) * self.s_strength)

    def slope_at(self, accuracy: float = 0.5) -> float:
        """β1 for a set of chance-corrected accuracy κ̄."""
        return self.strength_slope + self.slope_by_accuracy * (accuracy - 0.5)

    def widened(self) -> "SplitPrior":
        """The prior with its uncertainty widened for a model set outside the
        training domain: the level's Beta worth half as many items, s's a
        quarter (the means unchanged: the count rests on the base rate)."""
        return replace(self, base_strength=self.base_strength / 2, s_strength=self.s_strength / 4)


#: The least expected count the unsettled items keep when the settled wrong
#: keys reach the level's total: enough to keep them in order.
REST_MIN = 0.5

#: The shipped prior.  Read from this module at call time (``_split.SPLIT_PRIOR``),
#: so a notebook or a bench trying another prior changes the fit and the update alike.
SPLIT_PRIOR = SplitPrior()


def evidence_share(llr: ArrayLike, reliability: ArrayLike, weight: ArrayLike, n_options: ArrayLike) -> np.ndarray:
    """v_i: the models' log likelihood ratio (key wrong : key right) as a
    share of the largest the set can give, L_i = Σ_j w_j·log(a_j (K_i − 1) /
    (1 − a_j)) (every model on one other answer), clipped to [−1, 1].  The
    item's own options count K_i sets its chance rate.

    >>> evidence_share([-9.0, 0.0, 3.0, 50.0], [0.8, 0.8], [1.0, 1.0], [4, 4, 4, 4]).round(3).tolist()
    [-1.0, 0.0, 0.604, 1.0]
    >>> evidence_share([3.0, 3.0], [0.8, 0.8], [1.0, 1.0], [4, 10]).round(3).tolist()   # more options: more to give
    [0.604, 0.419]
    """
    a = np.clip(np.asarray(reliability, dtype=float), 1e-4, 1 - 1e-4)
    w = np.asarray(weight, dtype=float)
    K = np.asarray(n_options, dtype=float)
    L = float((w * (np.log(a) - np.log1p(-a))).sum()) + float(w.sum()) * np.log(np.maximum(K - 1, 1))
    return np.clip(np.nan_to_num(np.asarray(llr, dtype=float)) / np.maximum(L, 1e-9), -1.0, 1.0)


def top_model_holds(correct_top: ArrayLike, answered_top: ArrayLike) -> np.ndarray:
    """t_i from the most accurate model's answers (the model giving the key
    on the most items): 1 when it gave the key, 0 when it gave another
    answer, and its share of keys over the items it answered when it gave
    no usable answer.

    >>> top_model_holds([True, False, False], [True, True, False]).tolist()
    [1.0, 0.0, 0.5]
    """
    c = np.asarray(correct_top, dtype=bool)
    a = np.asarray(answered_top, dtype=bool)
    fill = float(c[a].mean()) if a.any() else 0.5
    return np.where(a, c.astype(float), fill)


def allocation_parts(p_reject: ArrayLike, share: ArrayLike, top_holds: ArrayLike, subject_rate: ArrayLike,
                     prior: SplitPrior, accuracy: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """The allocation before its scaling: (a_i, b_i) with h1 ∝ a, h0 ∝ b
    (module docstring; ε̄ is a common factor of h1 and left out).  Kept per
    item so that a change of some items (a subject's rate after a verdict)
    rescales the others through the two sums only."""
    p = np.clip(np.nan_to_num(np.asarray(p_reject, dtype=float)), 0.0, 1.0)
    v = np.clip(np.nan_to_num(np.asarray(share, dtype=float)), -1.0, 1.0)
    t = np.clip(np.nan_to_num(np.asarray(top_holds, dtype=float), nan=0.5), 0.0, 1.0)
    eps_s = np.clip(np.asarray(subject_rate, dtype=float), 1e-6, 1.0)
    b1 = prior.slope_at(accuracy)
    a = p * np.exp(b1 * (np.maximum(v, 0.0) - 1.0) - prior.top_slope * t) * eps_s ** (-prior.subject_power)
    b = (1.0 - p) * np.exp(prior.held_slope * v)
    return a, b


def scaled(parts: ArrayLike) -> np.ndarray:
    """Parts scaled to mean 1 over the items (zeros when they sum to 0)."""
    x = np.asarray(parts, dtype=float)
    s = float(x.sum())
    return x * (len(x) / s) if s > 0 else np.zeros(len(x))


def allocation(p_reject: ArrayLike, share: ArrayLike, top_holds: ArrayLike, subject_rate: ArrayLike,
               prior: SplitPrior, accuracy: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(h1, h0): where the rejected and the held wrong keys fall, each with
    mean 1 over the items.

    >>> h1, h0 = allocation([0.9, 0.1, 0.0, 0.0], [1.0, 0.5, -0.5, -1.0], [0, 1, 1, 1], [0.1] * 4, SplitPrior())
    >>> h1.round(3).tolist(), h0.round(2).tolist()
    ([3.993, 0.007, 0.0, 0.0], [1.3, 2.54, 0.13, 0.03])
    """
    a, b = allocation_parts(p_reject, share, top_holds, subject_rate, prior, accuracy)
    return scaled(a), scaled(b)


def level_offset(m: ArrayLike, total: ArrayLike, *, lump: ArrayLike | float = 0.0, lump2: ArrayLike | float = 0.0,
                 lump3: ArrayLike | float = 0.0, alpha_max: float = np.inf, iters: int = 60) -> np.ndarray:
    """α with Σ_i σ(α + log m_i) + e^α·lump − e^{2α}·lump2 + e^{3α}·lump3 =
    total, per row of ``m`` (rows × items; ``total`` and the lumps per row):
    the offset that makes the items' probabilities sum to the expected count
    while none passes 1.  ``lump``, ``lump2``, ``lump3``: Σ m, Σ m², Σ m³ of
    items small enough to count by σ(x) = e^x − e^{2x} + e^{3x} − O(e^{4x})
    (over 100,000 items only the few large ones need the exact term).
    Safeguarded Newton on log Σ σ(·) from α0 = log total − log Σ m; a step
    that leaves the bracket is replaced by bisection.  −∞ for a total of 0,
    +∞ when the total is at least the number of items with m > 0.

    >>> m = np.array([[1.0, 1.0, 0.5]])
    >>> a = level_offset(m, [1.25])
    >>> round(float((1 / (1 + np.exp(-(a[0] + np.log(m[0]))))).sum()), 6)
    1.25
    """
    M = np.atleast_2d(np.asarray(m, dtype=float))
    T = np.broadcast_to(np.asarray(total, dtype=float), M.shape[:1]).copy()
    lump_a = np.broadcast_to(np.asarray(lump, dtype=float), M.shape[:1])
    lump_b = np.broadcast_to(np.asarray(lump2, dtype=float), M.shape[:1])
    lump_c = np.broadcast_to(np.asarray(lump3, dtype=float), M.shape[:1])
    with np.errstate(divide="ignore"):
        logm = np.log(M)
    tot_m = M.sum(1) + lump_a
    ok = (tot_m > 0) & (T > 0) & ((lump_a > 0) | (T < (M > 0).sum(1)))
    lo = np.where(ok, np.log(np.where(T > 0, T, 1.0)) - np.log(np.where(tot_m > 0, tot_m, 1.0)), 0.0)
    hi = np.minimum(lo + 60.0, np.maximum(alpha_max, lo))
    a = lo.copy()
    target = np.log(np.where(T > 0, T, 1.0))
    for _ in range(iters):
        q = 1.0 / (1.0 + np.exp(-(a[:, None] + logm)))
        ea = np.exp(a) * lump_a
        eb = np.exp(2 * a) * lump_b
        ec = np.exp(3 * a) * lump_c
        S = q.sum(1) + ea - eb + ec
        h = np.log(np.maximum(S, 1e-300))
        d = ((q * (1 - q)).sum(1) + ea - 2 * eb + 3 * ec) / np.maximum(S, 1e-300)
        below = h < target
        lo = np.where(below, np.maximum(lo, a), lo)
        hi = np.where(below, hi, np.minimum(hi, a))
        step = a + (target - h) / np.maximum(d, 1e-12)
        a_new = np.where((step > lo) & (step < hi), step, (lo + hi) / 2)
        done = bool(np.all(np.abs(a_new - a) < 1e-11))
        a = a_new
        if done:
            break
    return np.where(ok, a, np.where(T <= 0, -np.inf, np.inf))


def sigma_log(alpha: ArrayLike, m: ArrayLike) -> np.ndarray:
    """σ(α + log m), 0 where m = 0 or α = −∞, 1 where α = +∞ and m > 0."""
    m = np.asarray(m, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = np.asarray(alpha, dtype=float) + np.log(m)
        out = 1.0 / (1.0 + np.exp(-z))
    return np.nan_to_num(out, nan=0.0)


def scores(h1: ArrayLike, h0: ArrayLike, s: float, total: float, *, evidence_llr: ArrayLike | None = None,
           settled: ArrayLike | None = None, wrong: ArrayLike | None = None) -> tuple[np.ndarray, float]:
    """(q per item, α): every item's P(key wrong) when the benchmark holds
    ``total`` wrong keys (n·π) in all.  Settled items are clamped (1 where
    ``wrong``, else 0) and the unsettled share what is left of the total,
    total − the settled wrong keys (at least :data:`REST_MIN` when some
    are settled), in proportion to the odds m_i·e^{λ_i}: the wrong keys a
    campaign finds are part of the total, not a sign that there are more.

    >>> q, a = scores([3.0, 1.0, 0.0], [0.0, 1.0, 2.0], 0.8, 1.0)
    >>> round(float(q.sum()), 6)
    1.0
    >>> q2, _ = scores([3.0, 1.0, 0.0], [0.0, 1.0, 2.0], 0.8, 1.0, settled=[True, False, False], wrong=[False] * 3)
    >>> float(q2[0]), round(float(q2.sum()), 6), bool(q2[1] > q[1])     # one confirmed key: the rest hold the total
    (0.0, 1.0, True)
    """
    h1 = np.asarray(h1, dtype=float)
    m = s * h1 + (1.0 - s) * np.asarray(h0, dtype=float)
    if evidence_llr is not None:
        m = m * np.exp(np.clip(np.asarray(evidence_llr, dtype=float), -700, 700))
    st = np.zeros(len(m), bool) if settled is None else np.asarray(settled, dtype=bool)
    y = np.zeros(len(m), bool) if wrong is None else np.asarray(wrong, dtype=bool)
    found = float((st & y).sum())
    rest = max(float(total) - found, REST_MIN if found else 0.0)
    free = ~st
    alpha = float(level_offset(m[free][None, :], [rest])[0]) if free.any() else 0.0
    q = np.where(st, (st & y).astype(float), sigma_log(alpha, m))
    return q, alpha


@dataclass
class Split:
    """Result of :func:`split`: per item ``score`` (q_i), ``h1``, ``h0``; the
    Betas of π (``pi_a``, ``pi_b``) and of s (``s_a``, ``s_b``), ``alpha``
    (the level offset of the scores)."""

    score: np.ndarray
    h1: np.ndarray
    h0: np.ndarray
    pi_a: float
    pi_b: float
    s_a: float
    s_b: float
    alpha: float = 0.0

    @property
    def pi(self) -> float:
        return self.pi_a / (self.pi_a + self.pi_b)

    @property
    def s(self) -> float:
        return self.s_a / (self.s_a + self.s_b)


def split(p_reject: ArrayLike, share: ArrayLike, top_holds: ArrayLike, subject_rate: ArrayLike,
          prior: SplitPrior | None = None, *, accuracy: float = 0.5, evidence_llr: ArrayLike | None = None,
          pi_ab: tuple[float, float] | None = None, s_ab: tuple[float, float] | None = None) -> Split:
    """Every item's P(key wrong) under the prior (or under the Betas
    ``pi_ab`` / ``s_ab``), with other evidence ``evidence_llr`` (λ, key wrong :
    key right) moving mass between items at the same level.

    >>> sp = split([0.99, 0.5, 0.01, 0.0], [1.0, 0.6, 0.0, -0.5], [0, 0, 1, 1], [0.1] * 4)
    >>> round(float(sp.score.sum()), 6) == round(4 * sp.pi, 6)      # the expected count is n·π
    True
    >>> judged = split([0.99, 0.5, 0.01, 0.0], [1.0, 0.6, 0.0, -0.5], [0, 0, 1, 1], [0.1] * 4,
    ...                evidence_llr=[0.0, 2.0, 0.0, 0.0])
    >>> bool(judged.score[1] > sp.score[1]), round(float(judged.score.sum()), 6) == round(4 * sp.pi, 6)
    (True, True)
    """
    prior = SPLIT_PRIOR if prior is None else prior
    h1, h0 = allocation(p_reject, share, top_holds, subject_rate, prior, accuracy)
    pa, pb = prior.pi_ab if pi_ab is None else pi_ab
    sa, sb = prior.s_ab_at(accuracy) if s_ab is None else s_ab
    sp = Split(np.zeros(len(h1)), h1, h0, float(pa), float(pb), float(sa), float(sb))
    sp.score, sp.alpha = scores(h1, h0, sp.s, sp.pi * len(h1), evidence_llr=evidence_llr)
    return sp


__all__ = ["SplitPrior", "SPLIT_PRIOR", "TRAINING_DOMAIN", "REST_MIN", "Split", "split", "scores", "allocation",
           "allocation_parts", "scaled", "evidence_share", "top_model_holds", "level_offset", "sigma_log"]
