"""Key-error score: for every item, the calibrated probability that its
answer key is wrong, from a latent-class model over the models' answers and
a prior, learned from expert labels, that splits "the models reject the
key" into a wrong key and a shared misconception.

The model (a one-coin Dawid–Skene model with the key as a vote)
------------------------------------------------------------------
Item *i* has K_i options, key k_i, subject s(i); model *j* belongs to family
f(j) and gives answer y_ij (or none).  Two latent variables per item:

* the true answer T_i.  The key is a very reliable vote:
  P(T_i = k_i) = 1 − ε_s(i); otherwise T_i is uniform over the K_i − 1
  other options.  ε_s is the subject's wrong-key rate.
* whether the models were guessing, G_i (P(G_i = 1) = η).  When they were
  not, model *j* gives the true answer with probability a_j (its
  reliability) and otherwise one of the other K_i − 1 options uniformly
  (the "one-coin" simplification of Dawid & Skene 1979's confusion
  matrices; Raykar et al. 2010, Zhang et al. 2014).  When they were
  guessing, every answer is uniform over the K_i options and carries no
  information about T_i.  This class is what keeps *difficulty* apart from
  *error*: answers spread over several letters are explained by guessing,
  not by a wrong key; only concentrated disagreement with the key is.
* Models of one family share errors.  Each model's log-likelihood term is
  weighted by w_j = 1 / (1 + (m_f − 1)·ρ_f), the design effect of Kish
  (1965) for a cluster of m_f members whose errors correlate with mean
  pairwise correlation ρ_f ≥ 0 (estimated from the data: the correlation of
  the members' error indicators across items).  Perfectly correlated members
  count as one model; independent ones count fully.  This is a weighted
  composite likelihood (Varin, Reid & Firth 2011).

Other evidence (a parallel source's key, lint, judges, expert verdicts)
enters as a log likelihood ratio λ_i added to the key-wrong log-odds: it is
assumed conditionally independent of the models' answers given whether the
key is wrong (naive Bayes).  Settled expert verdicts clamp T_i
(semi-supervised EM): they then inform the reliabilities and the subject's
rate directly.

Likelihood (w = weights, [·] = indicator):

    P(y_i | T_i = t, G_i = 0) = Π_j ( a_j^[y_ij = t] · ((1 − a_j)/(K_i − 1))^[y_ij ≠ t] )^w_j
    P(y_i | G_i = 1)          = Π_j (1/K_i)^w_j

Priors (MAP-EM; Dempster, Laird & Rubin 1977): a_j ~ Beta(8, 2) (a model is
more often right than wrong, worth 8 items of evidence); η ~ Beta(1, 9); the
global wrong-key rate ε ~ Beta(1, 49), and each subject's rate is shrunk
towards it: ε_s ~ Beta(100·ε, 100·(1 − ε)) (a subject needs on the order of
100 items before its own rate counts as much as the global one).

EM updates (Q = posterior over (G_i, T_i) given the current parameters):

    a_j  = (Σ_i Q(G_i=0, T_i=y_ij) + 7) / (Σ_i Q(G_i=0)·[y_ij valid] + 8)
    η    = Σ_i Q(G_i=1) / (n + 8)
    ε    = Σ_i Q(T_i ≠ k_i) / (n + 48)
    ε_s  = (Σ_{i∈s} Q(T_i ≠ k_i) + 100·ε) / (n_s + 100)

with the family weights re-estimated between EM rounds (two rounds: EM
with w = 1, then the weights from that fit's errors and EM again, warm
started).  All steps are
vectorised NumPy over the (item, model) answers (``np.bincount`` over the
long form): no Python loop over items.  On more than ``sample`` items
(default 10,000) the parameters are fitted on a seeded random sample of
items (a subsampled EM: the estimates of ~100 reliabilities and ~20 subject
rates from 10,000 items differ from the full-data ones by sampling noise
only — checked in the tests), then one E-step over all items gives every
item's posterior.

A wrong key or a shared misconception (issue 19)
------------------------------------------------
Real models share misconceptions: on MMLU-Redux ``abstract_algebra/76`` 13
of 14 models give the same wrong answer and the key is right.  Votes alone
cannot tell that from a wrong key, so T_i above is read as the answer the
*models* hold to be true (B_i), and the item is in one of three states:

* W — the key is wrong (B_i = the true answer ≠ the key);
* M — a shared misconception: the key is right, but the models converge on
  a distractor (B_i ≠ the key);
* R — the key is right and the models hold it (B_i = the key; guessing
  included).

The models' answers have the same likelihood under W and M, so the EM
above (unchanged, and as fast) gives p_reject_i = P(B_i ≠ k_i | answers) =
P(W ∪ M), and the split between W and M comes from a prior learned from
expert labels: φ = P(W | W ∪ M), one value per band of the agreement share
x_i (the share of the usable answers on the most chosen non-key option;
:data:`PHI_BANDS`, :data:`PHI_PRIOR_MEAN`, fitted on MMLU-Redux by
:func:`fit_misconception_prior_bands` and kept non-decreasing in x).  Other
evidence λ_i (parallel source, lint, judges) is about W against M ∪ R, so

    P(W ∪ M) prior odds gain log(φ·e^λ + 1 − φ)   (:func:`belief_inputs`)
    score_i = P(W | everything) = p_reject_i · ψ_i,   ψ_i = σ(logit φ + λ_i)

A key settled right rules W out but leaves M possible; a key settled wrong
clamps B_i.  The campaign's settled verdicts update φ (a conjugate Beta
update per band after a ratio shared by every band, in
:mod:`audit.review._evidence`), so experts who keep confirming keys that
the models reject lower similar items' scores without a refit.

The stored parts: prior_logit = logit(ε_s(i)) (the subject's rate of
rejected keys), llr_models_i = log P(answers | B ≠ key) / P(answers | B =
key), p_reject, agreement_share; :func:`combined_score` recomputes the score
from them (what :mod:`audit.review._evidence` does as verdicts arrive).

Items outside the model: a key that is not among the options (or no key)
is wrong by construction (score 1); a multi-answer key (flag
``multi_answer``) is not scored (NULL).

References: A. P. Dawid & A. M. Skene (1979), Maximum likelihood estimation
of observer error-rates using the EM algorithm, JRSS C 28(1); V. C. Raykar
et al. (2010), Learning from crowds, JMLR 11; Y. Zhang, X. Chen, D. Zhou &
M. I. Jordan (2014), Spectral methods meet EM, NeurIPS; L. Kish (1965),
Survey Sampling; C. Varin, N. Reid & D. Firth (2011), An overview of
composite likelihood methods, Statistica Sinica 21.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import ArrayLike

from audit.analyze._cells import _BITS8 as _BYTE_BITS
from audit.analyze._cells import _POP8, Cells, byte_table_sums, usable_cells
from audit.analyze.inputs import QUESTIONS_SQL, ModelSet, latest_run
from audit.options import LATIN_LABELS
from audit.store import DbPath, connect, resolve_benchmark, unregister

# Priors (see the module docstring).
A_PRIOR = (8.0, 2.0)          # Beta prior of a model's reliability
GUESS_PRIOR = (1.0, 9.0)      # Beta prior of the guessing rate η
RATE_PRIOR = (1.0, 49.0)      # Beta prior of the global wrong-key rate ε
SUBJECT_STRENGTH = 100.0      # pseudo-items of the global rate in a subject's rate
FAMILY_ROUNDS = 2
SAMPLE = 10_000
TOL = 1e-5                    # EM stops when no parameter moves by more than this
# Evidence known at analysis time, as likelihood ratios (key wrong : key
# right).  Assumptions, not measurements: a wrong key is found as a mismatch
# by a parallel source half of the time; a correct key mismatches 10% of the
# time (translation / source differences).  Duplicate option texts make a
# key three times as likely to be wrong.  audit.review._evidence replaces the
# parallel ratio by one measured on settled items once there are some.
PARALLEL_SENS, PARALLEL_SPEC = 0.5, 0.9
LLR_PARALLEL_MISMATCH = math.log(PARALLEL_SENS / (1 - PARALLEL_SPEC))
LLR_PARALLEL_MATCH = math.log((1 - PARALLEL_SENS) / PARALLEL_SPEC)
LLR_DUPLICATE_OPTIONS = math.log(3.0)
LETTERS = "ABCDEF"
# The shared-misconception split (see the module docstring): φ = P(key wrong |
# the models' shared answer is not the key), one value per band of the
# agreement share x (the share of the models' usable answers on the most
# chosen non-key option): [0, 0.75), [0.75, 0.9), [0.9, 1].  Beta priors
# fitted on the expert labels of MMLU-Redux (tests/bench/bench_calibration.py
# prints the fit).  Data: ../shared/data/mmlu_redux_dev (Gema et al. 2024,
# CC BY 4.0), 15 subjects × 100 items, 14 HELM models, 35 items labelled
# wrong_groundtruth; φ̂ by maximum likelihood per band (label ~
# Bernoulli(φ·p_reject), :func:`fit_misconception_prior`).  Each band's prior
# is worth PHI_STRENGTH rejected keys: a campaign's settled verdicts on items
# the models reject move it (audit.review._evidence), band by band, so
# verdicts on near-unanimous items do not move the items where fewer models
# agree.  The strength is an empirical-Bayes figure, not a guess: φ varies
# between MMLU-Redux's 15 subjects well beyond binomial noise, as a Beta
# prior worth 6.3 rejected keys (:func:`fit_misconception_strength`, the
# method of moments of Kleinman 1973; printed by the bench), so a prior
# fitted on one set of subjects is worth about 6 rejected keys of another
# (it was 20, which let a 50-item campaign move the remaining items'
# expected count by less than the held-out evidence allowed).
PHI_BANDS = (0.75, 0.9)
PHI_PRIOR_MEAN = (0.24, 0.24, 0.32)
PHI_STRENGTH = 6.0
PHI_PRIOR = tuple((m * PHI_STRENGTH, (1 - m) * PHI_STRENGTH) for m in PHI_PRIOR_MEAN)


def phi_band(agreement: ArrayLike) -> np.ndarray:
    """The φ band (0, 1, 2) of agreement shares.

    >>> phi_band([0.0, 0.8, 0.95]).tolist()
    [0, 1, 2]
    """
    return np.searchsorted(np.asarray(PHI_BANDS), np.asarray(agreement, dtype=float), side="right")


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


@dataclass
class KeyErrorFit:
    """Result of :func:`fit_key_error` (arrays indexed by item / model /
    subject / family id)."""

    score: np.ndarray           # P(key wrong)
    p_reject: np.ndarray        # P(the models' shared answer is not the key): key wrong or shared misconception
    llr_models: np.ndarray      # log LR of the answers (key wrong : key right)
    prior_logit: np.ndarray     # logit of the item's subject rate
    p_guessing: np.ndarray      # P(G_i = 1)
    alternative: np.ndarray     # most probable non-key answer (index), -1 if none
    p_alternative: np.ndarray
    posterior: np.ndarray       # n × Kmax, P(T_i = t)
    reliability: np.ndarray     # a_j
    weight: np.ndarray          # w_j
    family_rho: np.ndarray      # ρ_f
    subject_rate: np.ndarray    # ε_s
    subject_n: np.ndarray       # items per subject
    global_rate: float
    guess_rate: float
    n_iter: int
    converged: bool
    extra: dict = field(default_factory=dict)
    agreement: np.ndarray = field(default_factory=lambda: np.zeros(0))   # x: top non-key share of the answers
    phi: np.ndarray = field(default_factory=lambda: np.zeros(0))         # the item's misconception split φ


def _logsumexp(x: np.ndarray) -> np.ndarray:
    """log Σ_t exp(x_t) over the rows of ``x`` (Kmax × n), overwriting ``x``.
    The differences to the row's maximum are floored at −700 before exp:
    NumPy's SIMD exp is several times slower where its result underflows or
    is −∞, and a term below e^−700 cannot change a sum that holds the
    maximum's 1.  A row without a finite entry gives its maximum (−∞ or NaN),
    as exp and log would."""
    m = x.max(0)
    bad = ~np.isfinite(m)
    m_bad = m[bad]
    m[bad] = 0.0
    x -= m
    np.maximum(x, -700.0, out=x)            # (NaN stays NaN)
    np.exp(x, out=x)
    with np.errstate(divide="ignore"):
        out = m + np.log(x.sum(0))
    out[bad] = m_bad
    return out


class _Data:
    """The answers of a set of items, with the per-item constants: built
    from the long form (one entry per answer: item, model, answer) or, with
    :meth:`from_cells`, from the cells' bitmasks (one entry per (item,
    letter) given); the EM reads the cells' bitmasks when it has them and
    the long form (unpacked on first use) otherwise.

    Per-(item, letter) arrays of the EM are kept letter-major (Kmax × n,
    the ``*_t`` attributes): sums, maxima and log-sum-exps over an item's
    few letters are then element-wise operations on contiguous rows rather
    than reductions over a short inner axis (several times cheaper)."""

    def __init__(self, item: np.ndarray, model: np.ndarray, answer: np.ndarray, n_options: np.ndarray,
                 key: np.ndarray, subject: np.ndarray, n_models: int, kmax: int) -> None:
        self._setup(n_options, key, subject, n_models, kmax)
        item = np.asarray(item, dtype=np.int64)
        model = np.asarray(model, dtype=np.int64)
        answer = np.asarray(answer, dtype=np.int64)
        cell = item * kmax
        cell += answer
        self._long = (item, model, answer, cell)
        # answers sorted by cell (as load_inputs gives them): the cells and where
        # each one's run starts, and the cells' bitmasks
        if len(cell) and bool(np.all(cell[1:] >= cell[:-1])):
            starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
            cnt = np.diff(np.r_[starts, len(cell)])
            self._set_cells(cell[starts], cnt, starts,
                            _cell_bytes(np.repeat(np.arange(len(starts)), cnt), model, len(starts), n_models))

    @classmethod
    def from_cells(cls, item: np.ndarray, y: np.ndarray, cell_bytes: np.ndarray, n_options: np.ndarray,
                   key: np.ndarray, subject: np.ndarray, n_models: int, kmax: int) -> "_Data":
        """The same data from cells sorted by (item, letter) without a
        repeated one: ``item``, ``y`` (letter) and ``cell_bytes``
        (⌈J/8⌉ × cells uint8, bit ``j % 8`` of row ``j // 8`` set when
        model j gave it, as :func:`_cell_bytes`); no long form is built."""
        d = cls.__new__(cls)
        d._setup(n_options, key, subject, n_models, kmax)
        d._long = None
        B = np.ascontiguousarray(cell_bytes, dtype=np.uint8)
        cnt = _POP8[B].sum(0) if B.size else np.zeros(B.shape[1], dtype=np.int64)
        cell = np.asarray(item, dtype=np.int64) * kmax + np.asarray(y, dtype=np.int64)
        if len(cell) and bool(np.all(cell[1:] > cell[:-1])):
            nz = cnt > 0                          # (a cell without models is no answer)
            if not nz.all():
                cell, cnt, B = cell[nz], cnt[nz], np.ascontiguousarray(B[:, nz])
            if len(cell):
                d._set_cells(cell, cnt, np.r_[0, np.cumsum(cnt)[:-1]].astype(np.int64), B)
        elif len(cell):
            raise ValueError("cells must be sorted by (item, letter), each once")
        return d

    def _setup(self, n_options: np.ndarray, key: np.ndarray, subject: np.ndarray, n_models: int, kmax: int) -> None:
        """The per-item constants, and no cells yet."""
        self.K = np.asarray(n_options, dtype=np.float64)
        self.key = np.asarray(key, dtype=np.int64)
        self.subject = np.asarray(subject, dtype=np.int64)
        self.n = len(self.key)
        self.J = n_models
        self.kmax = kmax
        letters = np.arange(kmax)[:, None]
        self.optmask_t = letters < self.K[None, :]             # Kmax × n
        self.is_key_t = letters == self.key[None, :]
        self.off_t = ~self.optmask_t
        self.any_off = bool(self.off_t.any())          # items with fewer than Kmax options
        self.logk1 = np.log(np.maximum(self.K - 1, 1))
        with np.errstate(divide="ignore"):
            self.logK = np.log(self.K)
        # the key's letter, for gathers from a Kmax × n array (flat index; has_key
        # False where the key is not a letter of the layout)
        self.has_key = (self.key >= 0) & (self.key < kmax)
        self.key_flat = np.where(self.has_key, self.key, 0) * self.n + np.arange(self.n)
        # the answers' cells (item·Kmax + letter, sorted) and where each one's
        # answers start in the long form, for segment sums (np.add.reduceat)
        self.runs: tuple[np.ndarray, np.ndarray] | None = None
        self.cell_n: np.ndarray = np.zeros(0, dtype=np.int64)      # answers per cell
        # and each cell's models as a bitmask of bytes (cells × ⌈J/8⌉): sums
        # over a cell's models are then 256-entry table look-ups per byte
        # (as in :meth:`~audit.analyze._cells.Cells.weighted`), several times
        # cheaper per EM iteration than gathering every answer
        self.bytes: np.ndarray | None = None
        # each item's models (the OR of its cells' bytes, ⌈J/8⌉ × n) when no
        # model answers an item twice: per-item sums over 4× fewer columns
        self.item_bytes: np.ndarray | None = None
        self.cell_item: np.ndarray = np.zeros(0, dtype=np.int64)    # each cell's item
        self.cell_t: np.ndarray = np.zeros(0, dtype=np.int64)     # each cell's index in a flat Kmax × n array
        self.byte_ids: list[np.ndarray] | None = None     # _byte_ids of the bitmask, once
        self._cterms: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None   # (w, _c_terms) of the last weights
        self.bytes_ix: np.ndarray | None = None
        self.item_bytes_ix: np.ndarray | None = None

    def _set_cells(self, cells: np.ndarray, cnt: np.ndarray, starts: np.ndarray, B: np.ndarray | None) -> None:
        """The cells (sorted flat positions), their answer counts, their
        answers' starts in the long form and their bitmasks (None: none)."""
        self.runs = (cells, starts)
        self.cell_n = cnt
        self.bytes = B
        self.cell_item = cells // self.kmax
        self.cell_t = (cells % self.kmax) * self.n + self.cell_item
        if B is not None:
            ci = self.cell_item
            first = np.flatnonzero(np.r_[True, ci[1:] != ci[:-1]])
            ib = np.zeros((B.shape[0], self.n), dtype=np.uint8)
            ib[:, ci[first]] = np.bitwise_or.reduceat(B, first, axis=1)
            if int(_POP8[ib].sum()) == int(cnt.sum()):
                self.item_bytes = ib
        # the bitmasks as intp look-up indices when small (≤ 16 MB): the EM uses
        # them every iteration, and a uint8 index is widened on every use
        self.bytes_ix = self.bytes
        self.item_bytes_ix = self.item_bytes
        if self.bytes is not None and self.bytes.size <= 1 << 21:
            self.bytes_ix = self.bytes.astype(np.intp)
            if self.item_bytes is not None:
                self.item_bytes_ix = self.item_bytes.astype(np.intp)

    def _long_form(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(item, model, answer, cell) per answer, sorted by (item, answer,
        model); unpacked from the bitmasks of data built from cells."""
        if self._long is None:
            if self.runs is None or self.bytes is None:
                e = np.zeros(0, dtype=np.int64)
                self._long = (e, e, e, e)
            else:
                c, model = _unpack(self.bytes, self.J)
                cell = self.runs[0][c]
                self._long = (cell // self.kmax, model, cell % self.kmax, cell)
        return self._long

    # the long form, per answer (unpacked on first use for data built from cells)
    item = property(lambda self: self._long_form()[0])
    model = property(lambda self: self._long_form()[1])
    answer = property(lambda self: self._long_form()[2])
    cell = property(lambda self: self._long_form()[3])

    def subset(self, pick: np.ndarray) -> "_Data":
        """The data of the items ``pick`` (sorted indices), renumbered 0…,
        in the same form (cells or long form)."""
        remap = np.full(self.n, -1, dtype=np.int64)
        remap[pick] = np.arange(len(pick))
        if self._long is None:
            keep = remap[self.cell_item] >= 0
            cells = self.runs[0][keep] if self.runs is not None else np.zeros(0, dtype=np.int64)
            B = self.bytes[:, keep] if self.bytes is not None else np.zeros((max(1, -(-self.J // 8)), 0), np.uint8)
            return _Data.from_cells(remap[cells // self.kmax], cells % self.kmax, B, self.K[pick], self.key[pick],
                                    self.subject[pick], self.J, self.kmax)
        item, model, answer, _ = self._long
        keep = remap[item] >= 0
        return _Data(remap[item[keep]], model[keep], answer[keep], self.K[pick], self.key[pick], self.subject[pick],
                     self.J, self.kmax)

    def cell_counts(self) -> np.ndarray | None:
        """n × Kmax answers per (item, letter) from the sorted runs (None if unsorted)."""
        if self.runs is None:
            return None
        N = np.zeros(self.n * self.kmax, dtype=np.int64)
        N[self.runs[0]] = self.cell_n
        return N.reshape(self.n, self.kmax)


_BITS8 = _BYTE_BITS.astype(np.float64)     # byte value → its 8 bits


def _unpack(B: np.ndarray, n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """(cell, model) of every bit set in the cells' bytes ``B`` (⌈J/8⌉ ×
    cells, as :func:`_cell_bytes`), sorted by (cell, model)."""
    cell, model = np.nonzero(np.unpackbits(np.ascontiguousarray(B.T), axis=1, bitorder="little")[:, :n_models])
    return cell, model.astype(np.int64)


def _byte_ids(n_bytes: int, n_models: int) -> list[np.ndarray]:
    """The model of each bit of each byte row of :func:`_cell_bytes` (−1: none)."""
    return [np.where(8 * c + np.arange(8) < n_models, 8 * c + np.arange(8), -1) for c in range(n_bytes)]


def _cell_bytes(seg: np.ndarray, model: np.ndarray, n_cells: int, n_models: int) -> np.ndarray | None:
    """⌈J/8⌉ × cells uint8 (a byte row per 8 models, contiguous): bit
    ``j % 8`` of row ``j // 8`` set when model j answered in the cell
    (``seg``: each answer's cell).  None when a model appears twice in one
    cell (the bitmask could not count it)."""
    nb = max(1, -(-n_models // 8))
    if n_cells * nb * 8 <= 1 << 26:      # a cells × models bool matrix (≤ 64 MB), packed: the cheaper way
        M = np.zeros((n_cells, nb * 8), dtype=bool)
        flat = seg * (nb * 8)
        flat += model
        M.reshape(-1)[flat] = True      # a flat index: cheaper than a 2-D scatter
        if np.count_nonzero(M) != len(model):
            return None
        return np.ascontiguousarray(np.packbits(M, axis=1, bitorder="little").T)
    flat = np.bincount((model // 8) * n_cells + seg, weights=np.left_shift(1, model % 8), minlength=n_cells * nb)
    B = flat.astype(np.uint8).reshape(nb, n_cells)
    if flat.max(initial=0) > 255 or int(_POP8[B].sum()) != len(model):
        return None
    return B


def _byte_totals(B: np.ndarray, v: np.ndarray, J: int) -> np.ndarray:
    """Per model Σ over the cells it answered in of ``v`` (per cell); a
    complex ``v`` gives two sums at once (real and imaginary parts, each
    summed exactly as alone), in one unbuffered ``np.add.at`` per byte row:
    a quarter cheaper than two weighted bincounts."""
    H = np.zeros((B.shape[0], 256), dtype=v.dtype)
    for c in range(B.shape[0]):
        np.add.at(H[c], B[c], v)
    return (H @ _BITS8).reshape(-1)[:J]


def _counts_t(d: _Data, a: np.ndarray, w: np.ndarray, with_c: bool = True
              ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """:func:`_counts` letter-major: (S0, C, D) with C and D Kmax × n (C
    None unless ``with_c``, on the byte-table path)."""
    n, km = d.n, d.kmax
    if d.runs is not None and d.bytes is not None:   # the cells' bitmasks: byte-table sums
        la, l1a = np.log(a), np.log1p(-a)
        if d.byte_ids is None:
            d.byte_ids = _byte_ids(d.bytes.shape[0], d.J)
        ids = d.byte_ids
        cols = [w * (la - l1a)] + ([w] if with_c else [])
        if d.item_bytes is None:
            cols.append(w * l1a)
        sums = byte_table_sums(d.bytes_ix, ids, np.column_stack(cols))
        if d.item_bytes_ix is not None:     # S0 per item over the items' bitmasks
            S0 = byte_table_sums(d.item_bytes_ix, ids, (w * l1a)[:, None])[0]
        else:
            S0 = np.bincount(d.cell_item, weights=sums[-1], minlength=n)
        Df = np.zeros(km * n)
        Df[d.cell_t] = sums[0]
        Cf = None
        if with_c:
            Cf = np.zeros(km * n)
            Cf[d.cell_t] = sums[1]
        return S0, None if Cf is None else Cf.reshape(km, n), Df.reshape(km, n)
    if d.runs is not None:   # sorted answers: segment sums, about twice as fast as scattered bincounts
        cells, starts = d.runs
        Cf, Df = np.zeros(n * km), np.zeros(n * km)
        Cf[cells] = np.add.reduceat(w[d.model], starts)
        Df[cells] = np.add.reduceat((w * (np.log(a) - np.log1p(-a)))[d.model], starts)
        S0 = np.bincount(cells // km, weights=np.add.reduceat((w * np.log1p(-a))[d.model], starts), minlength=n)
        return S0, np.ascontiguousarray(Cf.reshape(n, km).T), np.ascontiguousarray(Df.reshape(n, km).T)
    S0 = np.bincount(d.item, weights=(w * np.log1p(-a))[d.model], minlength=n)
    C = np.bincount(d.cell, weights=w[d.model], minlength=n * km).reshape(n, km)
    D = np.bincount(d.cell, weights=(w * (np.log(a) - np.log1p(-a)))[d.model], minlength=n * km).reshape(n, km)
    return S0, np.ascontiguousarray(C.T), np.ascontiguousarray(D.T)


def _counts(d: _Data, a: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item S0 = Σ_j w_j log(1 − a_j); per (item, letter) C = Σ w_j and
    D = Σ w_j log(a_j / (1 − a_j)) over the models giving that letter (C and D n × Kmax)."""
    S0, C, D = _counts_t(d, a, w)
    assert C is not None
    return S0, C.T, D.T


def _c_terms(d: _Data, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parts of the log-likelihood that depend on C (Kmax × n; a
    transposed view will do) only: −log(K − 1)·(W − C) (−∞ off the item's
    options) and ll_g = −W·log K.  In place on one new array: over 100,000
    items every large temporary costs its page faults."""
    W = C[0].copy()                 # Σ over the letters row by row (C may be a transposed view)
    for t in range(1, C.shape[0]):
        W += C[t]
    base = np.subtract(W, C, out=np.empty(C.shape))     # C-ordered whatever C's layout
    base *= d.logk1
    np.negative(base, out=base)
    if d.any_off:
        base[d.off_t] = -np.inf
    return base, -W * d.logK


def _loglik_counts(d: _Data, S0: np.ndarray, C: np.ndarray | None, D: np.ndarray,
                   cterms: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(ll_n: Kmax × n, log P(answers | T = t, not guessing); ll_g: n, log
    P(answers | guessing)) from letter-major counts; ``cterms``: :func:`_c_terms` of C when known."""
    if cterms is None:           # a new base: summed in place
        assert C is not None
        ll_n, ll_g = _c_terms(d, C)
        ll_n += S0
    else:
        base, ll_g = cterms
        ll_n = S0 + base
    ll_n += D
    return ll_n, ll_g


def _loglik(d: _Data, a: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_loglik_counts` of the answers under (a, w); the C terms are
    kept between calls with the same weights (C depends on w only: within an
    EM round only a moves)."""
    fresh = d._cterms is None or not np.array_equal(d._cterms[0], w)
    S0, C, D = _counts_t(d, a, w, with_c=fresh)
    if fresh:
        assert C is not None
        d._cterms = (w.copy(), *_c_terms(d, C))
    assert d._cterms is not None
    return _loglik_counts(d, S0, C, D, (d._cterms[1], d._cterms[2]))


def _log_prior(d: _Data, prior_logit: np.ndarray, clamp: np.ndarray | None, truth: np.ndarray | None,
               out: np.ndarray | None = None) -> np.ndarray:
    """log P(T_i = t) (Kmax × n): key 1 − ε, each other option ε/(K − 1);
    clamped items put all mass on the allowed answers.  ``out``: a Kmax × n
    array to write it in (no new array unless clamped)."""
    lp_wrong = -np.logaddexp(0.0, -prior_logit)   # log sigmoid
    if np.isneginf(prior_logit).any():
        lp_right = -np.logaddexp(0.0, prior_logit)
    else:
        lp_right = lp_wrong - prior_logit          # log σ(−x) = log σ(x) − x: one logaddexp fewer
    lp = np.empty((d.kmax, d.n)) if out is None else out
    assert lp.flags.c_contiguous                  # (the key's scatter writes through reshape)
    lp[...] = lp_wrong - d.logk1
    lp.reshape(-1)[d.key_flat[d.has_key]] = lp_right[d.has_key]   # the key's letter (a scatter: masks cost more)
    if d.any_off:
        lp[d.off_t] = -np.inf
    if clamp is not None:
        right = clamp == 0
        wrong = clamp == 1
        lp = np.where(right & ~d.is_key_t, -np.inf, lp)
        lp = np.where(wrong & d.is_key_t, -np.inf, lp)
        if truth is not None:
            fixed = wrong & (truth >= 0)
            lp = np.where(fixed & (np.arange(d.kmax)[:, None] != truth), -np.inf, lp)
        lp = np.where((right | wrong) & np.isfinite(lp), 0.0, lp)
        if out is not None:
            out[...] = lp
            return out
    return lp


def _estep(d: _Data, a: np.ndarray, w: np.ndarray, eta: float, prior_logit: np.ndarray,
           clamp: np.ndarray | None, truth: np.ndarray | None,
           counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Q: n × 2 × Kmax, the posterior over (G_i, T_i); ll_n: n × Kmax;
    ll_g: n).  Q and ll_n are views of letter-major arrays (``Q.transpose(1,
    2, 0)`` and ``ll_n.T`` are contiguous); ``counts``: (S0, C, D) as
    :func:`_counts` gives them, instead of the answers."""
    if counts is None:
        ll_n, ll_g = _loglik(d, a, w)
    else:
        S0, C, D = counts
        ll_n, ll_g = _loglik_counts(d, S0, C.T, D.T)
    km, n = d.kmax, d.n
    Q = np.empty((2, km, n))
    lp = _log_prior(d, prior_logit, clamp, truth, out=Q[1])     # the prior, in Q[1]'s place
    np.add(math.log1p(-eta), ll_n, out=Q[0])
    Q[0] += lp
    lp += math.log(eta) + ll_g                                  # (log η + ll_g) + lp, in place
    # log-sum-exp over the 2·Kmax states of each item, then normalised
    flat = Q.reshape(2 * km, n)
    m = flat.max(0)
    m[~np.isfinite(m)] = 0.0
    flat -= m
    np.exp(flat, out=flat)
    with np.errstate(divide="ignore", invalid="ignore"):
        flat *= 1.0 / flat.sum(0)
    return Q.transpose(2, 0, 1), ll_n.T, ll_g


def _mstep(d: _Data, Q: np.ndarray, n_subjects: int) -> tuple[np.ndarray, float, float, np.ndarray]:
    Qt = Q.transpose(1, 2, 0)          # 2 × Kmax × n (contiguous as _estep gives it)
    r = Qt[0].sum(0)
    if d.runs is not None and d.bytes is not None:   # per model, over the cells it answered in
        v = np.empty(len(d.cell_t), dtype=np.complex128)   # Q(G=0, T=cell's letter) + i·Q(G=0) of its item
        v.real = np.take(Qt[0], d.cell_t)
        v.imag = np.take(r, d.cell_item)
        T = _byte_totals(d.bytes_ix, v, d.J)
        corr, tot = T.real, T.imag
    else:
        corr = np.bincount(d.model, weights=Qt[0][d.answer, d.item], minlength=d.J)
        tot = np.bincount(d.model, weights=r[d.item], minlength=d.J)
    a = (corr + A_PRIOR[0] - 1) / (tot + A_PRIOR[0] + A_PRIOR[1] - 2)
    a = np.clip(a, 1e-4, 1 - 1e-4)
    eta = float(np.clip((1 - r).sum() + GUESS_PRIOR[0] - 1, 1e-6, None) / (d.n + sum(GUESS_PRIOR) - 2))
    # (0·Q at letter 0: NaN on an item whose posterior is NaN, as Σ_t Q_t·[t = key] was)
    s = 1.0 - np.where(d.has_key, np.take(Qt[0], d.key_flat) + np.take(Qt[1], d.key_flat), 0.0 * (Qt[0][0] + Qt[1][0]))
    g = float(np.clip(s.sum() + RATE_PRIOR[0] - 1, 1e-6, None) / (d.n + sum(RATE_PRIOR) - 2))
    ns = np.bincount(d.subject, minlength=n_subjects).astype(float)
    eps_s = (np.bincount(d.subject, weights=s, minlength=n_subjects) + SUBJECT_STRENGTH * g) / (ns + SUBJECT_STRENGTH)
    return a, min(eta, 0.999), g, np.clip(eps_s, 1e-6, 1 - 1e-6)


def _error_matrix(d: _Data, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(err, valid), n × J: model j answered item i, and not with ``truth[i]``."""
    if d.item_bytes is not None and d.bytes is not None and d.runs is not None:   # from the bitmasks
        slot = np.full(d.n * d.kmax, -1, dtype=np.int64)
        slot[d.runs[0]] = np.arange(len(d.runs[0]))
        tc = slot[np.arange(d.n) * d.kmax + truth]
        right = np.where(tc >= 0, d.bytes[:, np.maximum(tc, 0)], 0).astype(np.uint8)

        def unpack(B: np.ndarray) -> np.ndarray:
            return np.unpackbits(np.ascontiguousarray(B.T), axis=1, bitorder="little")[:, :d.J].view(bool)

        return unpack(d.item_bytes & ~right), unpack(d.item_bytes)
    err = np.zeros((d.n, d.J), dtype=bool)
    err[d.item, d.model] = d.answer != truth[d.item]
    valid = np.zeros((d.n, d.J), dtype=bool)
    valid[d.item, d.model] = True
    return err, valid


def _family_weights(d: _Data, Q: np.ndarray, family: np.ndarray, n_families: int) -> tuple[np.ndarray, np.ndarray]:
    """w_j = 1/(1 + (m_f − 1)ρ_f), ρ_f the mean pairwise correlation of the
    members' error indicators over the items (dense n × J; a loop over
    families only)."""
    Qt = Q.transpose(1, 2, 0)
    truth = (Qt[0] + Qt[1]).argmax(0)
    err, valid = _error_matrix(d, truth)
    w = np.ones(d.J)
    rho = np.zeros(n_families)
    for f in range(n_families):
        idx = np.nonzero(family == f)[0]
        if len(idx) < 2:
            continue
        both = valid[:, idx]
        rows = both.all(1)
        if rows.sum() < 10:
            continue
        E = err[rows][:, idx].astype(np.float64)
        sd = E.std(0)
        keep = sd > 0
        if keep.sum() < 2:
            continue
        C = np.corrcoef(E[:, keep].T)
        iu = np.triu_indices(int(keep.sum()), 1)
        rho[f] = max(float(np.nanmean(C[iu])), 0.0)
        w[idx] = 1.0 / (1.0 + (len(idx) - 1) * rho[f])
    return w, rho


def fit_key_error(
    item: ArrayLike, model: ArrayLike, answer: ArrayLike, n_options: ArrayLike, key: ArrayLike, *,
    subject: ArrayLike | None = None, family: ArrayLike | None = None, n_models: int | None = None,
    evidence_llr: ArrayLike | None = None, clamp: ArrayLike | None = None, truth: ArrayLike | None = None,
    max_iter: int = 200, tol: float = TOL, sample: int = SAMPLE, seed: int = 0,
    family_rounds: int = FAMILY_ROUNDS, full_iters: int = 0, n_subjects: int | None = None,
    phi: ArrayLike | None = None,
) -> KeyErrorFit:
    """Fit the model of the module docstring and return every item's score.

    Long-form answers: ``item`` (0..n−1), ``model`` (0..J−1), ``answer``
    (option index 0..K−1) — one entry per usable answer.  Per item:
    ``n_options`` (K_i ≥ 2), ``key`` (option index), ``subject`` (ids,
    default one subject), ``evidence_llr`` (λ_i, default 0), ``clamp``
    (NaN unknown, 1 key wrong, 0 key right: settled verdicts) and ``truth``
    (the corrected answer's index for clamp = 1, −1 unknown).  ``phi``:
    P(key wrong | the models' shared answer is not the key) per band of the
    agreement share (:data:`PHI_BANDS`).  Per model:
    ``family`` (ids; default every model its own family); ``n_models``
    (default: the largest model id + 1).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> n, J = 400, 6
    >>> truth = rng.integers(0, 4, n); key = truth.copy(); key[:20] = (truth[:20] + 1) % 4
    >>> Y = np.where(rng.random((n, J)) < 0.8, truth[:, None], rng.integers(0, 4, (n, J)))
    >>> i, j = np.nonzero(np.ones((n, J), bool))
    >>> f = fit_key_error(i, j, Y[i, j], np.full(n, 4), key)
    >>> bool(f.p_reject[:20].mean() > 0.8 and f.p_reject[20:].mean() < 0.05)   # the models reject the key
    True
    >>> bool(np.allclose(f.score, f.phi * f.p_reject))   # P(key wrong): a wrong key or a misconception
    True
    """
    item = np.asarray(item, dtype=np.int64)
    model = np.asarray(model, dtype=np.int64)
    answer = np.asarray(answer, dtype=np.int64)
    n_options = np.asarray(n_options, dtype=np.int64)
    key = np.asarray(key, dtype=np.int64)
    J = n_models if n_models is not None else (int(model.max()) + 1 if len(model) else 1)
    subject_a = np.zeros(len(key), dtype=np.int64) if subject is None else np.asarray(subject, dtype=np.int64)
    full = _Data(item, model, answer, n_options, key, subject_a, J, _kmax(n_options))
    return _fit(full, family=family, evidence_llr=evidence_llr, clamp=clamp, truth=truth, max_iter=max_iter, tol=tol,
                sample=sample, seed=seed, family_rounds=family_rounds, full_iters=full_iters, n_subjects=n_subjects,
                phi=phi)


def fit_key_error_cells(
    item: ArrayLike, y: ArrayLike, cell_bytes: np.ndarray, n_options: ArrayLike, key: ArrayLike, *,
    n_models: int, subject: ArrayLike | None = None, **kw: Any,
) -> KeyErrorFit:
    """:func:`fit_key_error` on the answers given as cells, one per (item,
    letter given) sorted by (item, letter): ``item`` (0..n−1), ``y`` (option
    index) and ``cell_bytes`` (⌈J/8⌉ × cells uint8: bit ``j % 8`` of row
    ``j // 8`` set when model j gave that letter, as
    :meth:`~audit.analyze._cells.Cells.model_bytes` packs them).  The same
    fit (the same EM, identical results) without unpacking the answers to
    the long form and packing them back; the other arguments as there
    (``kw``: family, evidence_llr, clamp, truth, max_iter, tol, sample,
    seed, family_rounds, full_iters, n_subjects, phi).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> n, J = 300, 6
    >>> Y = rng.integers(0, 4, (n, J))
    >>> i, j = np.nonzero(np.ones((n, J), bool)); y = Y[i, j]
    >>> o = np.lexsort((j, y, i)); i, j, y = i[o], j[o], y[o]
    >>> cell = i * 4 + y; first = np.r_[True, cell[1:] != cell[:-1]]
    >>> B = np.zeros((1, first.sum()), np.uint8)
    >>> np.bitwise_or.at(B[0], np.cumsum(first) - 1, (1 << j).astype(np.uint8))
    >>> a = fit_key_error(i, j, y, np.full(n, 4), np.zeros(n, int), n_models=J)
    >>> b = fit_key_error_cells(i[first], y[first], B, np.full(n, 4), np.zeros(n, int), n_models=J)
    >>> bool(np.array_equal(a.score, b.score) and np.array_equal(a.reliability, b.reliability))
    True
    """
    n_options = np.asarray(n_options, dtype=np.int64)
    key = np.asarray(key, dtype=np.int64)
    subject_a = np.zeros(len(key), dtype=np.int64) if subject is None else np.asarray(subject, dtype=np.int64)
    full = _Data.from_cells(np.asarray(item), np.asarray(y), cell_bytes, n_options, key, subject_a, n_models,
                            _kmax(n_options))
    return _fit(full, **kw)


def _kmax(n_options: np.ndarray) -> int:
    """The letters of the fit's layout: the most options, at least 2."""
    return max(int(n_options.max()) if len(n_options) else 2, 2)


def _fit(full: _Data, *, family: ArrayLike | None = None, evidence_llr: ArrayLike | None = None,
         clamp: ArrayLike | None = None, truth: ArrayLike | None = None, max_iter: int = 200, tol: float = TOL,
         sample: int = SAMPLE, seed: int = 0, family_rounds: int = FAMILY_ROUNDS, full_iters: int = 0,
         n_subjects: int | None = None, phi: ArrayLike | None = None) -> KeyErrorFit:
    """The fit of :func:`fit_key_error` on ``full`` (the one EM, whatever
    form the answers came in)."""
    n, J, kmax = full.n, full.J, full.kmax
    key, subject = full.key, full.subject
    family = np.arange(J) if family is None else np.asarray(family, dtype=np.int64)
    n_subjects = n_subjects if n_subjects is not None else (int(subject.max()) + 1 if n else 1)
    n_families = int(family.max()) + 1 if len(family) else 1
    lam0 = np.zeros(n) if evidence_llr is None else np.asarray(evidence_llr, dtype=np.float64)
    N = full.cell_counts()
    x = agreement_share(np.bincount(full.cell, minlength=n * kmax).reshape(n, kmax) if N is None else N,
                        key, full.K)
    phi_i = np.asarray(PHI_PRIOR_MEAN if phi is None else phi, dtype=float)[phi_band(x)]
    lam, clamp_a, psi = belief_inputs(lam0, None if clamp is None else np.asarray(clamp, dtype=np.float64), phi_i)
    truth_a = None if truth is None else np.asarray(truth, dtype=np.int64)
    rng = np.random.default_rng(seed)
    if n > sample:
        pick = np.sort(rng.choice(n, size=sample, replace=False))
        fit_d = full.subset(pick)
        sel = pick
    else:
        fit_d, sel = full, np.arange(n)
    c_fit = None if clamp_a is None else clamp_a[sel]
    t_fit = None if truth_a is None else truth_a[sel]

    a = np.full(J, 0.8)
    w = np.ones(J)
    rho = np.zeros(n_families)
    eta = 0.1
    g = 0.05
    eps_s = np.full(n_subjects, g)
    it_total, converged = 0, False
    Q: np.ndarray = np.zeros((fit_d.n, 2, kmax))
    lam_fit = lam[sel]
    for rnd in range(max(family_rounds, 1)):
        if rnd > 0:
            w, rho = _family_weights(fit_d, Q, family, n_families)
        for _ in range(max_iter):
            prior_logit = (np.log(eps_s) - np.log1p(-eps_s))[fit_d.subject] + lam_fit   # logits per subject, then gathered
            Q, _, _ = _estep(fit_d, a, w, eta, prior_logit, c_fit, t_fit)
            a2, eta2, g2, eps2 = _mstep(fit_d, Q, n_subjects)
            delta = max(np.abs(a2 - a).max(), abs(eta2 - eta), np.abs(eps2 - eps_s).max())
            a, eta, g, eps_s = a2, eta2, g2, eps2
            it_total += 1
            if delta < tol:
                converged = True
                break
    if fit_d is not full:   # optional EM iterations over every item (default none)
        for _ in range(full_iters):
            prior_logit = (np.log(eps_s) - np.log1p(-eps_s))[full.subject] + lam
            Q, _, _ = _estep(full, a, w, eta, prior_logit, clamp_a, truth_a)
            a, eta, g, eps_s = _mstep(full, Q, n_subjects)
            it_total += 1
    fit = _final(full, a, w, rho, eta, g, eps_s, lam, clamp_a, truth_a, n_subjects, it_total, converged, psi=psi)
    fit.agreement, fit.phi = x, phi_i
    return fit


def _final(d: _Data, a: np.ndarray, w: np.ndarray, rho: np.ndarray, eta: float, g: float, eps_s: np.ndarray,
           lam: np.ndarray, clamp: np.ndarray | None, truth: np.ndarray | None, n_subjects: int, n_iter: int,
           converged: bool, counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
           psi: np.ndarray | None = None) -> KeyErrorFit:
    """The last E-step: every item's posterior under the fitted parameters
    (``lam`` and ``clamp`` as returned by :func:`belief_inputs`, ``psi`` the
    share of a rejected key that is a wrong key)."""
    base_logit = (np.log(eps_s) - np.log1p(-eps_s))[d.subject]
    Q, ll_n, ll_g = _estep(d, a, w, eta, base_logit + lam, clamp, truth, counts)
    Qt, ll_nt = Q.transpose(1, 2, 0), ll_n.T          # letter-major, contiguous
    p_guessing = Qt[1].sum(0)
    P = Qt[0]
    P += Qt[1]                                        # (Q is not used again)
    p_reject = np.clip(1.0 - np.where(d.has_key, np.take(P, d.key_flat), 0.0 * P[0]), 0.0, 1.0)
    score = p_reject * (np.ones(d.n) if psi is None else psi)
    # log LR of the answers: P(y | key wrong) / P(y | key right)
    lr_key = np.logaddexp(math.log1p(-eta) + np.where(d.has_key, np.take(ll_nt, d.key_flat), -np.inf),
                          math.log(eta) + ll_g)
    other = ll_nt                                     # (ll_n is not used again: overwritten in place)
    assert other.flags.c_contiguous                   # (the flat scatters below write through reshape)
    other.reshape(-1)[d.key_flat[d.has_key]] = -np.inf   # the key's letter out (a scatter: masks cost more)
    if d.any_off:
        other[d.off_t] = -np.inf                      # (ll_n is −∞ there already)
    other -= d.logk1
    lr_other = np.logaddexp(math.log1p(-eta) + _logsumexp(other), math.log(eta) + ll_g)
    llr = lr_other - lr_key
    alt_p = other                                     # its buffer, reused
    np.copyto(alt_p, P)
    alt_p.reshape(-1)[d.key_flat[d.has_key]] = -1.0
    if d.any_off:
        alt_p[d.off_t] = -1.0
    p_alt = alt_p.max(0)
    alt = np.zeros(d.n, dtype=np.int64)       # the first letter reaching the maximum (as argmax), by rows
    for t in range(d.kmax - 1, -1, -1):
        alt[alt_p[t] == p_alt] = t
    return KeyErrorFit(
        score=score, p_reject=p_reject, llr_models=llr, prior_logit=base_logit, p_guessing=p_guessing,
        alternative=np.where(p_alt > 0, alt, -1), p_alternative=np.maximum(p_alt, 0.0),
        posterior=np.ascontiguousarray(P.T),
        reliability=a, weight=w, family_rho=rho, subject_rate=eps_s,
        subject_n=np.bincount(d.subject, minlength=n_subjects).astype(float), global_rate=g, guess_rate=eta,
        n_iter=n_iter, converged=converged,
    )


def posterior_from_counts(fit: KeyErrorFit, S0: np.ndarray, C: np.ndarray, D: np.ndarray, n_options: ArrayLike,
                          key: ArrayLike, *, subject: ArrayLike | None = None, evidence_llr: ArrayLike | None = None,
                          clamp: ArrayLike | None = None, truth: ArrayLike | None = None,
                          phi: ArrayLike | None = None, agreement: ArrayLike | None = None) -> KeyErrorFit:
    """Every item's posterior under ``fit``'s parameters, from the weighted
    counts computed elsewhere (e.g. in DuckDB over all items after a fit on a
    sample): S0 per item, C and D per (item, letter) as in ``_counts``."""
    K = np.asarray(n_options, dtype=np.int64)
    n = len(K)
    kmax = C.shape[1]
    subj = np.zeros(n, dtype=np.int64) if subject is None else np.asarray(subject, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    d = _Data(empty, empty, empty, K, np.asarray(key, dtype=np.int64), subj, len(fit.reliability), kmax)
    lam0 = np.zeros(n) if evidence_llr is None else np.asarray(evidence_llr, dtype=np.float64)
    x = np.zeros(n) if agreement is None else np.asarray(agreement, dtype=float)
    phi_i = np.asarray(PHI_PRIOR_MEAN if phi is None else phi, dtype=float)[phi_band(x)]
    lam, clamp_b, psi = belief_inputs(lam0, None if clamp is None else np.asarray(clamp, dtype=np.float64), phi_i)
    out = _final(d, fit.reliability, fit.weight, fit.family_rho, fit.guess_rate, fit.global_rate, fit.subject_rate,
                 lam, clamp_b, None if truth is None else np.asarray(truth, dtype=np.int64), len(fit.subject_rate),
                 fit.n_iter, fit.converged, (S0, C, D), psi=psi)
    out.agreement, out.phi = x, phi_i
    return out


def belief_inputs(evidence_llr: np.ndarray, clamp: np.ndarray | None, phi: ArrayLike
                  ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Translate evidence about the key into the EM's terms (three states:
    key wrong W, shared misconception M, key confirmed R; the models' answers
    cannot tell W from M).  Evidence λ (key wrong : key right) multiplies
    W only, so the prior odds of "the models' shared answer is not the
    key" gain log(φ·e^λ + 1 − φ); a key settled right rules W out (log(1 − φ),
    the item stays free to be a misconception), a key settled wrong is
    clamped as before.  Returns (λ for the EM, the clamp for the EM, ψ =
    P(W | the models reject the key, evidence)) per item.

    >>> lam, c, psi = belief_inputs(np.array([0.0, 0.0]), np.array([np.nan, 0.0]), 0.25)
    >>> [round(float(x), 3) for x in lam], [round(float(x), 2) for x in psi]
    ([0.0, -0.288], [0.25, 0.0])
    """
    ph = np.clip(np.asarray(phi, dtype=float), 1e-6, 1 - 1e-6)
    lam = np.logaddexp(np.log(ph) + evidence_llr, np.log1p(-ph))
    psi = 1.0 / (1.0 + np.exp(-np.clip(np.log(ph) - np.log1p(-ph) + evidence_llr, -700, 700)))
    if clamp is None:
        return lam, None, psi
    right = clamp == 0
    lam = np.where(right, np.log1p(-ph), lam)
    psi = np.where(right, 0.0, np.where(clamp == 1, 1.0, psi))
    return lam, np.where(right, np.nan, clamp), psi


def combined_score(prior_logit: ArrayLike, llr_models: ArrayLike, evidence_llr: ArrayLike, phi: ArrayLike
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(score, p_reject) of items from the stored parts of their fit: the
    belief prior's logit (the subject's rate of rejected keys), the models'
    log LR and the other evidence λ (key wrong : key right), with the
    misconception split φ.  The same algebra as the fit's last E-step:
    p_reject = σ(prior + llr_models + log(φe^λ + 1 − φ)), score = p_reject·ψ.

    >>> s, b = combined_score([-3.0], [10.0], [0.0], 0.25)
    >>> round(float(b[0]), 3), round(float(s[0]), 3)
    (0.999, 0.25)
    """
    lam, _, psi = belief_inputs(np.asarray(evidence_llr, dtype=np.float64), None, phi)
    z = np.asarray(prior_logit, dtype=np.float64) + np.asarray(llr_models, dtype=np.float64) + lam
    b = 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))
    return b * psi, b


def fit_misconception_prior_bands(p_reject: ArrayLike, wrong: ArrayLike, agreement: ArrayLike) -> np.ndarray:
    """:func:`fit_misconception_prior` in each band of :data:`PHI_BANDS`
    (clipped to [0.02, 0.98]: a band without a labelled wrong key still
    keeps a small chance), made non-decreasing in the agreement.

    >>> fit_misconception_prior_bands([1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 1, 0], [0.5, 0.5, 0.8, 0.8, 0.95, 0.95]).tolist()
    [0.26, 0.26, 0.5]
    """
    band = phi_band(agreement)
    b = np.asarray(p_reject, dtype=float)
    y = np.asarray(wrong, dtype=bool)
    est = [min(max(fit_misconception_prior(b[band == k], y[band == k]), 0.02), 0.98) if (band == k).any()
           else PHI_PRIOR_MEAN[k] for k in range(len(PHI_BANDS) + 1)]
    # non-decreasing in the agreement (pool adjacent violators, weighted by
    # the rejected keys in each band): more models on one other answer never
    # makes a wrong key less likely, and the order of the queue stays that of p_reject × agreement
    blocks = [[est[k], max(float(b[band == k].sum()), 1e-9), 1] for k in range(len(est))]
    i = 0
    while i < len(blocks) - 1:
        if blocks[i][0] > blocks[i + 1][0]:
            v0, w0, n0 = blocks[i]
            v1, w1, n1 = blocks.pop(i + 1)
            blocks[i] = [(v0 * w0 + v1 * w1) / (w0 + w1), w0 + w1, n0 + n1]
            i = max(i - 1, 0)
        else:
            i += 1
    return np.array([v for v, _, n in blocks for _ in range(int(n))])


def fit_misconception_strength(p_reject: ArrayLike, wrong: ArrayLike, group: ArrayLike) -> float:
    """Empirical-Bayes strength of the misconception prior: how many rejected
    keys of a new benchmark (or subject) a φ fitted elsewhere is worth, from
    how much φ varies between groups (subjects) beyond binomial noise.

    Method of moments for the beta-binomial (Kleinman 1973, Proportions with
    extraneous variance: single and independent samples, JASA 68): per group g, n_g = Σ p_reject (the
    rejected keys), k_g the labelled wrong keys, φ̂_g = k_g / n_g; pooled
    m = Σ k / Σ n; S = Σ n_g (φ̂_g − m)²; since E[S] = m(1 − m)(G − 1) +
    τ²(N − Σ n_g² / N), the between-group variance is τ² = (S − m(1 − m)(G −
    1)) / (N − Σ n_g² / N) and a Beta prior with that spread has strength
    m(1 − m) / τ² − 1.  ``inf`` when the groups vary no more than noise.

    >>> rng = np.random.default_rng(3)
    >>> g = np.repeat(np.arange(40), 50)
    >>> y = rng.random(2000) < rng.beta(6, 14, 40)[g]       # φ ~ Beta(6, 14): strength 20
    >>> 8 < fit_misconception_strength(np.ones(2000), y, g) < 50
    True
    """
    b = np.clip(np.nan_to_num(np.asarray(p_reject, dtype=float)), 0.0, 1.0)
    y = np.asarray(wrong, dtype=bool)
    _, gi = np.unique(np.asarray(group), return_inverse=True)
    n = np.bincount(gi, weights=b)
    k = np.bincount(gi, weights=y.astype(float))
    keep = n > 0
    n, k = n[keep], k[keep]
    N = float(n.sum())
    if len(n) < 2 or N <= 0:
        return math.inf
    m = float(k.sum()) / N
    S = float((n * (k / n - m) ** 2).sum())
    tau2 = (S - m * (1 - m) * (len(n) - 1)) / (N - float((n ** 2).sum()) / N)
    return m * (1 - m) / tau2 - 1.0 if tau2 > 0 else math.inf


def fit_misconception_prior(p_reject: ArrayLike, wrong: ArrayLike) -> float:
    """Maximum-likelihood φ = P(key wrong | the models reject the key) from
    expert-labelled items: label_i ~ Bernoulli(φ·p_reject_i) (p_reject from
    a fit without the labels).  How :data:`PHI_PRIOR_MEAN` was obtained on
    MMLU-Redux (tests/bench/bench_calibration.py, with leave-one-subject-out
    refits to show how much it moves).

    >>> rng = np.random.default_rng(1)
    >>> b = np.r_[np.ones(2000), np.zeros(2000)]
    >>> y = rng.random(4000) < 0.3 * b
    >>> bool(abs(fit_misconception_prior(b, y) - y.sum() / 2000) < 1e-3)   # the share of wrong keys among rejected ones
    True
    """
    b = np.clip(np.asarray(p_reject, dtype=float), 0.0, 1.0)
    y = np.asarray(wrong, dtype=bool)
    ok = ~np.isnan(b)
    b, y = b[ok], y[ok]
    grid = np.linspace(0.001, 0.999, 999)
    pb = np.clip(grid[:, None] * b[None, :], 1e-12, 1 - 1e-12)
    ll = np.where(y[None, :], np.log(pb), np.log1p(-pb)).sum(1)
    return float(grid[int(np.argmax(ll))])


def calibration_table(predicted: ArrayLike, observed: ArrayLike, *,
                      bins: tuple[float, ...] = (0.0, 0.02, 0.1, 0.3, 0.6, 0.9, 1.0)) -> pd.DataFrame:
    """Predicted vs observed rate of wrong keys per score band.

    Columns: band ("0.10–0.30"), n, predicted (mean score), observed (share
    of wrong keys), low / high (Wilson 95% interval of the observed share),
    note ("too few items" when n < 10: the observed share means little).

    >>> t = calibration_table([0.01, 0.01, 0.95, 0.97], [False, False, True, True])
    >>> t[["band", "n", "observed"]].values.tolist()
    [['0.00–0.02', 2, 0.0], ['0.90–1.00', 2, 1.0]]
    """
    from audit.analyze._stats import wilson_interval

    p = np.asarray(predicted, dtype=float)
    o = np.asarray(observed, dtype=bool)
    ok = ~np.isnan(p)
    p, o = p[ok], o[ok]
    edges = np.asarray(bins, dtype=float)
    band = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    rows = []
    for b in np.unique(band):
        m = band == b
        k, n = int(o[m].sum()), int(m.sum())
        lo, hi = wilson_interval(k, n)
        rows.append((f"{edges[b]:.2f}–{edges[b + 1]:.2f}", n, float(p[m].mean()), k / n, lo, hi,
                     "too few items" if n < 10 else ""))
    return pd.DataFrame(rows, columns=["band", "n", "predicted", "observed", "low", "high", "note"])


# ----------------------------------------------------------------- storage

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
    ``counts`` computes the final E-step's weighted counts over all items."""

    items: pd.DataFrame
    answers: SampledCells
    sample: np.ndarray | None = None
    counts: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | None = None
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
    registered as ``_ms`` (as during :func:`audit.analyze.analyze`); with more
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

    return ScoreInputs(items, answers, pick, counts)


def _alternative_labels(items: pd.DataFrame, idx: np.ndarray, alternative: np.ndarray) -> np.ndarray:
    """The label of each item's alternative (option index; −1: None) for
    the items ``idx``.  Items whose labels are A, B, C, … (``standard_labels``,
    when the items have that column) take the letter at that place; the
    others read their label list (flattened once: concatenating 100,000
    small arrays costs more than the rest of the scoring's bookkeeping)."""
    pos = np.maximum(alternative, 0)
    std = (items["standard_labels"].astype("boolean").fillna(False).to_numpy(bool)[idx]
           if "standard_labels" in items else np.zeros(len(idx), dtype=bool))
    alt = np.asarray(LATIN_LABELS, dtype=object)[np.minimum(pos, len(LATIN_LABELS) - 1)]
    other = np.flatnonzero(~std)
    if len(other):
        labels = items["labels"].to_numpy()[idx[other]]
        lens = items["n_options"].to_numpy()[idx[other]].astype(np.int64)
        flat = np.concatenate(labels)
        alt[other] = flat[np.r_[0, np.cumsum(lens)[:-1]] + pos[other]]
    alt[alternative < 0] = None
    return alt


def analysis_llr(items: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(parallel, lint) parts of λ_i from the evidence known at analysis
    time: the parallel source's key (prior likelihood ratios) and duplicate
    options."""
    par = np.where(items["has_parallel"].to_numpy(bool),
                   np.where(items["par_mismatch"].to_numpy(bool), LLR_PARALLEL_MISMATCH, LLR_PARALLEL_MATCH), 0.0)
    lint = np.where(items["dup_options"].to_numpy(bool), LLR_DUPLICATE_OPTIONS, 0.0)
    return par, lint


def score_inputs(inp: ScoreInputs, ms: ModelSet, *, llr_parallel: ArrayLike | None = None,
                 clamp: ArrayLike | None = None, truth: ArrayLike | None = None, phi: ArrayLike | None = None,
                 judges: JudgeVerdicts | None = None) -> tuple[pd.DataFrame, KeyErrorFit | None, dict]:
    """Fit the model on ``inp`` and return (per-item score rows, the fit,
    parameter rows).  ``llr_parallel`` replaces the prior parallel ratios
    (array over items); ``clamp`` / ``truth``: settled verdicts (arrays
    over items, see :func:`fit_key_error`); ``phi``: the misconception split
    per band (default :data:`PHI_PRIOR_MEAN`); ``judges``: the judge runs'
    verdicts (:func:`load_judge_verdicts`), weighted by :func:`judge_evidence`."""
    phi = np.asarray(PHI_PRIOR_MEAN if phi is None else phi, dtype=float)
    it = inp.items
    n = len(it)
    multi = it["multi"].to_numpy(bool)
    key = it["key_idx"].to_numpy(np.int64)
    fixed = np.full(n, None, dtype=object)
    fixed[key == -1] = "key_not_in_options"
    fixed[key == -2] = "no_key"
    fixed[multi] = "multi_answer"
    # scored: no fixed reason (a key among the options, one answer) and at least two options
    scored = (key >= 0) & ~multi & (it["n_options"].to_numpy() >= 2)
    par, lint = analysis_llr(it)
    if llr_parallel is not None:
        par = np.asarray(llr_parallel, dtype=np.float64)
    subj_codes, subj_names = pd.factorize(it["subject"])
    fams = sorted(set(ms.families.values()))
    fam_id = np.array([fams.index(ms.families[m]) for m in ms.models], dtype=np.int64)

    # the output's columns as arrays, filled below, one DataFrame at the end
    # (assigning with .loc column by column costs more than the fit's steps)
    col: dict[str, np.ndarray] = {k: np.full(n, np.nan) for k in (
        "score", "p_reject", "agreement_share", "prior_logit", "llr_models", "p_guessing", "p_alternative")}
    col["llr_judges"] = np.zeros(n)
    col["n_judges"] = np.zeros(n, dtype=np.int64)
    col["alternative"] = np.full(n, None, dtype=object)
    col["score"][~multi & ~scored] = 1.0
    col["p_reject"][~multi & ~scored] = 1.0
    fit = None
    params: dict = {}
    idx = np.nonzero(scored)[0]
    sc = inp.answers
    if len(idx) and len(sc.item) and sc.bytes.any():
        c_all = None if clamp is None else np.asarray(clamp, dtype=np.float64)
        t_all = None if truth is None else np.asarray(truth, dtype=np.int64)
        lam = par + lint
        n_opt = it["n_options"].to_numpy()
        # fit on the items whose answers were loaded (all, or the sample)
        fidx = idx if inp.sample is None else idx[np.isin(idx, inp.sample)]
        remap = np.full(n, -1, dtype=np.int64)
        remap[fidx] = np.arange(len(fidx))
        keep = remap[sc.item] >= 0             # the fit's cells, read as they are (no long form)
        fit = fit_key_error_cells(remap[sc.item[keep]], sc.y[keep], sc.bytes[:, keep], n_opt[fidx], key[fidx],
                                  subject=subj_codes[fidx], family=fam_id, n_models=len(ms.models),
                                  n_subjects=len(subj_names), evidence_llr=lam[fidx],
                                  clamp=None if c_all is None else c_all[fidx],
                                  truth=None if t_all is None else t_all[fidx], phi=phi)
        if inp.sample is not None and inp.counts is not None:   # every item's posterior from DuckDB counts
            S0, C, D, N = inp.counts(fit.reliability, fit.weight)
            fit = posterior_from_counts(fit, S0[idx], C[idx], D[idx], n_opt[idx], key[idx], subject=subj_codes[idx],
                                        evidence_llr=lam[idx], clamp=None if c_all is None else c_all[idx],
                                        truth=None if t_all is None else t_all[idx], phi=phi,
                                        agreement=agreement_share(N[idx], key[idx], n_opt[idx]))
        alt = _alternative_labels(it, idx, fit.alternative)
        judge_rows: list = []
        if judges is not None and judges.v.shape[1] and len(idx):
            ev = judge_evidence(judges.v[idx], fit.score, judges.family,
                                truth=None if c_all is None else c_all[idx])
            free = np.ones(len(idx), bool) if c_all is None else np.isnan(c_all[idx])   # settled stay clamped
            delta = judge_offset(fit.prior_logit, fit.llr_models, lam[idx], ev.llr, fit.phi,
                                 free & (ev.n_runs > 0), fit.score)
            ev.llr = np.where(ev.n_runs > 0, ev.llr + delta, 0.0)
            new_s, new_b = combined_score(fit.prior_logit, fit.llr_models, lam[idx] + ev.llr, fit.phi)
            fit.score = np.where(free, new_s, fit.score)
            fit.p_reject = np.where(free, new_b, fit.p_reject)
            col["llr_judges"][idx] = ev.llr
            col["n_judges"][idx] = ev.n_runs
            for r, name in enumerate(judges.runs):
                for prm, val in (("sensitivity", ev.sensitivity[r]), ("specificity", ev.specificity[r]),
                                 ("weight", ev.weight[r]), ("family_correlation", ev.rho[r]),
                                 ("llr_says_wrong", ev.llr_wrong[r]), ("llr_says_right", ev.llr_right[r])):
                    judge_rows.append(("judge_run", name, prm, float(val), float(ev.n[r])))
            judge_rows.append(("global", "all", "judge_between_family_correlation", float(ev.rho_between),
                               float(len(idx))))
            judge_rows.append(("global", "all", "judge_offset", float(delta), float((ev.n_runs > 0).sum())))
        col["score"][idx] = fit.score
        col["p_reject"][idx] = fit.p_reject
        col["agreement_share"][idx] = fit.agreement
        col["prior_logit"][idx] = fit.prior_logit
        col["llr_models"][idx] = fit.llr_models
        col["p_guessing"][idx] = fit.p_guessing
        col["alternative"][idx] = alt
        col["p_alternative"][idx] = fit.p_alternative
        n_per_model = sc.per_model(keep).astype(float)      # items in the fit
        rows = []
        for jj, m in enumerate(ms.models):
            rows.append(("model", m, "reliability", float(fit.reliability[jj]), n_per_model[jj]))
            rows.append(("model", m, "weight", float(fit.weight[jj]), n_per_model[jj]))
        for fi, f in enumerate(fams):
            rows.append(("family", f, "error_correlation", float(fit.family_rho[fi]), float((fam_id == fi).sum())))
        for si, s in enumerate(subj_names):
            rows.append(("subject", s, "wrong_key_rate", float(fit.subject_rate[si]), float(fit.subject_n[si])))
        rows += [("global", "all", "wrong_key_rate", fit.global_rate, float(len(idx))),
                 *[("phi_band", str(k), "wrong_given_reject", float(v), float((phi_band(fit.agreement) == k).sum()))
                   for k, v in enumerate(np.asarray(phi, dtype=float))],
                 ("global", "all", "guessing_rate", fit.guess_rate, float(len(idx))),
                 ("global", "all", "iterations", float(fit.n_iter), float(len(idx))),
                 ("global", "all", "converged", float(fit.converged), float(len(idx)))] + judge_rows
        params = {"rows": rows}
    out = pd.DataFrame({
        "question_id": it["question_id"], "score": col["score"], "p_reject": col["p_reject"],
        "agreement_share": col["agreement_share"], "prior_logit": col["prior_logit"], "llr_models": col["llr_models"],
        "llr_parallel": par, "llr_lint": lint, "llr_judges": col["llr_judges"], "n_judges": col["n_judges"],
        "p_guessing": col["p_guessing"], "alternative": col["alternative"], "p_alternative": col["p_alternative"],
        "fixed_reason": fixed,
    })
    return out, fit, params


_SCORE_COLS = ["question_id", "score", "p_reject", "agreement_share", "prior_logit", "llr_models", "llr_parallel", "llr_lint",
               "llr_judges", "n_judges", "p_guessing",
               "alternative", "p_alternative", "fixed_reason"]


def write_scores(con: Any, run_id: int, benchmark: str, out: pd.DataFrame, params: dict) -> None:
    """Replace the stored scores and parameters of ``run_id`` (caller's transaction)."""
    con.execute("DELETE FROM key_error_scores WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM key_error_params WHERE run_id = ?", [run_id])
    tbl = pa.Table.from_pandas(out[_SCORE_COLS].astype({"alternative": object, "fixed_reason": object}),
                               preserve_index=False)
    con.register("_kes", tbl)
    try:
        con.execute(
            f"INSERT INTO key_error_scores (run_id, benchmark, {', '.join(_SCORE_COLS)}) "
            f"SELECT $run_id, $benchmark, {', '.join(_SCORE_COLS)} FROM _kes",
            {"run_id": run_id, "benchmark": benchmark})
    finally:
        unregister(con, "_kes")
    rows = params.get("rows", [])
    if rows:
        df = pd.DataFrame(rows, columns=["kind", "name", "param", "value", "n"])
        con.register("_kep", pa.Table.from_pandas(df, preserve_index=False))
        try:
            con.execute("INSERT INTO key_error_params SELECT $run_id, $benchmark, kind, name, param, value, n FROM _kep",
                        {"run_id": run_id, "benchmark": benchmark})
        finally:
            unregister(con, "_kep")


def score_run(con: Any, run_id: int, benchmark: str, ms: ModelSet, *, cells: Cells | None = None,
              q_registered: bool = False, items: pd.DataFrame | None = None,
              answers: SampledCells | None = None, judges: JudgeVerdicts | None = None,
              before_write: Callable[[], object] | None = None) -> None:
    """Fit the score for an audit run being written (``_ms`` registered, inside
    the caller's transaction) and store it; ``cells``, ``q_registered``,
    ``items`` and ``answers`` as in :func:`load_inputs`; ``judges``:
    :func:`load_judge_verdicts`' result when the caller has it.  With
    ``items`` and ``answers`` given, the fit does not use the connection,
    and ``before_write`` is called before the scores are written (analyze
    waits there for its second thread, which uses the connection meanwhile)."""
    inp = load_inputs(con, benchmark, run_id, cells=cells, q_registered=q_registered, items=items, answers=answers)
    if judges is None:
        judges = load_judge_verdicts(con, benchmark, inp.items["question_id"])
    out, _, params = score_inputs(inp, ms, judges=judges)
    if before_write is not None:
        before_write()
    write_scores(con, run_id, benchmark, out, params)


def key_error_scores(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Stored scores of the latest audit run: question_id, score,
    prior_logit, llr_models, llr_parallel, llr_lint, p_guessing,
    alternative, p_alternative, fixed_reason — in import order."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        return con.execute(
            f"SELECT {', '.join('s.' + c for c in _SCORE_COLS)} FROM key_error_scores s "
            "JOIN questions q ON q.benchmark = s.benchmark AND q.question_id = s.question_id "
            "WHERE s.run_id = ? ORDER BY q.seq", [run["run_id"]]).df()


def key_error_params(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Fitted parameters of the latest audit run: kind, name, param, value, n."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        return con.execute("SELECT kind, name, param, value, n FROM key_error_params WHERE run_id = ? "
                           "ORDER BY kind, name, param", [run["run_id"]]).df()



# ---------------------------------------------------------------- judge runs' evidence (issue 25)

#: Beta priors of a judge run's sensitivity and specificity for "key wrong":
#: uniform (one pseudo-item each way), so a run's figures are its own data's.
JUDGE_SENS_PRIOR = (1.0, 1.0)
JUDGE_SPEC_PRIOR = (1.0, 1.0)

_JUDGE_SQL = """
SELECT v.question_id, v.judge, v.judge || ' ' || v.prompt_version AS run, NOT v.answer_key_correct AS says_wrong
FROM judge_verdicts v
WHERE v.benchmark = $benchmark AND v.parse_ok AND v.answer_key_correct IS NOT NULL
ORDER BY run, v.question_id"""


@dataclass
class JudgeVerdicts:
    """The judge runs' verdicts on a benchmark's items: ``v`` is items × runs
    (1 = says the key is wrong, 0 = says it is right, NaN = no verdict);
    ``runs`` the runs' names (``'<judge> <prompt version>'``); ``family`` the
    run's family index (runs of one judge model share a family)."""

    v: np.ndarray
    runs: list[str]
    family: np.ndarray


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


@dataclass
class JudgeEvidence:
    """Result of :func:`judge_evidence` (arrays over runs unless said)."""

    llr: np.ndarray          # per item: Σ_r w_r · (LR of run r's verdict), key wrong : key right
    n_runs: np.ndarray       # per item: runs with a verdict
    sensitivity: np.ndarray  # P(says wrong | key wrong)
    specificity: np.ndarray  # P(says right | key right)
    llr_wrong: np.ndarray    # log LR of "key wrong" (0 for a run no better than chance)
    llr_right: np.ndarray    # log LR of "key right"
    weight: np.ndarray       # w_r: the two-level Kish discount
    rho: np.ndarray          # the run's family's mean error correlation ρ_f
    rho_between: float       # mean error correlation of runs of different families
    n: np.ndarray            # items the run judged


def _pairwise_corr(E: np.ndarray) -> np.ndarray:
    """Pearson correlation of every pair of columns of ``E`` (NaN = missing),
    each pair on the rows both have (pairwise-complete, as pandas'
    ``DataFrame.corr``), by matrix products; NaN where a pair shares fewer
    than 10 rows or a column is constant there.

    >>> E = np.array([[1.0, 2.0, np.nan], [2.0, 4.1, 1.0], [3.0, 5.9, 0.0]] * 4)
    >>> bool(np.allclose(_pairwise_corr(E), pd.DataFrame(E).corr(min_periods=10).to_numpy(), equal_nan=True))
    True
    """
    M = (~np.isnan(E)).astype(np.float64)
    X = np.where(M > 0, E, 0.0)
    n = M.T @ M
    sx = X.T @ M                  # sx[a, b] = Σ x_a over rows where both a and b are present
    sxx = (X * X).T @ M
    sxy = X.T @ X
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = n * sxy - sx * sx.T
        var = (n * sxx - sx * sx) * (n * sxx - sx * sx).T
        C = cov / np.sqrt(var)
    C[(n < 10) | ~(var > 0)] = np.nan
    return C


def _mean_corr(C: np.ndarray, pairs: np.ndarray) -> float:
    """Mean of the correlations ``C`` over the pairs selected by the boolean
    matrix ``pairs`` (upper triangle), ignoring NaN; 0 when there are none."""
    vals = C[np.triu(pairs, 1)]
    vals = vals[~np.isnan(vals)]
    return float(vals.mean()) if len(vals) else 0.0


def judge_evidence(v: np.ndarray, q: ArrayLike, family: ArrayLike, *, truth: ArrayLike | None = None
                   ) -> JudgeEvidence:
    """Each judge run's reliability and weight, estimated from the data, and
    the evidence λ they add to each item.

    ``v``: items × runs verdicts (1 says the key is wrong, 0 right, NaN
    none); ``q``: P(key wrong) of each item from the models' answers alone
    (the fit's posterior, *without* the judges: using a posterior that
    includes them would let the runs confirm themselves; Dawid & Skene's
    EM run to convergence drifted towards the judges here, doubling the sum
    of the scores); ``truth``: settled expert verdicts (1 wrong, 0 right, NaN
    unknown), which replace q where present.

    * Sensitivity and specificity of run r for "key wrong" are the
      posterior-weighted rates (the M-step of Dawid & Skene 1979 with the
      item states' posterior q as soft labels), with uniform Beta(1, 1)
      priors: sens_r = (Σ_i q_i v_ir + 1) / (Σ_i q_i + 2), likewise spec_r.
    * A run no better than chance (Youden's J = sens + spec − 1 ≤ 0) adds
      nothing: both its log LRs are 0.
    * Runs are not independent.  Their errors (v_ir − E[v_ir | q_i]) are
      correlated within a family (one judge model, several prompts or
      corpora: mean pairwise correlation ρ_f) and, less, across families
      (ρ_b).  A two-level design effect (Kish 1965) discounts them: within
      a family of m_f runs, w_r = 1 / (1 + (m_f − 1)·ρ_f); the families'
      effective total n_eff = Σ w_r is then discounted as one cluster,
      w_r ← w_r / (1 + (n_eff − 1)·ρ_b).  Perfectly correlated runs count as
      one; independent ones fully.
    * λ_i = Σ_r w_r · log(P(v_ir | wrong) / P(v_ir | right)), added to the
      other evidence under the score's naive-Bayes assumption (judges
      independent of the models' answers given the key's state).

    No parameter is fitted on expert labels unless ``truth`` is given.

    >>> v = np.array([[1, 1, 0], [0, 0, 0], [1, 0, np.nan], [0, 0, 1]] * 25, dtype=float)
    >>> q = np.array([0.9, 0.01, 0.5, 0.02] * 25)
    >>> ev = judge_evidence(v, q, [0, 0, 1])
    >>> bool(ev.llr[0] > 0 > ev.llr[1]), ev.weight.round(2).tolist()[2] <= 1.0
    (True, True)
    >>> bool(ev.llr_wrong[2] == 0.0)     # run 2 says "wrong" on right keys only: no better than chance
    True
    """
    v = np.asarray(v, dtype=np.float64)
    q = np.clip(np.asarray(q, dtype=np.float64), 0.0, 1.0)
    if truth is not None:
        t = np.asarray(truth, dtype=np.float64)
        q = np.where(np.isnan(t), q, t)
    q = np.nan_to_num(q)
    fam = np.asarray(family, dtype=np.int64)
    M = ~np.isnan(v)
    V = np.where(M, v, 0.0)
    Qw, Qr = q[:, None] * M, (1.0 - q)[:, None] * M
    sens = ((Qw * V).sum(0) + JUDGE_SENS_PRIOR[0]) / (Qw.sum(0) + sum(JUDGE_SENS_PRIOR))
    spec = ((Qr * (1.0 - V)).sum(0) + JUDGE_SPEC_PRIOR[0]) / (Qr.sum(0) + sum(JUDGE_SPEC_PRIOR))
    useful = sens + spec - 1.0 > 0.0
    lw = np.where(useful, np.log(sens) - np.log1p(-spec), 0.0)
    lr = np.where(useful, np.log1p(-sens) - np.log(spec), 0.0)
    E = np.where(M, V - (q[:, None] * sens[None, :] + (1.0 - q)[:, None] * (1.0 - spec)[None, :]), np.nan)
    R = v.shape[1]
    same = fam[:, None] == fam[None, :]
    C = _pairwise_corr(E)
    rho = np.zeros(R)
    w = np.ones(R)
    for f in np.unique(fam):          # a loop over judge families (a handful), not items
        members = fam == f
        m = int(members.sum())
        if m > 1:
            pf = max(_mean_corr(C[np.ix_(members, members)], np.ones((m, m), bool)), 0.0)
            rho[members] = pf
            w[members] = 1.0 / (1.0 + (m - 1) * pf)
    rho_b = max(_mean_corr(C, ~same), 0.0) if len(np.unique(fam)) > 1 else 0.0
    n_eff = float(w[useful].sum())
    if n_eff > 1.0:
        w /= 1.0 + (n_eff - 1.0) * rho_b
    llr = (np.where(M, np.where(V > 0, lw[None, :], lr[None, :]), 0.0) * w[None, :]).sum(1)
    return JudgeEvidence(llr=llr, n_runs=M.sum(1), sensitivity=sens, specificity=spec, llr_wrong=lw, llr_right=lr,
                         weight=w, rho=rho, rho_between=rho_b, n=M.sum(0))


def judge_offset(prior_logit: ArrayLike, llr_models: ArrayLike, evidence_llr: ArrayLike, llr_judges: ArrayLike,
                 phi: ArrayLike, mask: ArrayLike, q: ArrayLike) -> float:
    """The log-odds offset δ added to the judges' λ of the judged items so
    that their expected number of wrong keys is what the models' posterior
    says: Σ_i score_i(λ_i + δ) = Σ_i q_i over ``mask``.

    Bayesian updating preserves the mean: before a verdict is seen, the
    expected posterior equals the prior (the law of total expectation), so
    correct likelihood ratios move mass between items without adding any.
    Discounted ratios (LR^w, :func:`judge_evidence`) are not exact ratios
    and, on MMLU-Redux, added about a quarter to the judged items' expected
    wrong keys; δ restores the balance.  Fitted on the models' posterior, not
    on labels; found by bisection on [−10, 10] (the sum is increasing in δ).

    >>> round(judge_offset([-3.0, -3.0], [0.0, 0.0], [0.0, 0.0], [2.0, -1.0], 1.0, [True, True], [0.05, 0.05]), 3)
    -1.256
    """
    m = np.asarray(mask, dtype=bool)
    if not m.any():
        return 0.0
    pl, lm = np.asarray(prior_logit, dtype=float)[m], np.asarray(llr_models, dtype=float)[m]
    ev, lj = np.asarray(evidence_llr, dtype=float)[m], np.asarray(llr_judges, dtype=float)[m]
    ph = np.broadcast_to(np.asarray(phi, dtype=float), m.shape)[m]
    target = float(np.asarray(q, dtype=float)[m].sum())
    lo, hi = -10.0, 10.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if float(combined_score(pl, lm, ev + lj + mid, ph)[0].sum()) > target:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2

__all__ = ["fit_key_error", "fit_key_error_cells", "SampledCells", "KeyErrorFit", "key_error_scores", "key_error_params", "score_run", "load_inputs",
           "score_inputs", "write_scores", "ScoreInputs", "calibration_table", "posterior_from_counts",
           "fit_misconception_prior", "fit_misconception_prior_bands", "fit_misconception_strength", "combined_score", "belief_inputs", "PHI_PRIOR",
           "PHI_PRIOR_MEAN", "PHI_BANDS", "phi_band", "agreement_share", "judge_evidence", "JudgeEvidence",
           "JudgeVerdicts", "load_judge_verdicts", "judge_offset"]
