"""How the split's constants are fitted on expert-labelled model sets
(offline: nothing here runs at analysis time).

Maximum likelihood of label_i ~ Bernoulli(q_i(θ)) over the labelled items
of every configuration (a model set answering a labelled benchmark), each
configuration weighted so that each labelled *set* counts equally:
θ = (logit π, logit s, β1, β0, β2, β1', s') of
:class:`~audit.analyze.keyerror._split.SplitPrior`; γ = 1 is fixed (wrong
keys taken as equally frequent in every subject).  Nelder–Mead (scipy): the
likelihood is smooth but the level offset makes gradients awkward.  The
shipped constants come from 98 configurations of MMLU-Redux dev and MMLU-Pro
(``tests/bench/bench_key_error_model_sets.py`` fits them again, held out by
groups of subjects).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from audit.analyze.keyerror._split import SplitPrior, split

#: θ's order and the shipped values as the fit's start.
THETA = ("logit_pi", "logit_s", "strength_slope", "held_slope", "top_slope", "slope_by_accuracy",
         "sensitivity_by_accuracy")
START = (float(np.log(0.0233 / (1 - 0.0233))), 1.29, 5.0, 3.06, 1.68, 8.3, -2.27)


def prior_of(theta: np.ndarray, **kw: object) -> SplitPrior:
    """The :class:`SplitPrior` of θ (``kw``: its other fields).

    >>> round(prior_of(np.array(START)).base_rate, 4)
    0.0233
    """
    th = np.r_[np.asarray(theta, dtype=float), np.zeros(len(THETA) - len(theta))]
    sig = lambda z: float(1.0 / (1.0 + np.exp(-z)))  # noqa: E731
    return replace(SplitPrior(base_rate=sig(th[0]), sensitivity=sig(th[1]), strength_slope=float(th[2]),
                              held_slope=float(th[3]), top_slope=float(th[4]), slope_by_accuracy=float(th[5]),
                              sensitivity_by_accuracy=float(th[6])), **kw)  # type: ignore[arg-type]


def fit_split_prior(data: list[dict], *, start: tuple[float, ...] = START, fixed: dict | None = None,
                    maxiter: int = 3000, **prior_kw: object) -> tuple[SplitPrior, dict]:
    """θ maximising Σ_c w_c Σ_i log Bernoulli(y_i | q_i(θ)) over each
    configuration's labelled items.  ``data``: one dict per configuration
    with ``p`` (p_reject), ``v`` (evidence share), ``t`` (top model holds),
    ``eps_s`` (subject rate), ``y`` (the experts' "key wrong"), ``mask``
    (the items whose labels may be used), ``set`` (the labelled set's name)
    and ``acc`` (κ̄); ``fixed``: θ's entries held at a value (index → value);
    ``prior_kw``: the returned prior's other fields (strengths, domain).
    Returns (the prior, {theta, nll, ok}).

    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[np.ones(40), np.zeros(960)]; y = np.r_[rng.random(40) < 0.5, np.zeros(960, bool)]
    >>> d = [{"p": p, "v": p * 2 - 1, "t": 1 - p, "eps_s": np.full(1000, 0.04), "y": y,
    ...       "mask": np.ones(1000, bool), "set": "toy", "acc": 0.5}]
    >>> pr, info = fit_split_prior(d, fixed={2: 5.0, 3: 3.0, 4: 1.7, 5: 0.0, 6: 0.0}, maxiter=400)
    >>> bool(abs(pr.base_rate * 1000 - y.sum()) < 1.0)            # the level: the labelled rate
    True
    """
    from scipy.optimize import minimize

    sets: dict = {}
    for d in data:
        sets[d["set"]] = sets.get(d["set"], 0) + 1
    wts = [1.0 / sets[d["set"]] / len(sets) for d in data]
    fixed = fixed or {}
    free = [k for k in range(len(THETA)) if k not in fixed]

    def full(x: np.ndarray) -> np.ndarray:
        th = np.asarray(start, dtype=float).copy()
        th[free] = x
        for k, val in fixed.items():
            th[k] = val
        return th

    def nll(x: np.ndarray) -> float:
        pr = prior_of(full(x))
        tot = 0.0
        for d, w in zip(data, wts):
            q = np.clip(split(d["p"], d["v"], d["t"], d["eps_s"], pr, accuracy=d["acc"]).score[d["mask"]],
                        1e-9, 1 - 1e-9)
            y = np.asarray(d["y"], dtype=bool)[d["mask"]]
            tot -= w * float(np.sum(np.where(y, np.log(q), np.log1p(-q))))
        return tot

    res = minimize(nll, np.asarray(start, dtype=float)[free], method="Nelder-Mead",
                   options={"maxiter": maxiter, "xatol": 1e-4, "fatol": 1e-7})
    th = full(res.x)
    return prior_of(th, **prior_kw), {"theta": th, "nll": float(res.fun), "ok": bool(res.success)}


def training_domain(features: list[dict]) -> dict:
    """The range of each set feature (:func:`~audit.analyze.keyerror._modelset.set_features`)
    over the training configurations: the domain :func:`~audit.analyze.keyerror._modelset.extrapolation`
    checks against.

    >>> domain = training_domain([{"accuracy": 0.3, "top_gap": 1.0, "n_models": 4, "chance": 0.25, "rejected": 0.1},
    ...                           {"accuracy": 0.7, "top_gap": 0.2, "n_models": 8, "chance": 0.25, "rejected": 0.05}])
    >>> domain["accuracy"]
    (0.3, 0.7)
    """
    return {k: (float(min(f[k] for f in features)), float(max(f[k] for f in features)))
            for k in ("accuracy", "top_gap", "n_models", "chance", "rejected")}


__all__ = ["THETA", "START", "prior_of", "fit_split_prior", "training_domain"]
