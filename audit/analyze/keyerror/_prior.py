"""The priors of the evidence known at analysis time, as likelihood ratios
(key wrong : key right), and the agreement share of an item's answers.

A parallel source's key and duplicate option texts are evidence about a
*wrong key*, not about what the models hold: the split adds them to the
score as log likelihood ratios (:mod:`audit.analyze.keyerror._split`).
How a rejected key splits into a wrong key and a shared misconception is
:mod:`audit.analyze.keyerror._split`'s.
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
