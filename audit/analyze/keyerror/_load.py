"""The key-error model's inputs, read from the database: the items (key,
options, subject, flags, the evidence known at analysis time), the models'
usable answers as cells (all of them, or a seeded random sample's), and the
judge runs' verdicts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from audit.analyze._cells import Cells, usable_cells
from audit.analyze.inputs import MASK_BITS, QUESTIONS_SQL
from audit.analyze.keyerror._judges import JudgeVerdicts
from audit.analyze.keyerror._model import SAMPLE, _byte_totals, _unpack

# the items' query over ``_q`` (QUESTIONS_SQL); _ITEMS_SQL computes ``_q`` itself
_ITEMS_BODY = """
SELECT q.qn - 1 AS i, q.question_id, coalesce(q.subject, '') AS subject, q.n_options,
       CASE WHEN q.answer_key IS NULL THEN -2
            ELSE coalesce(list_position(q.labels, q.answer_key), 0) - 1 END AS key_idx,
       q.labels, q.standard_labels,
       -- a semi-join on the few flagged items: cheaper than joining every question back
       q.question_id IN (SELECT question_id FROM questions WHERE benchmark = $benchmark
                         AND list_contains(flags, 'multi_answer')) AS multi,
       coalesce(par.mismatch, false) AS par_mismatch, par.question_id IS NOT NULL AS has_parallel,
       dup.question_id IS NOT NULL AS dup_options
FROM _q q
LEFT JOIN (SELECT question_id, bool_or(NOT key_match) AS mismatch FROM parallel_links
           WHERE benchmark = $benchmark GROUP BY question_id) par ON par.question_id = q.question_id
LEFT JOIN (SELECT DISTINCT question_id FROM audit_lint WHERE run_id = $run_id AND kind = 'duplicate_options') dup
       ON dup.question_id = q.question_id
ORDER BY q.qn
"""
_ITEMS_SQL = f"WITH _q AS ({QUESTIONS_SQL})" + _ITEMS_BODY


@dataclass
class SampledCells:
    """The usable answers of a benchmark's items (all, or a seeded random
    sample of them) as cells, one per (item, letter given), sorted by (item,
    letter): ``item`` (0-based question index), ``y`` (option index),
    ``bytes`` (⌈J/8⌉ × cells uint8: bit ``j % 8`` of row ``j // 8`` set when
    model j gave that letter, :meth:`~audit.analyze._cells.Cells.model_bytes`),
    ``n_models``; ``pick``: the sampled items (sorted), None without sampling."""

    item: np.ndarray
    y: np.ndarray
    bytes: np.ndarray
    n_models: int
    pick: np.ndarray | None = None

    def long_form(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The answers (i, j, y), one per (item, model), sorted by (i, y, j)."""
        cell, j = _unpack(self.bytes, self.n_models)
        return self.item[cell].astype(np.int64), j, self.y[cell].astype(np.int64)

    def per_model(self, keep: np.ndarray | None = None) -> np.ndarray:
        """Answers per model (over the cells ``keep``, default all)."""
        B = self.bytes if keep is None else self.bytes[:, keep]
        return _byte_totals(B, np.ones(B.shape[1]), self.n_models).astype(np.int64)


@dataclass
class ScoreInputs:
    """What :func:`load_inputs` reads for one benchmark: ``items`` (one row per
    question in import order: i, question_id, subject, n_options, key_idx,
    labels, standard_labels, multi, par_mismatch, has_parallel, dup_options) and ``answers``
    (:class:`SampledCells`; ``i``, ``j``, ``y``: the same answers in long
    form, unpacked on first use).  On a large benchmark the answers are
    those of a random ``sample`` of items (sorted item indices) and
    ``counts`` computes the final E-step's weighted counts over all items,
    ``top_answers(j)`` whether model j gave the key / a usable answer on
    every item."""

    items: pd.DataFrame
    answers: SampledCells
    sample: np.ndarray | None = None
    counts: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | None = None
    top_answers: Callable[[int], tuple[np.ndarray, np.ndarray]] | None = None
    _long: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def _long_form(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._long is None:
            self._long = self.answers.long_form()
        return self._long

    i = property(lambda self: self._long_form()[0])
    j = property(lambda self: self._long_form()[1])
    y = property(lambda self: self._long_form()[2])


def read_items(con: Any, benchmark: str, run_id: int, *, q_registered: bool = False) -> pd.DataFrame:
    """:class:`ScoreInputs`' ``items`` of ``benchmark`` (the duplicate-option
    flag from ``run_id``'s lint, so after the lint is written);
    ``q_registered`` as in :func:`load_inputs`."""
    rel = con.sql(_ITEMS_BODY if q_registered else _ITEMS_SQL, params={"benchmark": benchmark, "run_id": run_id})
    return (rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()).to_pandas()


def sampled_answers(cells: Cells, n: int, *, sample: int = SAMPLE, seed: int = 0) -> SampledCells:
    """The usable answers of a benchmark of ``n`` items as
    :class:`SampledCells` (sorted by item, letter); with more than
    ``sample`` items only those of a seeded random sample (its sorted item
    indices in ``pick``).  The cells' bitmasks are repacked model by model
    (:meth:`~audit.analyze._cells.Cells.model_bytes`): the fit reads them as
    they are, with no answer-by-answer long form."""
    ci = cells.qn - 1                      # each cell's item index
    rows: Any = slice(None)
    pick = None
    if n > sample:
        pick = np.sort(np.random.default_rng(seed).choice(n, size=sample, replace=False))
        in_pick = np.zeros(n, dtype=bool)
        in_pick[pick] = True
        rows = np.nonzero(in_pick[ci])[0]
    return SampledCells(ci[rows].astype(np.int64), cells.y[rows].astype(np.int64), cells.model_bytes(rows),
                        cells.n_models, pick)


def load_inputs(con: Any, benchmark: str, run_id: int, *, sample: int = SAMPLE, seed: int = 0,
                cells: Cells | None = None, q_registered: bool = False,
                items: pd.DataFrame | None = None, answers: SampledCells | None = None) -> ScoreInputs:
    """Read a benchmark's items and the usable answers of the model set
    registered as ``_ms`` (as during :func:`audit.analyze.analyze_benchmark`); with more
    than ``sample`` items, only a seeded random sample's answers.  ``cells``:
    the model set's :func:`~audit.analyze._cells.usable_cells` when the
    caller has them (analyze does: one pass over the predictions serves the
    tiers and the score), else read here.  ``q_registered``: the caller
    registered ``_q`` (:func:`~audit.analyze.inputs.questions_table`).
    ``items`` / ``answers``: :func:`read_items` / :func:`sampled_answers`'
    results (with the same ``sample`` and ``seed``) when the caller has them."""
    if items is None:
        items = read_items(con, benchmark, run_id, q_registered=q_registered)
    n = len(items)
    if cells is None:
        n_models = con.execute("SELECT count(*) FROM _ms").fetchall()[0][0]
        cells = usable_cells(con, benchmark, n_models, q_registered=q_registered)
    if answers is None:
        answers = sampled_answers(cells, n, sample=sample, seed=seed)
    pick = answers.pick
    if pick is None:
        return ScoreInputs(items, answers)
    kmax = max(int(items["n_options"].max()), 2)
    ci = cells.qn - 1

    def counts(a: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        # the final E-step's weighted counts over every item: per (item,
        # letter) Σ w_j, Σ w_j·logit(a_j), and per item Σ w_j·log(1 − a_j)
        c, d, s0 = cells.weighted(w, w * (np.log(a) - np.log1p(-a)), w * np.log1p(-a))
        cell_pos = ci * kmax + cells.y
        C = np.zeros(n * kmax)
        D = np.zeros(n * kmax)
        N = np.zeros(n * kmax)
        C[cell_pos] = c
        D[cell_pos] = d
        N[cell_pos] = cells.cnt
        S0 = np.bincount(ci, weights=s0, minlength=n)
        return S0, C.reshape(n, kmax), D.reshape(n, kmax), N.reshape(n, kmax)

    def top_answers(j: int) -> tuple[np.ndarray, np.ndarray]:
        # model j's bit in every cell's bitmask: the items it answered, and those where it gave the key
        word, b = divmod(int(j), MASK_BITS)
        bit = ((np.asarray(cells.masks[:, word]).astype(np.uint64) >> np.uint64(b)) & np.uint64(1)).astype(bool)
        correct = np.zeros(n, dtype=bool)
        answered = np.zeros(n, dtype=bool)
        answered[ci[bit]] = True
        correct[ci[bit & np.asarray(cells.is_key, dtype=bool)]] = True
        return correct, answered

    return ScoreInputs(items, answers, pick, counts, top_answers)


_JUDGE_SQL = """
SELECT v.question_id, v.judge, v.judge || ' ' || v.prompt_version AS run, NOT v.answer_key_correct AS says_wrong
FROM judge_verdicts v
WHERE v.benchmark = $benchmark AND v.parse_ok AND v.answer_key_correct IS NOT NULL
ORDER BY run, v.question_id"""


def load_judge_verdicts(con: Any, benchmark: str, question_ids: pd.Series) -> JudgeVerdicts:
    """The parsed judge verdicts of ``benchmark`` as a :class:`JudgeVerdicts`
    over ``question_ids`` (in that order), on the caller's connection."""
    jv = pd.DataFrame(con.execute(_JUDGE_SQL, {"benchmark": benchmark}).fetchnumpy())
    runs = sorted(jv["run"].unique().tolist()) if len(jv) else []
    v = np.full((len(question_ids), len(runs)), np.nan)
    if runs:
        rows = pd.Index(question_ids).get_indexer(jv["question_id"])
        cols = pd.Index(runs).get_indexer(jv["run"])
        ok = rows >= 0
        v[rows[ok], cols[ok]] = jv["says_wrong"].to_numpy(bool)[ok].astype(float)
    fam_of = jv.drop_duplicates("run").set_index("run")["judge"] if runs else pd.Series(dtype=object)
    fams = sorted(set(fam_of.tolist()))
    return JudgeVerdicts(v, runs, np.array([fams.index(fam_of[r]) for r in runs], dtype=np.int64))
