"""What the answers say about the model set, and whether the split was
learned on sets like it.

:func:`set_features` summarises a benchmark's model set in a few numbers
(how many models, how accurate beyond chance, how unequal, whether one
model is far ahead, how often the models agree on a distractor, the options
count, how often they reject the key).  :func:`extrapolation` compares them
with the ranges over the model sets the split was learned on
(:data:`~audit.analyze.keyerror._split.TRAINING_DOMAIN`) and returns the
reasons, as codes with their figures, when the set lies outside: the
report, the Dashboards page and the DATASHEET then say so in plain words
(the sentences live in :mod:`audit.i18n`) and the prior's uncertainty is
widened (:meth:`~audit.analyze.keyerror._split.SplitPrior.widened`).  The
count already rests on the base rate of wrong keys — the answers never set
the level — so what changes outside the domain is how little is known.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

#: The reason codes of :func:`extrapolation`, in the order they are told.
REASONS = ("near_chance", "one_model_ahead", "few_models", "options", "rejected")


def set_features(counts: ArrayLike, key: ArrayLike, n_options: ArrayLike, p_reject: ArrayLike,
                 model_correct: ArrayLike, model_answered: ArrayLike, n_items: int | None = None) -> dict:
    """The model set's summary (per-set aggregates):

    * ``n_models``;
    * ``accuracy`` — the mean over the models of κ_j = (acc_j − 1/K̄)/(1 −
      1/K̄), acc_j their share of usable answers on the key and K̄ the mean
      options count (how far from chance to perfect);
    * ``spread`` — the standard deviation of κ_j;
    * ``top_gap`` — the most accurate model's log-odds of giving the key
      minus the mean of the others' (one model far ahead);
    * ``distractor_agreement`` — how often two models that both leave the
      key pick the same distractor, chance-corrected: (D − 1/(K̄ − 1)) / (1 −
      1/(K̄ − 1)), D = Σ over non-key letters of C(c, 2) / Σ over items of
      C(errors, 2);
    * ``chance`` = 1/K̄; ``rejected`` = the mean p_reject.

    ``counts``: items × letters, usable answers per letter; ``model_correct``
    / ``model_answered``: per model, answers equal to the key / usable
    answers; ``n_items`` (default: the rows of ``counts``) for the top gap's
    accuracy over all items (a missing answer counts as not the key).

    >>> f = set_features([[3, 1, 0, 0], [0, 2, 2, 0]], [0, 1], [4, 4], [0.01, 0.3], [2, 2, 1, 0], [2, 2, 2, 2])
    >>> f["n_models"], round(f["distractor_agreement"], 3), round(f["accuracy"], 3)
    (4, 1.0, 0.5)
    """
    C = np.asarray(counts, dtype=float)
    k = np.asarray(key, dtype=np.int64)
    K = np.asarray(n_options, dtype=float)
    kbar = float(K.mean()) if len(K) else 4.0
    n = len(k)
    nonkey = C.copy()
    if n:
        ok = (k >= 0) & (k < C.shape[1])
        nonkey[np.flatnonzero(ok), k[ok]] = 0.0
    errs = nonkey.sum(1)
    pairs = float((errs * (errs - 1) / 2).sum())
    chance_d = 1.0 / max(kbar - 1, 1.0)
    D = float((nonkey * (nonkey - 1) / 2).sum()) / pairs if pairs > 0 else chance_d
    corr = np.asarray(model_correct, float)
    acc = corr / np.maximum(np.asarray(model_answered, float), 1)
    kappa = (acc - 1 / kbar) / (1 - 1 / kbar)
    acc_all = np.clip(corr / float(max(n if n_items is None else n_items, 1)), 1e-3, 1 - 1e-3)
    lg = np.log(acc_all) - np.log1p(-acc_all)
    gap = 0.0
    if len(lg) > 1:
        top = int(np.argmax(lg))
        gap = float(lg[top] - np.delete(lg, top).mean())
    return {"n_models": int(len(corr)), "accuracy": float(kappa.mean()) if len(kappa) else 0.0,
            "spread": float(kappa.std()) if len(kappa) else 0.0, "top_gap": gap,
            "distractor_agreement": float((D - chance_d) / (1 - chance_d)) if chance_d < 1 else 0.0,
            "chance": 1.0 / kbar,
            "rejected": float(np.clip(np.nan_to_num(np.asarray(p_reject, float)), 0, 1).mean()) if n else 0.0}


def extrapolation(features: dict, domain: dict, *, tol: float = 0.02) -> list[tuple[str, dict]]:
    """The reasons the model set lies outside ``domain`` (the ranges of
    :func:`set_features` over the sets the split was learned on, widened by
    ``tol``), as (code, figures) in the order of :data:`REASONS`; empty
    inside.  Codes: ``near_chance`` (less accurate beyond chance than any
    training set: ``accuracy``, ``lowest``), ``one_model_ahead`` (one model
    carries the evidence alone), ``few_models`` (``n``, ``fewest``),
    ``options`` (another options count: ``k``, ``trained``), ``rejected``
    (more keys rejected than on any training set: ``share``, ``highest``).

    >>> dom = {"accuracy": (0.21, 0.79), "top_gap": (0.0, 3.4), "n_models": (3, 20), "chance": (0.25, 0.25),
    ...        "rejected": (0.03, 0.45)}
    >>> [c for c, _ in extrapolation({"accuracy": 0.08, "top_gap": 0.5, "n_models": 2, "chance": 0.25,
    ...                                "rejected": 0.2}, dom)]
    ['near_chance', 'few_models']
    >>> extrapolation({"accuracy": 0.5, "top_gap": 0.5, "n_models": 4, "chance": 0.25, "rejected": 0.2}, dom)
    []
    """
    out: dict[str, dict] = {}
    for name, (lo, hi) in (domain or {}).items():
        v = features.get(name)
        if v is None:
            continue
        if name == "accuracy" and v < lo - tol:
            out["near_chance"] = {"accuracy": max(float(v), 0.0), "lowest": float(lo)}
        elif name == "top_gap" and v > hi + tol:
            out["one_model_ahead"] = {}
        elif name == "n_models" and v < lo:
            out["few_models"] = {"n": int(v), "fewest": int(lo)}
        elif name == "chance" and not lo - tol <= v <= hi + tol:
            out["options"] = {"k": round(1.0 / v, 1), "trained": int(round(1.0 / lo))}
        elif name == "rejected" and v > hi + tol:
            out["rejected"] = {"share": float(v), "highest": float(hi)}
    return [(c, out[c]) for c in REASONS if c in out]


__all__ = ["REASONS", "set_features", "extrapolation"]
