"""The EM's per-iteration sums over a cell's models by byte tables equal the plain per-answer sums."""
from __future__ import annotations

import numpy as np

from audit.analyze.keyerror import _model as K


def _data(seed: int, n: int = 300, J: int = 37, kmax: int = 5):
    rng = np.random.default_rng(seed)
    K_i = rng.integers(2, kmax + 1, n)
    Y = rng.integers(0, 1 << 20, (n, J)) % K_i[:, None]
    answered = rng.random((n, J)) < 0.8
    i, j = np.nonzero(answered)
    y = Y[i, j]
    o = np.lexsort((j, y, i))          # sorted by (item, answer, model), as load_inputs gives them
    return K._Data(i[o], j[o], y[o], K_i, rng.integers(0, 2, n), np.zeros(n, int), J, kmax), rng


def test_byte_sums_match_per_answer_sums():
    d, rng = _data(1)
    assert d.bytes is not None and d.bytes.shape == (5, len(d.runs[0]))
    a, w = rng.uniform(0.3, 0.95, d.J), rng.uniform(0.2, 1.0, d.J)
    S0, C, D = K._counts(d, a, w)
    # independent: scattered bincounts over every answer
    n, km = d.n, d.kmax
    assert np.allclose(S0, np.bincount(d.item, weights=(w * np.log1p(-a))[d.model], minlength=n), rtol=0, atol=1e-12)
    assert np.allclose(C, np.bincount(d.cell, weights=w[d.model], minlength=n * km).reshape(n, km), rtol=0, atol=1e-12)
    lg = w * (np.log(a) - np.log1p(-a))
    assert np.allclose(D, np.bincount(d.cell, weights=lg[d.model], minlength=n * km).reshape(n, km), rtol=0, atol=1e-12)


def test_mstep_byte_totals_match_bincounts():
    d, rng = _data(2)
    Q = rng.random((d.n, 2, d.kmax))
    Q /= Q.sum((1, 2), keepdims=True)
    got = K._mstep(d, Q, 1)
    bytes_ = d.bytes
    d.bytes = None                      # the per-answer path
    want = K._mstep(d, Q, 1)
    d.bytes = bytes_
    assert np.allclose(got[0], want[0], rtol=0, atol=1e-12) and got[1:3] == want[1:3]


def test_a_model_twice_in_a_cell_falls_back():
    # long-form input may repeat (item, model, answer): no bitmask, plain sums
    d = K._Data(np.array([0, 0, 0]), np.array([1, 1, 2]), np.array([0, 0, 1]), np.array([2]), np.array([0]),
                np.zeros(1, int), 3, 2)
    assert d.bytes is None
    S0, C, D = K._counts(d, np.full(3, 0.8), np.ones(3))
    assert C.tolist() == [[2.0, 1.0]]


def test_cell_bytes_both_ways_agree():
    # small: a packed bool matrix; large (> 64 MB as bools): per-byte bincounts
    rng = np.random.default_rng(3)
    for n_cells in (1_000, 700_000):
        per = rng.integers(0, 4, n_cells)
        seg = np.repeat(np.arange(n_cells), per)
        model = rng.integers(0, 100, len(seg))
        first = np.unique(seg * 100 + model, return_index=True)[1]
        seg, model = seg[first], model[first]                     # one answer per (cell, model)
        B = K._cell_bytes(seg, model, n_cells, 100)
        dense = np.zeros((n_cells, 104), bool)
        dense[seg, model] = True
        assert B is not None and np.array_equal(B, np.packbits(dense, axis=1, bitorder="little").T)
