"""The key-error fit's fast paths give the results of the plain computations: byte-table sums in
cache-sized chunks equal dense products, and a fit on answers sorted by cell
(bitmask path: letter-major arrays, per-item bitmasks, cached C terms)
equals the fit on the same answers unsorted (the plain per-answer bincount
path), to 1e-9, clamped items and a key outside the options included."""
from __future__ import annotations

import numpy as np
import pytest

from audit.analyze._cells import MASK_BITS, Cells, byte_table_sums
from audit.analyze.keyerror import _model as K
from audit.analyze.keyerror import agreement_share


def _answers(seed: int, n: int = 600, J: int = 45, kmax: int = 5):
    rng = np.random.default_rng(seed)
    K_i = rng.integers(2, kmax + 1, n)
    truth = rng.integers(0, 1 << 20, n) % K_i
    key = truth.copy()
    bad = rng.random(n) < 0.08
    key[bad] = (truth[bad] + 1) % K_i[bad]
    answered = rng.random((n, J)) < 0.8
    Y = np.where(rng.random((n, J)) < 0.7, truth[:, None], rng.integers(0, 1 << 20, (n, J)) % K_i[:, None])
    i, j = np.nonzero(answered)
    return rng, K_i, key, truth, i, j, Y[i, j]


@pytest.mark.parametrize("chunk", [7, 64, 1 << 15])
def test_byte_table_sums_equal_dense_products(chunk):
    rng = np.random.default_rng(chunk)
    n, J = 1000, 37
    M = rng.random((n, J)) < 0.3                      # cells × models
    nb = -(-J // 8)
    Mp = np.zeros((n, nb * 8), bool)
    Mp[:, :J] = M
    B = np.packbits(Mp, axis=1, bitorder="little")    # cells × bytes; passed transposed (a strided view)
    ids = [np.where(8 * c + np.arange(8) < J, 8 * c + np.arange(8), -1) for c in range(nb)]
    W = rng.normal(size=(J, 3))
    got = byte_table_sums(B.T, ids, W, chunk=chunk)
    assert np.allclose(got, (M.astype(float) @ W).T, rtol=0, atol=1e-12)


def test_cells_weighted_equals_bits_product():
    rng = np.random.default_rng(4)
    n, J = 500, 130                                   # three 52-bit words
    bits = rng.random((n, J)) < 0.4
    masks = np.zeros((n, 3))
    for w in range(3):
        part = bits[:, w * MASK_BITS:(w + 1) * MASK_BITS].astype(np.float64)
        masks[:, w] = part @ (2.0 ** np.arange(part.shape[1]))
    cells = Cells(qn=np.arange(1, n + 1), y=np.zeros(n, np.int8), answer=None, is_key=np.zeros(n, bool),
                  cnt=bits.sum(1), masks=masks, n_models=J)
    assert np.array_equal(cells.bits(), bits.astype(np.uint8))
    w1, w2 = rng.random(J), rng.normal(size=J)
    got = cells.weighted(w1, w2)
    assert np.allclose(got[0], bits @ w1, rtol=0, atol=1e-12) and np.allclose(got[1], bits @ w2, rtol=0, atol=1e-12)


def _fit_fields(f):
    return {k: v for k, v in vars(f).items() if isinstance(v, (np.ndarray, float, int, bool))}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sorted_bitmask_fit_equals_plain_fit(seed):
    rng, K_i, key, truth, i, j, y = _answers(seed)
    n = len(K_i)
    kw: dict = dict(subject=rng.integers(0, 3, n), family=rng.integers(0, 4, 45), n_models=45,
                    evidence_llr=np.where(rng.random(n) < 0.1, 1.5, 0.0))
    if seed == 1:                                     # settled verdicts: clamped items, known corrections
        c = np.full(n, np.nan)
        c[:20], c[20:40] = 1.0, 0.0
        t = np.full(n, -1)
        t[:10] = np.where(truth[:10] != key[:10], truth[:10], -1)
        kw.update(clamp=c, truth=t)
    if seed == 2:                                     # a key outside the options is not scored, but must not break
        key[:2] = -1
        kw.update(sample=400, full_iters=1)
    o = np.lexsort((j, y, i))                         # sorted by (item, answer, model): the bitmask path
    fast = K.fit_key_error(i[o], j[o], y[o], K_i, key, **kw)
    p = rng.permutation(len(i))                       # shuffled: plain bincounts over every answer
    plain = K.fit_key_error(i[p], j[p], y[p], K_i, key, **kw)
    d = K._Data(i[o], j[o], y[o], K_i, key, kw["subject"], 45, 5)
    assert d.bytes is not None and d.item_bytes is not None
    assert K._Data(i[p], j[p], y[p], K_i, key, kw["subject"], 45, 5).runs is None
    a, b = _fit_fields(fast), _fit_fields(plain)
    assert a.keys() == b.keys() and fast.n_iter == plain.n_iter and fast.n_iter > 2
    for k in a:
        np.testing.assert_allclose(np.asarray(a[k], float), np.asarray(b[k], float), rtol=0, atol=1e-9, err_msg=k)


def test_a_model_answering_an_item_twice_keeps_the_cell_path():
    # two letters from one model on one item: cells stay valid, the items' bitmask does not
    rng, K_i, key, truth, i, j, y = _answers(5, n=200, J=20, kmax=4)
    i, j, y = np.r_[i, 0], np.r_[j, j[0]], np.r_[y, (y[0] + 1) % K_i[0]]
    o = np.lexsort((j, y, i))
    d = K._Data(i[o], j[o], y[o], K_i, key, np.zeros(len(K_i), int), 20, 4)
    assert d.bytes is not None and d.item_bytes is None
    fast = K.fit_key_error(i[o], j[o], y[o], K_i, key, n_models=20)
    p = rng.permutation(len(i))
    plain = K.fit_key_error(i[p], j[p], y[p], K_i, key, n_models=20)
    for k, v in _fit_fields(fast).items():
        np.testing.assert_allclose(np.asarray(v, float), np.asarray(getattr(plain, k), float), rtol=0, atol=1e-9,
                                   err_msg=k)


def test_posterior_from_counts_equals_the_fits_last_step():
    # the final E-step from counts (as over every item after a sampled fit) equals the fit's own
    rng, K_i, key, truth, i, j, y = _answers(7)
    n = len(K_i)
    f = K.fit_key_error(i, j, y, K_i, key, n_models=45)
    a, w = f.reliability, f.weight
    km = 5
    S0 = np.bincount(i, weights=(w * np.log1p(-a))[j], minlength=n)
    C = np.bincount(i * km + y, weights=w[j], minlength=n * km).reshape(n, km)
    D = np.bincount(i * km + y, weights=(w * (np.log(a) - np.log1p(-a)))[j], minlength=n * km).reshape(n, km)
    N = np.bincount(i * km + y, minlength=n * km).reshape(n, km)
    g = K.posterior_from_counts(f, S0, C, D, K_i, key, agreement=agreement_share(N, key, K_i))
    for k in ("p_reject", "llr_models", "prior_logit", "p_guessing", "alternative", "p_alternative",
              "posterior", "agreement"):
        np.testing.assert_allclose(getattr(g, k), getattr(f, k), rtol=0, atol=1e-9, err_msg=k)
    # split with the fit's model set and top model: the fit's own score
    g = K.split_fit(g, K_i, np.zeros(n, dtype=int), f.top_holds, f.features)
    for k in ("score", "evidence_share", "alloc_wrong", "alloc_right"):
        np.testing.assert_allclose(getattr(g, k), getattr(f, k), rtol=0, atol=1e-9, err_msg=k)
