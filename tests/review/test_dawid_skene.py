"""The Dawid–Skene estimate (audit.review.dawid_skene): a case worked by
hand, an independent plain-Python EM on random labels, recovery of
simulated reviewers' accuracies, and known items held at their class."""
from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from audit.review.dawid_skene import dawid_skene


def test_a_case_worked_by_hand():
    # i1: a=x b=x; i2: a=x b=y; i3: a=y b=y.  Start (majority): [1,0], [.5,.5], [0,1].
    # M-step: prior [.5,.5]; θ_a = [[1, 0], [1/3, 2/3]], θ_b = [[2/3, 1/3], [0, 1]].
    # E-step: i1 ∝ [.5·1·2/3, .5·1/3·0] → [1, 0]; i2 ∝ [.5·1·1/3, .5·1/3·1] → [.5, .5]; i3 → [0, 1]:
    # unchanged, so the fit stops after one iteration; each likelihood term is 1/3.
    votes = pd.DataFrame({"item": ["i1", "i1", "i2", "i2", "i3", "i3"], "worker": ["a", "b"] * 3,
                          "label": ["x", "x", "x", "y", "y", "y"]})
    fit = dawid_skene(votes, smoothing=0.0)
    assert fit.converged and fit.n_iter == 1
    np.testing.assert_allclose(fit.prior, [0.5, 0.5])
    np.testing.assert_allclose(fit.confusion["a"], [[1, 0], [1 / 3, 2 / 3]])
    np.testing.assert_allclose(fit.confusion["b"], [[2 / 3, 1 / 3], [0, 1]])
    np.testing.assert_allclose(fit.posteriors.to_numpy(), [[1, 0], [0.5, 0.5], [0, 1]])
    np.testing.assert_allclose(fit.accuracy.to_numpy(), [5 / 6, 5 / 6])
    assert fit.log_likelihood == pytest.approx(3 * math.log(1 / 3))


def _loop_dawid_skene(rows, classes, smoothing, iters):
    """The same EM written independently with dicts and loops."""
    items = sorted({i for i, _, _ in rows})
    workers = sorted({w for _, w, _ in rows})
    by_item = {i: [(w, lab) for j, w, lab in rows if j == i] for i in items}
    T = {}
    for i in items:
        counts = {k: sum(1 for _, lab in by_item[i] if lab == k) for k in classes}
        T[i] = {k: counts[k] / len(by_item[i]) for k in classes}
    for _ in range(iters):
        tot = {k: sum(T[i][k] for i in items) + smoothing for k in classes}
        prior = {k: tot[k] / sum(tot.values()) for k in classes}
        theta = {}
        for w in workers:
            theta[w] = {}
            for k in classes:
                c = {lab: smoothing for lab in classes}
                for i in items:
                    for ww, lab in by_item[i]:
                        if ww == w:
                            c[lab] += T[i][k]
                s = sum(c.values())
                theta[w][k] = {lab: c[lab] / s for lab in classes}
        for i in items:
            p = {k: prior[k] * math.prod(theta[w][k][lab] for w, lab in by_item[i]) for k in classes}
            z = sum(p.values())
            T[i] = {k: p[k] / z for k in classes}
    return prior, theta, T


def test_agrees_with_an_independent_loop_implementation():
    rng = random.Random(3)
    classes = ["a", "b", "c"]
    acc = {"w1": 0.9, "w2": 0.75, "w3": 0.6, "w4": 0.5, "w5": 0.85}
    rows = []
    for i in range(60):
        truth = rng.choice(classes)
        for w, p in acc.items():
            if rng.random() < 0.7:       # not every reviewer labels every item
                lab = truth if rng.random() < p else rng.choice([c for c in classes if c != truth])
                rows.append((f"q{i}", w, lab))
    df = pd.DataFrame(rows, columns=["item", "worker", "label"])
    fit = dawid_skene(df, classes=classes, smoothing=0.5, max_iter=25, tol=1e-15)
    prior, theta, T = _loop_dawid_skene(rows, classes, 0.5, fit.n_iter)
    np.testing.assert_allclose(fit.prior, [prior[k] for k in classes], rtol=1e-10)
    for w in acc:
        np.testing.assert_allclose(fit.confusion[w], [[theta[w][k][lab] for lab in classes] for k in classes],
                                   rtol=1e-10)
    got = fit.posteriors.loc[sorted(T)]
    np.testing.assert_allclose(got.to_numpy(), [[T[i][k] for k in classes] for i in sorted(T)], rtol=1e-8,
                               atol=1e-12)


def test_recovers_simulated_reviewers_and_their_order():
    rng = random.Random(7)
    classes = ["key_correct", "key_wrong", "ambiguous", "defective"]
    acc = {"careful": 0.95, "average": 0.8, "careless": 0.55}
    rows = []
    for i in range(300):
        truth = "key_correct" if rng.random() < 0.75 else rng.choice(classes[1:])
        for w, p in acc.items():
            lab = truth if rng.random() < p else rng.choice([c for c in classes if c != truth])
            rows.append((f"q{i}", w, lab))
    fit = dawid_skene(pd.DataFrame(rows, columns=["item", "worker", "label"]), classes=classes)
    est = fit.accuracy
    assert list(est.sort_values(ascending=False).index) == ["careful", "average", "careless"]
    for w, p in acc.items():
        assert abs(est[w] - p) < 0.06, (w, est[w], p)


def test_known_items_keep_their_class():
    votes = pd.DataFrame({"item": [1, 1, 2, 2], "worker": ["a", "b", "a", "b"], "label": ["x", "x", "y", "x"]})
    fit = dawid_skene(votes, known={1: "y"}, classes=["x", "y"])
    assert fit.posteriors.loc[1].tolist() == [0.0, 1.0]


def test_refuses_duplicate_and_unknown_labels():
    dup = pd.DataFrame({"item": [1, 1], "worker": ["a", "a"], "label": ["x", "y"]})
    with pytest.raises(ValueError, match="one label per worker"):
        dawid_skene(dup)
    with pytest.raises(ValueError, match="outside the classes"):
        dawid_skene(pd.DataFrame({"item": [1], "worker": ["a"], "label": ["z"]}), classes=["x"])
    empty = dawid_skene(pd.DataFrame(columns=["item", "worker", "label"]))
    assert empty.accuracy.empty
