"""The Dawid–Skene estimate of each reviewer's error rates from everyone's
verdicts, without knowing the truth of most items.

Model (Dawid & Skene 1979): each item *i* has an unknown true class
``T_i`` drawn from the class prior ``π``; reviewer *w*, whatever the other
reviewers say, gives label *l* to an item of true class *k* with
probability ``θ_w[k, l]`` (their confusion matrix).  The EM algorithm
alternates

* E-step: ``P(T_i = k | labels) ∝ π_k · Π_{(w, l) on i} θ_w[k, l]``;
* M-step: ``π_k`` = mean of those posteriors, ``θ_w[k, l]`` ∝ the expected
  number of items of class *k* that *w* labelled *l*;

starting from the majority vote, until the posteriors move less than
``tol``.  Items whose truth is known (the known-answer items) keep it: their
posterior is fixed at their class (the semi-supervised variant).  A small
pseudo-count (``smoothing``) is added to every cell of every confusion
matrix and of the prior, so a reviewer who never gave a label is not
certain never to give it (a Dirichlet prior; the maximum-likelihood
estimate is ``smoothing=0``).

A reviewer's estimated accuracy is the probability that their label is the
true class of an item drawn from the prior: ``Σ_k π_k θ_w[k, k]``.

Reference: A. P. Dawid and A. M. Skene (1979), "Maximum likelihood
estimation of observer error-rates using the EM algorithm", Journal of the
Royal Statistical Society, Series C (Applied Statistics) 28(1):20-28.

Pure: arrays and DataFrames in, a :class:`DawidSkene` result out.

>>> import pandas as pd
>>> votes = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
...                       "worker": ["a", "b", "c"] * 4,
...                       "label": ["x", "x", "y", "y", "y", "y", "x", "x", "x", "y", "y", "x"]})
>>> fit = dawid_skene(votes)
>>> fit.classes, fit.posteriors.idxmax(axis=1).tolist()
(['x', 'y'], ['x', 'y', 'x', 'y'])
>>> fit.accuracy.round(2).to_dict()
{'a': 1.0, 'b': 1.0, 'c': 0.5}
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class DawidSkene:
    """The fitted model.  ``confusion[w]``: a K × K array, rows the true
    class, columns the label given (rows sum to 1); ``posteriors``: items ×
    classes; ``accuracy``: reviewer → ``Σ_k π_k θ_w[k, k]``;
    ``log_likelihood`` of the labels under the fit (without the smoothing
    prior)."""

    classes: list
    prior: np.ndarray
    confusion: dict
    posteriors: pd.DataFrame
    accuracy: pd.Series
    n_iter: int
    converged: bool
    log_likelihood: float


def dawid_skene(labels: pd.DataFrame, *, classes: Sequence | None = None, known: Mapping | pd.Series | None = None,
                smoothing: float = 0.01, max_iter: int = 200, tol: float = 1e-6,
                item: str = "item", worker: str = "worker", label: str = "label") -> DawidSkene:
    """Fit the Dawid–Skene model to ``labels`` (one row per verdict: the
    columns ``item``, ``worker``, ``label``; one label per worker and item —
    keep each reviewer's current verdict).  ``classes``: the label set
    (default: the labels seen, sorted); ``known``: item → true class for the
    items whose truth is known (their posterior is clamped)."""
    if smoothing < 0 or max_iter < 1 or tol <= 0:
        raise ValueError("smoothing must be >= 0, max_iter >= 1 and tol > 0")
    df = labels[[item, worker, label]].dropna()
    if df.duplicated([item, worker]).any():
        raise ValueError("one label per worker and item: keep each worker's current label")
    cls = list(classes) if classes is not None else sorted(df[label].unique().tolist())
    unknown = sorted(set(df[label]) - set(cls), key=str)
    if unknown:
        raise ValueError(f"labels outside the classes: {unknown}")
    items = pd.Index(pd.unique(df[item]))
    workers = pd.Index(sorted(pd.unique(df[worker]), key=str))
    K, n_i, n_w = len(cls), len(items), len(workers)
    if n_i == 0 or K == 0:
        return DawidSkene(cls, np.full(K, np.nan), {}, pd.DataFrame(columns=cls), pd.Series(dtype=float), 0,
                          True, 0.0)
    ii = items.get_indexer(df[item])
    ww = workers.get_indexer(df[worker])
    ll = pd.Index(cls).get_indexer(df[label])

    clamp = np.full(n_i, -1)
    if known is not None:
        kn = pd.Series(known)
        kn = kn[kn.index.isin(items)]
        bad = sorted(set(kn) - set(cls), key=str)
        if bad:
            raise ValueError(f"known classes outside the classes: {bad}")
        clamp[items.get_indexer(kn.index)] = pd.Index(cls).get_indexer(kn.to_numpy())
    fixed = clamp >= 0

    # start: the majority vote (each item's share of labels per class)
    T = np.zeros((n_i, K))
    np.add.at(T, (ii, ll), 1.0)
    T /= T.sum(axis=1, keepdims=True)
    T[fixed] = np.eye(K)[clamp[fixed]]

    converged = False
    n_iter = 0
    prior = np.full(K, 1.0 / K)
    theta = np.full((n_w, K, K), 1.0 / K)
    for n_iter in range(1, max_iter + 1):
        prior, theta = _m_step(T, ii, ww, ll, n_w, K, smoothing)
        T_new, _ = _e_step(prior, theta, ii, ww, ll, n_i)
        T_new[fixed] = np.eye(K)[clamp[fixed]]
        delta = float(np.abs(T_new - T).max())
        T = T_new
        if delta < tol:
            converged = True
            break
    _, loglik = _e_step(prior, theta, ii, ww, ll, n_i)
    acc = pd.Series([float(prior @ np.diag(theta[w])) for w in range(n_w)], index=workers, dtype=float)
    return DawidSkene(cls, prior, {w: theta[j] for j, w in enumerate(workers)},
                      pd.DataFrame(T, index=items, columns=cls), acc, n_iter, converged, loglik)


def _m_step(T, ii, ww, ll, n_w, K, smoothing):
    prior = T.sum(axis=0) + smoothing
    prior /= prior.sum()
    counts = np.full((n_w, K, K), smoothing)
    # counts[w, k, l] += T[i, k] for every label l that w gave item i
    np.add.at(counts, (ww, slice(None), ll), T[ii])
    rows = counts.sum(axis=2, keepdims=True)
    theta = np.divide(counts, rows, out=np.full_like(counts, 1.0 / K), where=rows > 0)
    return prior, theta


def _e_step(prior, theta, ii, ww, ll, n_i):
    with np.errstate(divide="ignore"):
        logp = np.tile(np.log(prior), (n_i, 1))
        np.add.at(logp, ii, np.log(theta[ww, :, ll]))
    m = logp.max(axis=1, keepdims=True)
    p = np.exp(logp - m)
    z = p.sum(axis=1, keepdims=True)
    return p / z, float((np.log(z) + m).sum())


__all__ = ["DawidSkene", "dawid_skene"]
