"""The usable answers of a model set as cells: one aggregation over the
predictions serves the tiers, the lint and the key-error score.

One row per (question, answer) with the usable answers' count and the set
of models that gave it, as a bitmask.  The bitmask is a few DOUBLE words,
each the SUM of the models' distinct powers of two below 2^MASK_BITS
(:data:`~audit.analyze.inputs.MASK_BITS`): such sums are exact in floating
point (every partial sum is an integer < 2^53), and DuckDB sums doubles much
faster than it ORs integers.  A model answers a question at most once per
run (the importer rejects duplicates); :func:`usable_cells` checks it
(count = bits set).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.analyze.inputs import MASK_BITS, QUESTIONS_SQL, mask_words
from audit.errors import InputError
from audit.options import sql_is_label

_BITS8 = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.int64)   # byte value → its 8 bits
_POP8 = _BITS8.sum(1)                                                     # byte value → bits set


def byte_table_sums(B: np.ndarray, ids: list[np.ndarray], W: np.ndarray, chunk: int = 1 << 15) -> np.ndarray:
    """Per cell Σ over its models of the rows of ``W`` (models × k), as
    k × cells.  ``B``: the cells' model bitmask as bytes × cells (uint8 or
    intp; a transposed view of cells × bytes will do); ``ids[c]``: the model
    of each of row c's 8 bits (−1: none; a row without models is skipped).
    Each byte is a look-up in a 256-entry table of its bits' sums (1-D takes:
    cheaper than a 2-D gather), two weights at a time as the real and
    imaginary parts of a complex table (a complex take costs little more
    than a real one; each part is summed exactly as alone), ``chunk`` cells
    at a time so that the indices, the look-ups and the sums stay in the
    cache (a third cheaper than whole rows over 400,000 cells)."""
    k, n = W.shape[1], B.shape[1]
    if not ids or not n or not k:
        return np.zeros((k, n))
    out = np.empty((k, n))
    mid = np.asarray(ids)                                                   # rows × 8
    Wb = np.where(mid[:, :, None] >= 0, W[np.maximum(mid, 0)], 0.0)       # rows × 8 × k
    tables = (_BITS8.astype(np.float64) @ Wb).transpose(0, 2, 1)            # rows × k × 256, one product
    n_pairs = k // 2
    # the weights 2p and 2p + 1 as one complex table; an odd last weight alone
    tabs = [np.ascontiguousarray(tables[:, 0:2 * n_pairs:2] + 1j * tables[:, 1:2 * n_pairs:2])[:, p]
            for p in range(n_pairs)] + ([np.ascontiguousarray(tables[:, k - 1])] if k % 2 else [])
    rows = np.flatnonzero((mid >= 0).any(1)).tolist()
    if n <= 2 * chunk:
        chunk = n
    acc = [np.empty(chunk, dtype=t.dtype) for t in tabs]
    tmp = [np.empty(chunk, dtype=t.dtype) for t in tabs]
    idx = np.empty(chunk, dtype=np.intp)
    for s in range(0, n, chunk):
        e = min(s + chunk, n)
        ix = idx[: e - s]
        for a in acc:
            a[: e - s] = 0.0
        for c in rows:
            if B.dtype == np.intp:           # indices already
                row = B[c, s:e]
            else:
                row = ix
                row[...] = B[c, s:e]
            for tab, a, t in zip(tabs, acc, tmp):
                tt = t[: e - s]
                tab[c].take(row, out=tt, mode="clip")     # mode clip: unbuffered (the indices are < 256)
                a[: e - s] += tt
        for p in range(n_pairs):                           # the chunk's sums, while in the cache
            out[2 * p, s:e] = acc[p][: e - s].real
            out[2 * p + 1, s:e] = acc[p][: e - s].imag
        if k % 2:
            out[k - 1, s:e] = acc[-1][: e - s]
    return out



def usable_cells_sql(n_words: int, bench_param: str = "$benchmark", *, single_run: bool = False) -> str:
    """SQL (a subquery body) with one row per (question, usable answer) of
    the model set registered as ``_ms`` (from :meth:`ModelSet.arrow`): qn,
    answer, y (the answer's 0-based option index), is_key, cnt (models),
    m0 … m{n_words−1} (the models' bitmask words).  Expects ``_q`` from
    ``QUESTIONS_SQL``.  The same usable answers as
    :func:`usable_predictions_sql`, aggregated in the one pass over the
    predictions; the label check runs on the aggregated rows.  With
    ``single_run`` (:attr:`ModelSet.single_run`) the predictions are matched
    to the model set by model only (hashing one string instead of two)."""
    run_match = "" if single_run else " AND ms.run = p.run"
    sums = ", ".join(f"sum(ms.mb{k}) AS m{k}" for k in range(n_words))
    words = ", ".join(f"c.m{k}" for k in range(n_words))
    return f"""
        SELECT q.qn, c.answer,
               (CASE WHEN q.standard_labels THEN ascii(c.answer) - 65
                     ELSE list_position(q.labels, c.answer) - 1 END)::TINYINT AS y,
               (c.answer IS NOT DISTINCT FROM q.answer_key) AS is_key, c.cnt, {words}
        FROM (SELECT p.question_id, p.answer, count(*)::INTEGER AS cnt, {sums}
              FROM all_predictions p
              JOIN _ms ms ON ms.model = p.model{run_match}
              WHERE p.benchmark = {bench_param} AND p.valid AND p.answer IS NOT NULL
              GROUP BY p.question_id, p.answer) c
        JOIN _q q ON q.question_id = c.question_id
        WHERE CASE WHEN q.standard_labels
                   THEN {sql_is_label("c.answer", "q.n_options")}
                   ELSE list_contains(q.labels, c.answer) END
    """


def _mask_bytes(masks: np.ndarray) -> np.ndarray:
    """The bitmask words as bytes (cells × 8·words), with the width given,
    not inferred: with no cell at all (every answer outside the options)
    ``reshape(0, -1)`` cannot tell it and raised.

    >>> _mask_bytes(np.zeros((0, 2))).shape
    (0, 16)
    """
    words = masks.shape[1] if masks.ndim == 2 else 0
    return np.ascontiguousarray(masks).astype("<u8").view(np.uint8).reshape(len(masks), 8 * words)


@dataclass
class Cells:
    """The usable answers of a model set, one row per (question, answer),
    sorted by (qn, y): ``qn`` (1-based question number), ``y`` (option
    index), ``answer`` (label, an Arrow array), ``is_key``, ``cnt`` (models giving it),
    ``masks`` (cells × words, the models' bitmask) and ``n_models``."""

    qn: np.ndarray
    y: np.ndarray
    answer: pa.Array
    is_key: np.ndarray
    cnt: np.ndarray
    masks: np.ndarray
    n_models: int

    def __len__(self) -> int:
        return len(self.qn)

    def bits(self, rows: Any = slice(None), dtype: Any = np.uint8) -> np.ndarray:
        """rows × n_models matrix: 1 where the model gave the cell's answer."""
        m = np.ascontiguousarray(self.masks[rows]).astype("<u8")
        words = m.shape[1] if m.ndim == 2 else 0
        b = np.unpackbits(m.view(np.uint8).reshape(len(m), words, 8), axis=2, bitorder="little")
        return b[:, :, :MASK_BITS].reshape(len(m), words * MASK_BITS)[:, : self.n_models].astype(dtype, copy=False)

    def model_bytes(self, rows: Any = slice(None)) -> np.ndarray:
        """The bitmask of ``rows`` packed model by model: ⌈n_models/8⌉ ×
        rows uint8 (contiguous), bit ``j % 8`` of row ``j // 8`` set when
        model j gave the cell's answer — ``np.packbits(self.bits(rows).T,
        axis=0, bitorder="little")`` without the rows × models matrix: each
        52-bit word is shifted to its models' place in 64-bit words (the
        words are integers below 2^52, exact in float64).

        >>> masks = np.array([[2.0 ** 51 + 1, 2.0 ** 3], [0.0, 2.0 ** 47]])
        >>> c = Cells(np.array([1, 1]), np.array([0, 1]), pa.array(["A", "B"]), np.array([True, False]),
        ...           np.array([3, 1]), masks, 100)
        >>> bool(np.array_equal(c.model_bytes(), np.packbits(c.bits().T, axis=0, bitorder="little")))
        True
        """
        m = np.ascontiguousarray(self.masks[rows]).astype(np.uint64)
        n_words = m.shape[1] if m.ndim == 2 else 0
        packed = np.zeros((len(m), n_words * MASK_BITS // 64 + 2), dtype="<u8")
        for k in range(n_words):
            q, r = divmod(k * MASK_BITS, 64)
            packed[:, q] |= m[:, k] << np.uint64(r)
            if r > 64 - MASK_BITS:                       # the word's high bits spill into the next one
                packed[:, q + 1] |= m[:, k] >> np.uint64(64 - r)
        nb = max(1, -(-self.n_models // 8))
        return np.ascontiguousarray(packed.view(np.uint8).reshape(len(m), 8 * packed.shape[1])[:, :nb].T)

    def _byte_models(self) -> np.ndarray:
        """For each byte of a cell's bitmask (the words' bytes in memory
        order), the models of its 8 bits: bytes × 8, −1 where a bit holds
        no model (past bit 52 of a word, or past the last model)."""
        n_bytes = 8 * (self.masks.shape[1] if self.masks.ndim == 2 else 0)
        bit = np.arange(n_bytes)[:, None] % 8 * 8 + np.arange(8)[None, :]        # bit within its word
        mid = np.arange(n_bytes)[:, None] // 8 * MASK_BITS + bit
        return np.where((bit < MASK_BITS) & (mid < self.n_models), mid, -1)

    def _bytes(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The bitmask as bytes: (cells × byte columns uint8, and for each
        column the ids of its 8 bits' models, −1 where none), the columns
        holding no model left out.  Per-cell sums over a cell's models are
        then 256-entry table look-ups per byte instead of a cells × models
        matrix."""
        m = _mask_bytes(self.masks)
        mid = self._byte_models()
        cols = np.flatnonzero((mid >= 0).any(1))
        return m[:, cols], list(mid[cols])

    def weighted(self, *weights: np.ndarray) -> list[np.ndarray]:
        """Per cell Σ over its models of each per-model weight vector."""
        W = (
            np.column_stack([np.asarray(w, dtype=np.float64) for w in weights])
            if weights
            else np.zeros((self.n_models, 0))
        )
        # every byte of the bitmask, read in place (no column selection, no
        # transposed copy: byte_table_sums skips the bytes without a model)
        m = _mask_bytes(self.masks)
        out = byte_table_sums(m.T, list(self._byte_models()), W)
        return [out[k] for k in range(W.shape[1])]

    def popcount(self) -> np.ndarray:
        """Per cell the number of models in its bitmask."""
        if hasattr(np, "bitwise_count"):     # NumPy ≥ 2.0
            return np.bitwise_count(np.ascontiguousarray(self.masks).astype(np.uint64)).sum(1, dtype=np.int64)
        B, _ = self._bytes()
        out = np.zeros(len(self), dtype=np.int64)
        for c in range(B.shape[1]):
            out += _POP8[B[:, c]]
        return out

    def family_counts(self, fam_id: np.ndarray) -> np.ndarray:
        """Per cell the number of distinct families among its models (OR of
        the models' family bits, byte by byte, then a popcount)."""
        fam = np.asarray(fam_id, dtype=np.int64)
        n_words = max(1, math.ceil((int(fam.max()) + 1 if len(fam) else 1) / 64))
        fbits = np.zeros((len(fam), n_words), dtype=np.uint64)
        fbits[np.arange(len(fam)), fam // 64] = np.left_shift(np.uint64(1), (fam % 64).astype(np.uint64))
        B, ids = self._bytes()
        acc = np.zeros((n_words, len(self)), dtype=np.uint64)
        for c, mid in enumerate(ids):
            table = np.zeros((256, n_words), dtype=np.uint64)
            for t in range(8):
                if mid[t] >= 0:
                    table |= np.where(_BITS8[:, t, None] > 0, fbits[mid[t]][None, :], np.uint64(0))
            col = np.ascontiguousarray(B[:, c])     # 1-D look-ups per word: cheaper than a 2-D gather
            for k in range(n_words):
                acc[k] |= np.ascontiguousarray(table[:, k]).take(col)
        return _POP8[acc.view(np.uint8).reshape(n_words, len(self), 8)].sum((0, 2)).astype(np.int64)

    def model_answer_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(answers, counts): the distinct answer labels (sorted) and a
        models × answers matrix of how often each model gave each."""
        enc = pc.dictionary_encode(self.answer)
        codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        answers = np.asarray(enc.dictionary.to_pylist(), dtype=object)
        B, ids = self._bytes()
        out = np.zeros((self.n_models, len(answers)), dtype=np.int64)
        for c, mid in enumerate(ids):
            hist = np.bincount(codes * 256 + B[:, c], minlength=len(answers) * 256).reshape(len(answers), 256)
            per = (hist @ _BITS8).T                      # 8 × answers
            ok = mid >= 0
            out[mid[ok]] += per[ok]
        return answers, out

    def arrow(self, **extra: np.ndarray) -> pa.Table:
        """qn, answer, y, is_key, cnt (and ``extra`` columns) as an Arrow table."""
        cols = {"qn": pa.array(self.qn, pa.int32()), "answer": self.answer,
                "y": pa.array(self.y, pa.int8()), "is_key": pa.array(self.is_key, pa.bool_()),
                "cnt": pa.array(self.cnt, pa.int32())}
        cols.update({k: pa.array(v) for k, v in extra.items()})
        return pa.table(cols)


def _cell_order(qn: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The permutation sorting cells by (qn, y).  (qn, y) is unique per cell,
    so each key's rank is found by placing it in a slot array (a counting
    sort, several times cheaper than ``argsort`` on 400,000 keys); a
    repeated key falls back to a stable argsort.

    >>> _cell_order(np.array([2, 1, 2, 1]), np.array([0, 9, 1, 0])).tolist()
    [3, 1, 0, 2]
    """
    if not len(qn):
        return np.zeros(0, dtype=np.int64)
    k = int(y.max()) + 1
    key = qn * k + y
    slot = np.full(int(key.max()) + 1, -1, dtype=np.int64)
    slot[key] = np.arange(len(key))
    order = slot[slot >= 0]
    return order if len(order) == len(key) else np.argsort(key, kind="stable")


def usable_cells(con: Any, benchmark: str, n_models: int, *, q_registered: bool = False,
                 single_run: bool = False) -> Cells:
    """Run :func:`usable_cells_sql` (the model set registered as ``_ms``;
    with ``q_registered`` the questions too, as ``_q`` from
    :func:`questions_table`) and return its rows as :class:`Cells`, sorted by (qn, y).  A model
    answering a question twice in its run is an error (the bitmask would be
    wrong): the importer never stores that."""
    n_words = mask_words(n_models)
    q_cte = "" if q_registered else f"WITH _q AS ({QUESTIONS_SQL}) "
    rel = con.sql(q_cte + usable_cells_sql(n_words, single_run=single_run), params={"benchmark": benchmark})
    tbl = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
    qn = tbl.column("qn").to_numpy().astype(np.int64)
    y = tbl.column("y").to_numpy().astype(np.int64)
    order = _cell_order(qn, y)    # (qn, y): a deterministic order (cheaper here than in SQL)
    masks = np.column_stack([tbl.column(f"m{k}").to_numpy()[order] for k in range(n_words)]) if len(tbl) \
        else np.zeros((0, n_words))
    cells = Cells(
        qn=qn[order], y=y[order], answer=tbl.column("answer").combine_chunks().take(pa.array(order)),
        is_key=tbl.column("is_key").to_numpy(zero_copy_only=False)[order].astype(bool),
        cnt=tbl.column("cnt").to_numpy().astype(np.int64)[order], masks=masks, n_models=n_models,
    )
    if not np.array_equal(cells.popcount(), cells.cnt):
        raise InputError(f"benchmark '{benchmark}': a model has two predictions for one question in the same run; "
                         "re-import its predictions")
    return cells
