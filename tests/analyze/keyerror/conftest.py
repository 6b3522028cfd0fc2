"""Toy data for the key-error model's tests: small in-memory arrays, no
database (the way crowd-kit's tests/conftest.py serves its aggregation
tests)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest


@dataclass
class Planted:
    """A simulated benchmark drawn from the one-coin model itself: every
    model answers every item, right with probability ``reliability[j]``,
    otherwise one of the other options uniformly.  ``wrong``: the items
    whose key was replaced by another option."""

    item: np.ndarray
    model: np.ndarray
    answer: np.ndarray
    n_options: np.ndarray
    key: np.ndarray
    truth: np.ndarray
    subject: np.ndarray
    wrong: np.ndarray
    reliability: np.ndarray


def plant(n: int = 3000, reliability=(0.95, 0.9, 0.85, 0.75, 0.65, 0.55), k: int = 4,
          wrong_rate=(0.02, 0.2), seed: int = 0) -> Planted:
    """``n`` items in ``len(wrong_rate)`` subjects of equal size, the keys
    of each subject wrong at its rate."""
    rng = np.random.default_rng(seed)
    a = np.asarray(reliability, dtype=float)
    J = len(a)
    truth = rng.integers(0, k, n)
    subject = np.arange(n) * len(wrong_rate) // n
    wrong = rng.random(n) < np.asarray(wrong_rate)[subject]
    key = np.where(wrong, (truth + rng.integers(1, k, n)) % k, truth)
    right = rng.random((n, J)) < a[None, :]
    other = (truth[:, None] + rng.integers(1, k, (n, J))) % k
    Y = np.where(right, truth[:, None], other)
    i, j = np.nonzero(np.ones((n, J), dtype=bool))
    return Planted(i, j, Y[i, j], np.full(n, k), key, truth, subject, wrong, a)


@pytest.fixture(scope="module")
def planted() -> Planted:
    return plant()
