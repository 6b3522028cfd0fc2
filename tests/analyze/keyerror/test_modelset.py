"""The model set in a few numbers, and the reasons it lies outside the
model sets the split was learned on."""
from __future__ import annotations

import numpy as np
import pytest

from audit.analyze.keyerror import SPLIT_PRIOR, TRAINING_DOMAIN, extrapolation, set_features


def _features(acc, n_models=5, n=600, seed=0, one_ahead=False):
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 4, n)
    accs = np.full(n_models, acc)
    if one_ahead:
        accs[0] = 0.97
    Y = np.where(rng.random((n, n_models)) < accs, key[:, None], rng.integers(0, 4, (n, n_models)))
    counts = np.zeros((n, 4))
    np.add.at(counts, (np.repeat(np.arange(n), n_models), Y.ravel()), 1)
    corr = (Y == key[:, None]).sum(0)
    return set_features(counts, key, np.full(n, 4), np.zeros(n), corr, np.full(n_models, n)), Y, key


def test_accuracy_is_chance_corrected_and_the_top_gap_sees_one_model_ahead():
    f, Y, key = _features(0.6)
    acc = (Y == key[:, None]).mean(0)
    assert f["accuracy"] == pytest.approx(((acc - 0.25) / 0.75).mean())
    assert f["n_models"] == 5 and f["chance"] == 0.25
    g, _, _ = _features(0.35, one_ahead=True)
    assert g["top_gap"] > 2.0 > f["top_gap"]


def test_extrapolation_names_each_reason():
    assert SPLIT_PRIOR.domain == TRAINING_DOMAIN
    near, _, _ = _features(0.08)
    assert [c for c, _ in extrapolation(near, TRAINING_DOMAIN)] == ["near_chance"]
    two, _, _ = _features(0.7, n_models=2)
    assert "few_models" in [c for c, _ in extrapolation(two, TRAINING_DOMAIN)]
    ahead, _, _ = _features(0.35, n_models=8, one_ahead=True)
    assert "one_model_ahead" in [c for c, _ in extrapolation(ahead, TRAINING_DOMAIN)]
    fine, _, _ = _features(0.7, n_models=6)
    assert extrapolation(fine, TRAINING_DOMAIN) == []
