"""The key-error fit read from the cells' bitmask: analyze
hands the fit the sampled cells (item, letter, models as bytes) instead of
unpacking them to one row per answer and packing them back.  The cell path
must give exactly the long-form fit's results, and the bytes must be the
models' bits."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import audit.analyze.keyerror._model as K
from audit.analyze._cells import MASK_BITS, Cells, mask_words
from audit.analyze.keyerror._load import SampledCells, sampled_answers
from audit.analyze.keyerror._score import _alternative_labels


def _random_cells(rng, n_items: int, n_models: int, kmax: int = 4, answer_rate: float = 0.9) -> Cells:
    """Cells of random answers: every model answers an item at most once."""
    K_i = rng.integers(2, kmax + 1, n_items)
    Y = rng.integers(0, 1 << 30, (n_items, n_models)) % K_i[:, None]
    Y[rng.random((n_items, n_models)) > answer_rate] = -1
    qn, y, masks = [], [], []
    for i in range(n_items):        # (a plain loop: the test's independent construction)
        for t in range(kmax):
            who = np.flatnonzero(Y[i] == t)
            if len(who):
                words = np.zeros(mask_words(n_models))
                for j in who:
                    words[j // MASK_BITS] += 2.0 ** (j % MASK_BITS)
                qn.append(i + 1)
                y.append(t)
                masks.append(words)
    cnt = np.array([sum(bin(int(w)).count("1") for w in m) for m in masks])
    return Cells(np.array(qn), np.array(y), pa.array(["ABCDEF"[t] for t in y]), np.zeros(len(qn), bool), cnt,
                 np.array(masks).reshape(len(qn), -1), n_models)


@pytest.mark.parametrize("n_models", [1, 7, 8, 52, 53, 100, 131])
def test_model_bytes_are_the_models_bits(n_models):
    rng = np.random.default_rng(n_models)
    cells = _random_cells(rng, 30, n_models)
    B = cells.model_bytes()
    assert B.dtype == np.uint8 and B.shape == (-(-n_models // 8), len(cells)) and B.flags.c_contiguous
    for c in range(len(cells)):     # bit j%8 of byte j//8 ⇔ bit j%52 of word j//52
        for j in range(n_models):
            want = (int(cells.masks[c, j // MASK_BITS]) >> (j % MASK_BITS)) & 1
            assert (B[j // 8, c] >> (j % 8)) & 1 == want
    rows = np.array([3, 0, 7])
    assert np.array_equal(cells.model_bytes(rows), B[:, rows])


def test_sampled_cells_unpack_to_the_answers():
    rng = np.random.default_rng(5)
    cells = _random_cells(rng, 200, 60)
    sc = sampled_answers(cells, 200, sample=50, seed=3)
    assert sc.pick is not None and len(sc.pick) == 50
    i, j, y = sc.long_form()
    # independently: every (item in the sample, model, letter) from the float masks
    want = sorted((q - 1, t, m) for q, t, words in zip(cells.qn, cells.y, cells.masks) if q - 1 in set(sc.pick)
                  for m in range(60) if (int(words[m // MASK_BITS]) >> (m % MASK_BITS)) & 1)
    assert list(zip(i.tolist(), y.tolist(), j.tolist())) == want
    assert np.array_equal(sc.per_model(), np.bincount(j, minlength=60))
    keep = sc.item < 100
    assert np.array_equal(sc.per_model(keep), np.bincount(j[i < 100], minlength=60))


@pytest.mark.parametrize("sample", [10_000, 150])     # the whole data, and the fit's own subsample of the cells
def test_the_cell_fit_is_the_long_form_fit(sample):
    rng = np.random.default_rng(11)
    n, J = 400, 20
    cells = _random_cells(rng, n, J, kmax=5, answer_rate=0.85)
    truth = rng.integers(0, 2, n)
    sc = sampled_answers(cells, n)
    n_opt = np.full(n, 5)
    n_opt[:40] = 3                                           # items with fewer letters than the layout
    ok = sc.y < n_opt[sc.item]                               # (answers off the options are never usable)
    sc_ok = SampledCells(sc.item[ok], sc.y[ok], np.ascontiguousarray(sc.bytes[:, ok]), J)
    i, j, y = sc_ok.long_form()
    key = rng.integers(0, 3, n)
    clamp = np.full(n, np.nan)
    clamp[:6] = [1, 0, 1, 0, 1, 0]
    kw = dict(subject=rng.integers(0, 3, n), family=np.arange(J) // 4, n_models=J, evidence_llr=rng.normal(0, 1, n),
              clamp=clamp, truth=np.where(clamp == 1, truth, -1), sample=sample, seed=2)
    a = K.fit_key_error(i, j, y, n_opt, key, **kw)
    b = K.fit_key_error_cells(sc_ok.item, sc_ok.y, sc_ok.bytes, n_opt, key, **kw)
    for f in ("score", "p_reject", "llr_models", "prior_logit", "p_guessing", "alternative", "p_alternative",
              "posterior", "reliability", "weight", "family_rho", "subject_rate", "agreement", "evidence_share",
              "top_holds", "alloc_wrong", "alloc_right"):
        np.testing.assert_allclose(getattr(b, f), getattr(a, f), rtol=0, atol=1e-12, err_msg=f)
    assert (a.n_iter, a.converged, a.global_rate, a.guess_rate) == (b.n_iter, b.converged, b.global_rate, b.guess_rate)
    assert a.split == b.split and a.features == b.features
    assert a.family_rho.max() > 0                            # the family weights' path ran


def test_a_model_with_two_letters_on_one_item_falls_back_to_the_long_form():
    """Cells never hold that (the importer refuses it), but the data built
    from cells must then still give the long-form fit's results: its
    per-item bitmask is refused and the long form is unpacked for the
    error matrix."""
    rng = np.random.default_rng(4)
    n, J = 120, 10
    Y = rng.integers(0, 4, (n, J))
    i, j = np.nonzero(np.ones((n, J), bool))
    y = Y[i, j]
    i, j, y = np.r_[i, 0], np.r_[j, 3], np.r_[y, (Y[0, 3] + 1) % 4]      # model 3 gives item 0 a second letter
    o = np.lexsort((j, y, i))
    i, j, y = i[o], j[o], y[o]
    cell = i * 4 + y
    first = np.r_[True, cell[1:] != cell[:-1]]
    B = np.zeros((2, int(first.sum())), np.uint8)
    np.bitwise_or.at(B, (j // 8, np.cumsum(first) - 1), (1 << (j % 8)).astype(np.uint8))
    d = K._Data.from_cells(i[first], y[first], B, np.full(n, 4), np.zeros(n, int), np.zeros(n, int), J, 4)
    assert d.bytes is not None and d.item_bytes is None
    assert np.array_equal(d.item, i) and np.array_equal(d.model, j) and np.array_equal(d.answer, y)
    a = K.fit_key_error(i, j, y, np.full(n, 4), np.zeros(n, int), n_models=J)
    b = K.fit_key_error_cells(i[first], y[first], B, np.full(n, 4), np.zeros(n, int), n_models=J)
    np.testing.assert_allclose(b.score, a.score, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.weight, a.weight, rtol=0, atol=1e-12)


def test_unsorted_cells_are_refused():
    B = np.array([[1, 2]], np.uint8)
    with pytest.raises(ValueError, match="sorted"):
        K._Data.from_cells(
            np.array([1, 0]), np.array([0, 0]), B, np.full(2, 2), np.zeros(2, int), np.zeros(2, int), 2, 2
        )


def test_alternative_labels_read_the_standard_letters_or_the_label_list():
    import pandas as pd

    rng = np.random.default_rng(8)
    labels = [list("ABCD"), list("ABDE"), list("ཀཁགང"), list("ABCDE"), list("AB")]
    rows = [labels[k] for k in rng.integers(0, len(labels), 300)]
    items = pd.DataFrame({"labels": [np.array(r, dtype=object) for r in rows], "n_options": [len(r) for r in rows],
                          "standard_labels": [r == list("ABCDEF")[:len(r)] for r in rows]})
    idx = np.sort(rng.choice(300, 200, replace=False))
    alt = np.array([rng.integers(-1, len(rows[i])) for i in idx])
    want = [None if a < 0 else rows[i][a] for i, a in zip(idx, alt)]
    assert _alternative_labels(items, idx, alt).tolist() == want
    assert _alternative_labels(items.drop(columns="standard_labels"), idx, alt).tolist() == want
