"""The level of the split — the benchmark's rate of wrong keys π — as
verdicts arrive, and the report's figures over its uncertainty.

**What moves the level.**  Only verdicts that were not chosen on the
score: the random audit sample (:mod:`audit.analyze.keyerror._sample`).
Its design-based rate, as a binomial count on its effective sample size
(:func:`~audit.analyze.keyerror._sample.effective_sample`), updates π's
Beta prior by conjugacy (Gelman et al. 2013, §2.4).  Verdicts from the top
of the queue do not: the top is chosen on the score, and the allocation is
not calibrated well enough there for its verdicts to say how many wrong
keys the *rest* holds (on the labelled model sets, updating the level from
the top 50 of the queue moved the remaining items' expected count away
from the truth in 7 of 8 sets tried; keeping the level and clamping moved
it toward the truth in all 8).

**What settled verdicts do to the scores.**  Every settled item is clamped
(key wrong: 1; any other settled verdict: 0) and the unsettled items share
n·π minus the wrong keys found (:func:`~audit.analyze.keyerror._split.scores`):
a campaign that finds more wrong keys at the top than the scores expected
leaves fewer for the rest.  At least :data:`~audit.analyze.keyerror._split.REST_MIN`
stays with them, so that they keep their order when a campaign has found as
many wrong keys as the level expects in all (the report then says so: only
the random audit sample can tell how many more there are).

**The report's figures** (:func:`count_and_cost`) integrate over π (its
truncated Beta) and s (its Beta) by quadrature: n_pi × n_s nodes, the
exact means of equal-probability slices; at each node the unsettled items'
q_i, their count normal with variance Σ q(1 − q) (its mean is exact), the
interval the mixture's quantiles; each model's accuracy on the items whose
key is right at each node, its mean and quantiles over the nodes.  Items
whose q stays below ``small_q`` at every node enter through Σ m, Σ m², Σ m³
(σ(x) = e^x − e^{2x} + e^{3x} − …), so 100,000 items cost a few products.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from audit.analyze.keyerror._split import REST_MIN, level_offset, sigma_log

LEVEL = 0.9


@dataclass(frozen=True)
class Level:
    """The level's distribution: π ~ Beta(a, b)."""

    a: float
    b: float

    @property
    def mean(self) -> float:
        """E[π].

        >>> round(Level(1.4, 58.6).mean, 4)
        0.0233
        """
        return self.a / (self.a + self.b)

    def nodes(self, k: int) -> np.ndarray:
        """k nodes: the exact means of k equal-probability slices of the Beta
        (E[π | slice] = E[π]·ΔI_x(a + 1, b) / ΔI_x(a, b)).

        >>> x = Level(2.0, 8.0).nodes(4); bool(np.all(np.diff(x) > 0)), round(float(x.mean()), 6)
        (True, 0.2)
        """
        from scipy.special import betainc, betaincinv

        a, b = self.a, self.b
        u = np.arange(k + 1) / k
        x = np.clip(betaincinv(a, b, u), 0.0, 1.0)
        x[0], x[-1] = 0.0, 1.0
        return a / (a + b) * np.diff(betainc(a + 1, b, x)) / np.diff(u)


def update_level(prior_ab: tuple[float, float], sample_wrong: float, sample_n: float) -> Level:
    """π after the random audit sample's verdicts: ``sample_wrong`` wrong keys
    out of an effective ``sample_n`` (a conjugate Beta update).

    >>> lv = update_level((1.4, 58.6), 0.0, 100.0)
    >>> round(lv.a, 1), round(lv.b, 1), round(lv.mean, 4)         # 100 sampled keys right: the level falls
    (1.4, 158.6, 0.0087)
    """
    a, b = prior_ab
    return Level(float(a) + float(sample_wrong), float(b) + float(sample_n) - float(sample_wrong))


def _slice_means(a: float, b: float, k: int) -> np.ndarray:
    return Level(a, b).nodes(k)


def count_and_cost(
    h1: ArrayLike,
    h0: ArrayLike,
    level: Level,
    s_ab: tuple[float, float],
    *,
    evidence_llr: ArrayLike | None = None,
    scored: ArrayLike | None = None,
    clamped: ArrayLike | None = None,
    clamp_value: ArrayLike | None = None,
    correct: np.ndarray | None = None,
    alt: np.ndarray | None = None,
    asked: np.ndarray | None = None,
    groups: ArrayLike | None = None,
    n_groups: int | None = None,
    interval: float = LEVEL,
    n_pi: int = 24,
    n_s: int = 5,
    small_q: float = 0.1,
) -> dict:
    """The expected number of wrong keys with its ``interval``, per group
    (``groups``: a code per item), and per model (``correct``, ``alt``:
    items × models, 1 where the model gave the key / the most probable other
    answer) the posterior mean of its accuracy on the items whose key is
    right and of its accuracy with the wrong keys replaced, with intervals;
    ``asked`` (items × models, 1 where the model was asked the item; default
    all) makes each model's accuracies over the items it was asked.

    ``scored``: the items the level is over (default all); ``clamped``:
    items whose state is known (settled, or outside the model: a key not
    among the options), with ``clamp_value`` (1 wrong, 0 right).  At each
    (π, s) node the scored unclamped items share n·π minus the clamped
    scored wrong keys.

    >>> rng = np.random.default_rng(0)
    >>> h1 = np.r_[np.full(20, 40.0), np.full(980, 0.2)]; h0 = np.ones(1000)
    >>> r = count_and_cost(h1, h0, Level(1.4, 58.6), (15.7, 4.3))
    >>> bool(r["low"] < r["estimate"] < r["high"]), round(r["estimate"], 2)
    (True, 23.33)
    """
    h1 = np.asarray(h1, dtype=float)
    h0 = np.asarray(h0, dtype=float)
    n = len(h1)
    sc = np.ones(n, bool) if scored is None else np.asarray(scored, dtype=bool)
    cl = np.zeros(n, bool) if clamped is None else np.asarray(clamped, dtype=bool)
    cv = np.zeros(n) if clamp_value is None else np.nan_to_num(np.asarray(clamp_value, dtype=float))
    cv = np.where(cl, cv, 0.0)
    lam = np.zeros(n) if evidence_llr is None else np.clip(np.nan_to_num(np.asarray(evidence_llr, float)), -700, 700)
    g = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    G = int(n_groups if n_groups is not None else (g.max() + 1 if n else 1))
    free = sc & ~cl
    n_scored = int(sc.sum())
    found = float(cv[sc & cl].sum())
    P = level.nodes(n_pi)
    S = _slice_means(*s_ab, n_s)
    C = None if correct is None else np.asarray(correct)
    if C is not None and C.dtype not in (np.float32, np.float64):
        C = C.astype(np.float32)
    Aa = None if alt is None or C is None else np.asarray(alt).astype(C.dtype)
    K = None if asked is None or C is None else np.asarray(asked).astype(C.dtype)
    J = 0 if C is None else C.shape[1]
    base_g = np.bincount(g, weights=cv, minlength=G)                # clamped wrong keys per group
    mu = np.zeros((n_s, n_pi, G))
    var = np.zeros((n_s, n_pi, G))
    X = np.zeros((n_s, n_pi, J))
    XA = np.zeros((n_s, n_pi, J))
    XK = np.zeros((n_s, n_pi, J))
    idx_free = np.flatnonzero(free)
    gf = g[idx_free]
    for k, s_ in enumerate(S):
        m = (s_ * h1[idx_free] + (1 - s_) * h0[idx_free]) * np.exp(lam[idx_free])
        rest = np.maximum(P * n_scored - found, REST_MIN)
        # items whose q stays below small_q at the top node count by the expansion of σ
        a_lin = math.log(max(float(rest.max()), 1e-300)) - math.log(max(float(m.sum()), 1e-300))
        small = m * math.exp(a_lin + 0.5) < small_q
        big = ~small
        ms = m[small]
        L1 = np.bincount(gf[small], weights=ms, minlength=G)
        L2 = np.bincount(gf[small], weights=ms ** 2, minlength=G)
        L3 = np.bincount(gf[small], weights=ms ** 3, minlength=G)
        al = level_offset(np.broadcast_to(m[big], (n_pi, int(big.sum()))), rest, lump=L1.sum(), lump2=L2.sum(),
                          lump3=L3.sum(), alpha_max=a_lin + 2.0)
        Q = sigma_log(al[:, None], m[big][None, :])                # nodes × big items
        e1 = np.where(np.isfinite(al), np.exp(np.minimum(al, 700)), 0.0)
        e2, e3 = e1 ** 2, e1 ** 3
        onehot = np.zeros((int(big.sum()), G))
        onehot[np.arange(int(big.sum())), gf[big]] = 1.0
        mu[k] = Q @ onehot + e1[:, None] * L1 - e2[:, None] * L2 + e3[:, None] * L3 + base_g
        var[k] = (Q * (1 - Q)) @ onehot + e1[:, None] * L1 - 2 * e2[:, None] * L2 + 3 * e3[:, None] * L3
        if C is not None:
            Cf = C[idx_free]
            ws = np.where(small, m, 0.0).astype(C.dtype)
            W3 = np.stack([ws, ws ** 2, ws ** 3], 1)
            E = np.stack([e1, -e2, e3], 1)
            X[k] = (Cf[big].T @ Q.T).T + E @ (Cf.T @ W3).T.astype(np.float64)
            if Aa is not None:
                Af = Aa[idx_free]
                XA[k] = (Af[big].T @ Q.T).T + E @ (Af.T @ W3).T.astype(np.float64)
            if K is not None:   # expected wrong keys among the items each model was asked
                Kf = K[idx_free]
                XK[k] = (Kf[big].T @ Q.T).T + E @ (Kf.T @ W3).T.astype(np.float64)
    mu2: np.ndarray = mu.reshape(-1, G)
    var2: np.ndarray = np.maximum(var.reshape(-1, G), 1e-12)
    mu, var = mu2, var2  # type: ignore[assignment]  # nodes flattened: (slices × nodes) × groups
    sd = np.sqrt(var)
    tail = (1 - interval) / 2
    low, high = _mixture_quantile(mu, sd, tail), _mixture_quantile(mu, sd, 1 - tail)
    out = {"nodes_mean": mu, "group_low": low, "group_high": high,
           "group_mean": mu.mean(0), "estimate": float(mu.sum(1).mean())}
    tot_mu, tot_sd = mu.sum(1, keepdims=True), np.sqrt(var.sum(1, keepdims=True))
    out["low"] = float(_mixture_quantile(tot_mu, tot_sd, tail)[0])
    out["high"] = float(_mixture_quantile(tot_mu, tot_sd, 1 - tail)[0])
    if C is not None:
        cw = (C[cl].T @ cv[cl].astype(C.dtype)).astype(np.float64) if cl.any() else np.zeros(J)
        X = X.reshape(-1, J) + cw[None, :]
        tot_c = C.sum(0, dtype=np.float64)
        if K is None:
            n_asked = np.full(J, float(n))
            wrong_asked = mu.sum(1)[:, None]
        else:
            n_asked = K.sum(0, dtype=np.float64)
            kw = (K[cl].T @ cv[cl].astype(C.dtype)).astype(np.float64) if cl.any() else np.zeros(J)
            wrong_asked = XK.reshape(-1, J) + kw[None, :]
        acc_right = (tot_c[None, :] - X) / np.maximum(n_asked[None, :] - wrong_asked, 1e-9)
        out["accuracy_right_keys"] = acc_right.mean(0)
        out["accuracy_right_keys_low"] = np.quantile(acc_right, tail, axis=0)
        out["accuracy_right_keys_high"] = np.quantile(acc_right, 1 - tail, axis=0)
        if Aa is not None:
            aw = (Aa[cl].T @ cv[cl].astype(C.dtype)).astype(np.float64) if cl.any() else np.zeros(J)
            XA = XA.reshape(-1, J) + aw[None, :]
            acc_corr = (tot_c[None, :] - X + XA) / np.maximum(n_asked, 1)[None, :]
            out["accuracy_corrected"] = acc_corr.mean(0)
            out["accuracy_corrected_low"] = np.quantile(acc_corr, tail, axis=0)
            out["accuracy_corrected_high"] = np.quantile(acc_corr, 1 - tail, axis=0)
    return out


def _mixture_quantile(mu: np.ndarray, sd: np.ndarray, p: float) -> np.ndarray:
    """The p-quantile of an equal-weight mixture of normals (nodes × groups),
    per group, by bisection; at least 0."""
    from scipy.special import ndtr

    lo = (mu - 8 * sd).min(0)
    hi = (mu + 8 * sd).max(0)
    for _ in range(60):
        mid = (lo + hi) / 2
        below = ndtr((mid[None, :] - mu) / sd).mean(0) < p
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return np.maximum((lo + hi) / 2, 0.0)


__all__ = ["Level", "update_level", "count_and_cost"]
