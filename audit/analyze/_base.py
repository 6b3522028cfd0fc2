"""Shared plumbing of the analysis stage: which benchmark, which models,
which run of each model, and the SQL that yields one usable answer per
(question, model).

A prediction is *usable* (valid) when it was stored as valid, has a letter,
and that letter is one of the item's option labels.  Missing and invalid
predictions never count as agreeing with anything and never count as
correct.  When a model has several runs on a benchmark, the run named
``default`` is used, otherwise the first run in alphabetical order; the
choice is recorded in the audit run's config.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.errors import InputError, NotFoundError
from audit.store import unregister
from audit.store import all_benchmarks, resolve_benchmark
from audit.options import LATIN_LABELS, SQL_LABELS, sql_is_label


@dataclass(frozen=True)
class ModelSet:
    """The models of an analysis with the family and run used for each."""

    benchmark: str
    models: tuple[str, ...]
    families: dict[str, str]
    runs: dict[str, str]
    #: every prediction of the benchmark has the same run: matching a
    #: prediction to the model set then needs its model only
    single_run: bool = False

    @property
    def n(self) -> int:
        return len(self.models)

    def fam_ids(self) -> np.ndarray:
        """Each model's family index (families sorted by name)."""
        fams = sorted(set(self.families.values()))
        return np.array([fams.index(self.families[m]) for m in self.models], dtype=np.int64)

    def arrow(self) -> pa.Table:
        """The model set as a table: model, run, family, model_id, fam_id,
        and the model's bit in the bitmask words ``mb0``, ``mb1``, … (see
        :func:`usable_cells`)."""
        ids = np.arange(len(self.models))
        cols = {
            "model": pa.array(list(self.models), pa.string()),
            "run": pa.array([self.runs[m] for m in self.models], pa.string()),
            "family": pa.array([self.families[m] for m in self.models], pa.string()),
            "model_id": pa.array(ids, pa.int32()),
            "fam_id": pa.array(self.fam_ids(), pa.int32()),
        }
        for k in range(mask_words(len(self.models))):
            inword = ids // MASK_BITS == k
            cols[f"mb{k}"] = pa.array(np.where(inword, np.ldexp(1.0, ids - k * MASK_BITS), 0.0), pa.float64())
        return pa.table(cols)


def parse_models(models) -> list[str] | None:
    """Accept None, a comma-separated string or an iterable of names."""
    if models is None:
        return None
    if isinstance(models, str):
        models = models.split(",")
    out = [str(m).strip() for m in models if str(m).strip()]
    if not out:
        raise InputError("the model list is empty")
    if len(set(out)) != len(out):
        dup = sorted({m for m in out if out.count(m) > 1})
        raise InputError(f"model listed twice: {', '.join(dup)}")
    return out


def _one_run_models(con, benchmark: str) -> list | None:
    """``model_set``'s rows (model, [run], family) when every prediction of
    the benchmark has the same run, else None.  ``min(run)``/``max(run)``
    come nearly free (column statistics) and ``DISTINCT model`` costs a
    fifth of ``DISTINCT model, run`` over 10 M predictions (issue 24).
    Must read the same relation as :func:`model_set`'s general query."""
    lo, hi = con.execute("SELECT min(run), max(run) FROM all_predictions WHERE benchmark = ?", [benchmark]).fetchall()[0]
    if lo is None or lo != hi:
        return None
    return con.execute(
        "SELECT pr.model, [?] AS runs, any_value(m.family) AS family "
        "FROM (SELECT DISTINCT model FROM all_predictions WHERE benchmark = ?) pr "
        "LEFT JOIN models m ON m.name = pr.model GROUP BY pr.model ORDER BY pr.model",
        [lo, benchmark],
    ).fetchall()


def model_set(con, benchmark: str, models=None) -> ModelSet:
    """Resolve the model set of a benchmark (default: every model with
    predictions for it) and the run used for each model."""
    one_run = _one_run_models(con, benchmark)
    rows = one_run or con.execute(
        "SELECT pr.model, list(pr.run ORDER BY pr.run) AS runs, any_value(m.family) AS family "
        "FROM (SELECT DISTINCT model, run FROM all_predictions WHERE benchmark = ?) pr "
        "LEFT JOIN models m ON m.name = pr.model GROUP BY pr.model ORDER BY pr.model",
        [benchmark],
    ).fetchall()
    available = {name: (runs, family) for name, runs, family in rows}
    wanted = parse_models(models)
    if wanted is None:
        if not available:
            raise NotFoundError(f"benchmark '{benchmark}' has no predictions; import predictions first")
        wanted = sorted(available)
    else:
        missing = [m for m in wanted if m not in available]
        if missing:
            raise NotFoundError(
                f"no predictions for benchmark '{benchmark}' from: {', '.join(missing)} "
                f"(models with predictions: {', '.join(sorted(available)) or 'none'})"
            )
    runs = {m: ("default" if "default" in available[m][0] else available[m][0][0]) for m in wanted}
    families = {m: (available[m][1] or m) for m in wanted}
    return ModelSet(benchmark, tuple(wanted), families, runs, single_run=bool(one_run))


def usable_predictions_sql(bench_param: str = "$benchmark", *, option_index: bool = False) -> str:
    """SQL (a subquery body) with one row per usable prediction of the model
    set registered as ``_ms``: qn (question number), model_id, fam_id, model,
    family, answer, is_key (and with ``option_index`` y, the answer's 0-based
    position among the item's options).  Expects a relation ``_q`` built
    from ``QUESTIONS_SQL``."""
    y = (""",
               (CASE WHEN q.standard_labels THEN ascii(p.answer) - 65
                     ELSE list_position(q.labels, p.answer) - 1 END)::TINYINT AS y""" if option_index else "")
    return f"""
        SELECT q.qn, ms.model_id, ms.fam_id, ms.model, ms.family, p.answer,
               (p.answer IS NOT DISTINCT FROM q.answer_key) AS is_key{y}
        FROM all_predictions p
        JOIN _ms ms ON ms.model = p.model AND ms.run = p.run
        JOIN _q q ON q.question_id = p.question_id
        WHERE p.benchmark = {bench_param} AND p.valid AND p.answer IS NOT NULL
          AND CASE WHEN q.standard_labels
                   THEN {sql_is_label("p.answer", "q.n_options")}
                   ELSE list_contains(q.labels, p.answer) END
    """


QUESTIONS_SQL = f"""
    SELECT row_number() OVER (ORDER BY seq, question_id)::INTEGER AS qn, question_id, subject, answer_key, len(options) AS n_options,
           [o.label FOR o IN options] AS labels,
           -- labels A, B, C, … in order: the option check is then a cheap range test
           [o.label FOR o IN options] = {SQL_LABELS}[1:len(options)] AS standard_labels
    FROM questions WHERE benchmark = $benchmark
"""


class RegisteredTables:
    """Context manager that registers ``self.tables`` (name → Arrow table) on
    ``self.con`` for the queries of one call and unregisters them after."""

    con: object
    tables: dict[str, pa.Table]

    def __enter__(self):
        for name, t in self.tables.items():
            self.con.register(name, t)
        return self

    def __exit__(self, *exc):
        unregister(self.con, *self.tables)


# ------------------------------------------------------- usable answer cells
#
# One aggregation over the predictions serves the tiers, the lint and the
# key-error score: one row per (question, answer) with the usable answers'
# count and the set of models that gave it, as a bitmask.  The bitmask is a
# few DOUBLE words, each the SUM of the models' distinct powers of two below
# 2^MASK_BITS: such sums are exact in floating point (every partial sum is an
# integer < 2^53), and DuckDB sums doubles much faster than it ORs integers.
# A model answers a question at most once per run (the importer rejects
# duplicates); :func:`usable_cells` checks it (count = bits set).

MASK_BITS = 52
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


def mask_words(n_models: int) -> int:
    """DOUBLE words of the model bitmask for ``n_models`` models.

    >>> mask_words(1), mask_words(52), mask_words(100), mask_words(1000)
    (1, 1, 2, 20)
    """
    return max(1, math.ceil(n_models / MASK_BITS))


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
        b = np.unpackbits(m.view(np.uint8).reshape(len(m), -1, 8), axis=2, bitorder="little")
        return b[:, :, :MASK_BITS].reshape(len(m), -1)[:, : self.n_models].astype(dtype, copy=False)

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
        return np.ascontiguousarray(packed.view(np.uint8).reshape(len(m), -1)[:, :nb].T)

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
        m = np.ascontiguousarray(self.masks).astype("<u8").view(np.uint8).reshape(len(self.masks), -1)
        mid = self._byte_models()
        cols = np.flatnonzero((mid >= 0).any(1))
        return m[:, cols], list(mid[cols])

    def weighted(self, *weights: np.ndarray) -> list[np.ndarray]:
        """Per cell Σ over its models of each per-model weight vector."""
        W = np.column_stack([np.asarray(w, dtype=np.float64) for w in weights]) if weights else np.zeros((self.n_models, 0))
        # every byte of the bitmask, read in place (no column selection, no
        # transposed copy: byte_table_sums skips the bytes without a model)
        m = np.ascontiguousarray(self.masks).astype("<u8").view(np.uint8).reshape(len(self.masks), -1)
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


# QUESTIONS_SQL's columns before the ordering and the label check, which
# :func:`questions_table` does in NumPy (a window ``row_number`` over 100,000
# questions and a list comparison per question cost twice the scan itself)
_QUESTIONS_SCAN_SQL = """
    SELECT seq, question_id, subject, answer_key, [o.label FOR o IN options] AS labels
    FROM questions WHERE benchmark = $benchmark
"""


def _standard_labels(labels: pa.ListArray) -> pa.Array:
    """Per list: its labels are A, B, C, … in order (QUESTIONS_SQL's
    ``labels = SQL_LABELS[1:len(options)]``; NULL for a NULL list).  Each
    label must be one byte, the letter at its position: read from the
    flattened strings' buffers, no Python objects."""
    flat = labels.flatten()
    offs = labels.offsets.to_numpy()
    lengths = np.diff(offs)
    parent = np.repeat(np.arange(len(labels)), lengths)
    pos = np.arange(len(flat)) - (offs[:-1] - offs[0])[parent]
    f_offs = np.frombuffer(flat.buffers()[1], dtype=np.int32, count=len(flat) + 1, offset=flat.offset * 4) \
        if len(flat) else np.zeros(1, np.int32)
    data = np.frombuffer(flat.buffers()[2], dtype=np.uint8) if len(flat) and flat.buffers()[2] is not None \
        else np.zeros(1, np.uint8)
    one_byte = np.diff(f_offs) == 1
    first = data[np.minimum(f_offs[:-1], max(len(data) - 1, 0))] if len(data) else np.zeros(len(flat), np.uint8)
    ok = one_byte & (first.astype(np.int64) == 65 + pos) & (pos < len(LATIN_LABELS))
    if flat.null_count:
        ok &= flat.is_valid().to_numpy(zero_copy_only=False)
    bad = np.bincount(parent[~ok], minlength=len(labels))
    return pa.array(bad == 0, mask=labels.is_null().to_numpy(zero_copy_only=False))


def questions_table(con: Any, benchmark: str) -> pa.Table:
    """The rows of ``QUESTIONS_SQL`` for ``benchmark`` as an Arrow table, to
    register once as ``_q`` when several queries of one analysis need them
    (each ``WITH _q AS (QUESTIONS_SQL)`` would recompute them).  The same
    rows, computed with a plain scan and the ordering (seq, question_id)
    and the label check in NumPy (tests/test_questions_table.py compares
    both)."""
    rel = con.sql(_QUESTIONS_SCAN_SQL, params={"benchmark": benchmark})
    t = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
    seq = t.column("seq").to_numpy(zero_copy_only=False)
    order = np.argsort(seq, kind="stable")
    ordered = seq[order]
    if len(ordered) > 1 and bool((ordered[1:] == ordered[:-1]).any()):     # a tie: question_id decides
        order = pc.sort_indices(t, sort_keys=[("seq", "ascending"), ("question_id", "ascending")]).to_numpy()
    if not np.array_equal(order, np.arange(len(order))):     # the scan usually gives import order already
        t = t.take(pa.array(order))
    labels = t.column("labels").combine_chunks()
    if not isinstance(labels, pa.ListArray):       # an empty table's column
        labels = pa.array([], pa.list_(pa.string()))
    return pa.table({
        "qn": pa.array(np.arange(1, len(t) + 1, dtype=np.int32)),
        "question_id": t.column("question_id"), "subject": t.column("subject"), "answer_key": t.column("answer_key"),
        "n_options": pc.list_value_length(labels).cast(pa.int64()), "labels": labels,
        "standard_labels": _standard_labels(labels),
    })
