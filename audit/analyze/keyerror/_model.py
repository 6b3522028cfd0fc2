"""The latent-class model behind the key-error score, on arrays: the
models' answers in, every item's posterior and the fitted parameters out.
No SQL here (the inputs are read by :mod:`audit.analyze.keyerror._load`).

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

Other evidence (a parallel source's key, lint, judges) is about a wrong
key, not about what the models hold, so it does not enter the EM: the
split adds it as a log likelihood ratio λ_i (conditionally independent of
the answers given whether the key is wrong: naive Bayes).  A key settled
wrong clamps T_i (semi-supervised EM: it then informs the reliabilities and
the subject's rate directly); a key settled right leaves T_i free, since the
models may still share a misconception on it.

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

The posterior that the models reject the key, p_reject, comes from the
answers alone; :mod:`audit.analyze.keyerror._split` splits it into a wrong
key and a shared misconception with a prior that depends on the model set
(:mod:`audit.analyze.keyerror._modelset` summarises the set), and adds the
other evidence there: the score is P(key wrong | answers, evidence).

Examples:
    Six models of reliability 0.8 answer 400 four-option items whose first
    20 keys were replaced by another option:

    >>> rng = np.random.default_rng(0)
    >>> n, J = 400, 6
    >>> truth = rng.integers(0, 4, n); key = truth.copy(); key[:20] = (truth[:20] + 1) % 4
    >>> Y = np.where(rng.random((n, J)) < 0.8, truth[:, None], rng.integers(0, 4, (n, J)))
    >>> i, j = np.nonzero(np.ones((n, J), bool))       # the long form: one entry per answer
    >>> fit = fit_key_error(i, j, Y[i, j], np.full(n, 4), key)
    >>> round(float(fit.p_reject[:20].mean()), 2), round(float(fit.p_reject[20:].mean()), 3)
    (0.83, 0.0)
    >>> fit.reliability.round(2).tolist()     # about 0.8 + 0.2·¼ (a random answer can be right)
    [0.86, 0.82, 0.85, 0.89, 0.84, 0.87]

References: A. P. Dawid & A. M. Skene (1979), Maximum likelihood estimation
of observer error-rates using the EM algorithm, JRSS C 28(1); V. C. Raykar
et al. (2010), Learning from crowds, JMLR 11; Y. Zhang, X. Chen, D. Zhou &
M. I. Jordan (2014), Spectral methods meet EM, NeurIPS; L. Kish (1965),
Survey Sampling; C. Varin, N. Reid & D. Firth (2011), An overview of
composite likelihood methods, Statistica Sinica 21; A. P. Dempster, N. M.
Laird & D. B. Rubin (1977), Maximum likelihood from incomplete data via the
EM algorithm, JRSS B 39(1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from audit.analyze._cells import _BITS8 as _BYTE_BITS
from audit.analyze._cells import _POP8, byte_table_sums
from audit.analyze.keyerror import _split
from audit.analyze.keyerror._modelset import extrapolation, set_features
from audit.analyze.keyerror._prior import agreement_share
from audit.analyze.keyerror._split import SplitPrior, evidence_share, scores, split, top_model_holds

# Priors (see the module docstring).
A_PRIOR = (8.0, 2.0)          # Beta prior of a model's reliability
GUESS_PRIOR = (1.0, 9.0)      # Beta prior of the guessing rate η
RATE_PRIOR = (1.0, 49.0)      # Beta prior of the global wrong-key rate ε
SUBJECT_STRENGTH = 100.0      # pseudo-items of the global rate in a subject's rate
# The fit's defaults (see fit_key_error's arguments).
FAMILY_ROUNDS = 2             # EM rounds; the family weights are re-estimated between them
SAMPLE = 10_000               # items the parameters are fitted on (a seeded sample beyond that)
TOL = 1e-5                    # EM stops when no parameter moves by more than this


@dataclass
class KeyErrorFit:
    """Result of :func:`fit_key_error`: per item (arrays over the items),
    then the fitted parameters (arrays over the models, families or
    subjects, by id).

    Attributes:
        score: P(key wrong | answers, evidence), the split of p_reject
            (:func:`~audit.analyze.keyerror._split.split`).
        p_reject: P(the answer the models hold to be true is not the key |
            answers): a wrong key or a shared misconception.
        llr_models: log P(answers | B ≠ key) / P(answers | B = key), the
            models' evidence (key wrong : key right).
        prior_logit: logit(ε_s(i)), the item's subject rate of rejected keys.
        p_guessing: P(G_i = 1 | answers): the models were guessing.
        alternative: the most probable non-key option (index), −1 if none.
        p_alternative: its posterior probability P(T_i = alternative).
        posterior: n × Kmax, P(T_i = t | answers) (0 past the item's options).
        reliability: a_j, P(model j gives the true answer | not guessing).
        weight: w_j, the model's Kish weight in its family.
        family_rho: ρ_f, the mean error correlation within family f.
        subject_rate: ε_s, the subject's rate of rejected keys.
        subject_n: items per subject.
        global_rate: ε, the benchmark's rate (the subjects' shrinkage target).
        guess_rate: η, P(G_i = 1).
        n_iter: EM iterations run (every round).
        converged: the last round stopped before ``max_iter``.
        extra: room for callers' diagnostics.
        agreement: x_i, the share of the item's answers on its most chosen
            non-key option.
        evidence_share: v_i, the models' log LR as a share of the most the
            set can give (:func:`~audit.analyze.keyerror._split.evidence_share`).
        top_holds: t_i, the most accurate model gives the key (1), another
            answer (0), or its share of keys when it gave none.
        alloc_wrong, alloc_right: h1_i, h0_i, the allocation (mean 1 each).
        split: the level's and s's Beta parameters and the level offset:
            pi_a, pi_b, s_a, s_b, alpha, accuracy (κ̄).
        features: the model set's summary (:func:`~audit.analyze.keyerror._modelset.set_features`).
        extrapolation: the reasons the set lies outside the training domain
            (:func:`~audit.analyze.keyerror._modelset.extrapolation`), empty inside.
    """

    score: np.ndarray
    p_reject: np.ndarray
    llr_models: np.ndarray
    prior_logit: np.ndarray
    p_guessing: np.ndarray
    alternative: np.ndarray
    p_alternative: np.ndarray
    posterior: np.ndarray
    reliability: np.ndarray
    weight: np.ndarray
    family_rho: np.ndarray
    subject_rate: np.ndarray
    subject_n: np.ndarray
    global_rate: float
    guess_rate: float
    n_iter: int
    converged: bool
    extra: dict = field(default_factory=dict)
    agreement: np.ndarray = field(default_factory=lambda: np.zeros(0))
    evidence_share: np.ndarray = field(default_factory=lambda: np.zeros(0))
    top_holds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    alloc_wrong: np.ndarray = field(default_factory=lambda: np.zeros(0))
    alloc_right: np.ndarray = field(default_factory=lambda: np.zeros(0))
    split: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    extrapolation: list = field(default_factory=list)


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


def _estep(
    d: _Data,
    a: np.ndarray,
    w: np.ndarray,
    eta: float,
    prior_logit: np.ndarray,
    clamp: np.ndarray | None,
    truth: np.ndarray | None,
    counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    prior: SplitPrior | None = None,
) -> KeyErrorFit:
    """Fit the model of the module docstring and return every item's score.

    Args:
        item: per answer, the item (0..n−1).  The answers are in long form:
            one entry per usable answer of a model to an item.
        model: per answer, the model (0..J−1).
        answer: per answer, the option given (index 0..K_i−1).
        n_options: per item, K_i ≥ 2.
        key: per item, the key's option index.
        subject: per item, its subject id (default: one subject).
        family: per model, its family id (default: every model its own).
        n_models: J (default: the largest model id + 1).
        evidence_llr: per item, λ_i, other evidence as a log likelihood
            ratio (key wrong : key right); default 0.  The split adds it;
            the EM does not see it.
        clamp: per item, a settled verdict: 1 key wrong (T_i ≠ key, clamped
            in the EM), 0 key right (left free: a shared misconception stays
            possible), NaN unknown.
        truth: per item, the corrected answer's index where clamp = 1 (−1
            unknown).
        max_iter: EM iterations per round at most.
        tol: the EM stops when no parameter moves by more than this.
        sample: fit the parameters on a seeded random sample of this many
            items when there are more; one E-step then scores every item.
        seed: the sample's seed.
        family_rounds: EM rounds (the family weights re-estimated between
            them; 1: no family weights).
        full_iters: EM iterations over every item after a fit on a sample.
        n_subjects: the number of subjects (default: the largest id + 1).
        prior: the split's constants (default
            :data:`~audit.analyze.keyerror._split.SPLIT_PRIOR`, read at call time).

    Returns:
        A :class:`KeyErrorFit`.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> n, J = 400, 6
    >>> truth = rng.integers(0, 4, n); key = truth.copy(); key[:20] = (truth[:20] + 1) % 4
    >>> Y = np.where(rng.random((n, J)) < 0.8, truth[:, None], rng.integers(0, 4, (n, J)))
    >>> i, j = np.nonzero(np.ones((n, J), bool))
    >>> f = fit_key_error(i, j, Y[i, j], np.full(n, 4), key)
    >>> bool(f.p_reject[:20].mean() > 0.8 and f.p_reject[20:].mean() < 0.05)   # the models reject the key
    True
    >>> bool(f.score[:20].mean() > 10 * f.score[20:].mean())   # P(key wrong): a wrong key or a misconception
    True
    >>> round(float(f.score.sum()), 6) == round(n * f.split["pi_a"] / (f.split["pi_a"] + f.split["pi_b"]), 6)
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
                prior=prior)


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
    seed, family_rounds, full_iters, n_subjects, prior).

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
         n_subjects: int | None = None, prior: SplitPrior | None = None) -> KeyErrorFit:
    """The fit of :func:`fit_key_error` on ``full`` (the one EM, whatever
    form the answers came in)."""
    n, J, kmax = full.n, full.J, full.kmax
    key, subject = full.key, full.subject
    family = np.arange(J) if family is None else np.asarray(family, dtype=np.int64)
    n_subjects = n_subjects if n_subjects is not None else (int(subject.max()) + 1 if n else 1)
    n_families = int(family.max()) + 1 if len(family) else 1
    lam0 = np.zeros(n) if evidence_llr is None else np.asarray(evidence_llr, dtype=np.float64)
    N = full.cell_counts()
    if N is None:
        N = np.bincount(full.cell, minlength=n * kmax).reshape(n, kmax)
    x = agreement_share(N, key, full.K)
    # the EM reads the answers and the keys settled wrong; other evidence is the split's
    lam = np.zeros(n)
    clamp_a = None
    if clamp is not None:
        clamp_a = np.asarray(clamp, dtype=np.float64)
        clamp_a = np.where(clamp_a == 1, 1.0, np.nan)
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
            prior_logit = (np.log(eps_s) - np.log1p(-eps_s))[
                fit_d.subject
            ] + lam_fit  # logits per subject, then gathered
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
    fit = _final(full, a, w, rho, eta, g, eps_s, lam, clamp_a, truth_a, n_subjects, it_total, converged)
    fit.agreement = x
    correct_j, answered_j = _model_answers(full)
    top = int(np.argmax(correct_j)) if len(correct_j) else 0
    t = top_model_holds(*_top_answers(full, top))
    feats = set_features(N, key, full.K, fit.p_reject, correct_j, answered_j)
    fit.extra["top_model"] = top
    return split_fit(fit, full.K, subject, t, feats, evidence_llr=lam0, prior=prior, clamp=clamp)


def split_fit(fit: KeyErrorFit, n_options: ArrayLike, subject: ArrayLike, top_holds: ArrayLike, features: dict, *,
              evidence_llr: ArrayLike | None = None, prior: SplitPrior | None = None,
              clamp: ArrayLike | None = None) -> KeyErrorFit:
    """Split ``fit``'s p_reject into P(key wrong) (:func:`~audit.analyze.keyerror._split.split`)
    for a model set summarised by ``features``, with the prior widened when
    the set lies outside its training domain; sets ``score``,
    ``evidence_share``, ``top_holds``, ``alloc_wrong``, ``alloc_right``,
    ``split``, ``features`` and ``extrapolation`` (``subject``: each item's
    subject id; ``top_holds``: t_i; ``clamp``: settled verdicts, 1 key
    wrong, 0 key right, NaN unknown — clamped in the score, the rest
    sharing the level's total)."""
    prior = _split.SPLIT_PRIOR if prior is None else prior
    reasons = extrapolation(features, prior.domain)
    use = prior.widened() if reasons else prior
    v = evidence_share(fit.llr_models, fit.reliability, fit.weight, n_options)
    eps = fit.subject_rate[np.asarray(subject, dtype=np.int64)] if len(fit.subject_rate) else np.full(len(v), 0.05)
    acc = float(features.get("accuracy", 0.5))
    sp = split(fit.p_reject, v, top_holds, eps, use, accuracy=acc, evidence_llr=evidence_llr)
    if clamp is not None:
        c = np.asarray(clamp, dtype=float)
        sp.score, sp.alpha = scores(sp.h1, sp.h0, sp.s, sp.pi * len(sp.h1), evidence_llr=evidence_llr,
                                    settled=~np.isnan(c), wrong=c == 1)
    fit.score = sp.score
    fit.evidence_share, fit.top_holds = v, np.asarray(top_holds, dtype=float)
    fit.alloc_wrong, fit.alloc_right = sp.h1, sp.h0
    fit.split = {"pi_a": sp.pi_a, "pi_b": sp.pi_b, "s_a": sp.s_a, "s_b": sp.s_b, "alpha": sp.alpha, "accuracy": acc}
    fit.features, fit.extrapolation = dict(features), list(reasons)
    return fit


def _model_answers(d: _Data) -> tuple[np.ndarray, np.ndarray]:
    """Per model: (answers equal to the key, usable answers) over ``d``'s items."""
    if d.runs is not None and d.bytes is not None:
        cells = d.runs[0]
        is_key = (cells % d.kmax) == d.key[d.cell_item]
        ones = np.ones(d.bytes.shape[1])
        return (_byte_totals(d.bytes, np.where(is_key, 1.0, 0.0), d.J).astype(np.int64),
                _byte_totals(d.bytes, ones, d.J).astype(np.int64))
    item, model, answer, _ = d._long_form()
    ok = answer == d.key[item]
    return np.bincount(model[ok], minlength=d.J), np.bincount(model, minlength=d.J)


def _top_answers(d: _Data, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Per item of ``d``: (model ``j`` gave the key, model ``j`` gave a usable answer)."""
    correct = np.zeros(d.n, dtype=bool)
    answered = np.zeros(d.n, dtype=bool)
    if d.runs is not None and d.bytes is not None:
        bit = ((d.bytes[j // 8] >> np.uint8(j % 8)) & 1).astype(bool)
        items = d.cell_item[bit]
        answered[items] = True
        is_key = (d.runs[0][bit] % d.kmax) == d.key[items]
        correct[items[is_key]] = True
        return correct, answered
    item, model, answer, _ = d._long_form()
    m = model == j
    answered[item[m]] = True
    correct[item[m & (answer == d.key[item])]] = True
    return correct, answered


def _final(d: _Data, a: np.ndarray, w: np.ndarray, rho: np.ndarray, eta: float, g: float, eps_s: np.ndarray,
           lam: np.ndarray, clamp: np.ndarray | None, truth: np.ndarray | None, n_subjects: int, n_iter: int,
           converged: bool, counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> KeyErrorFit:
    """The last E-step: every item's posterior under the fitted parameters
    (``lam``: the prior log-odds added per item; ``clamp``: 1 where the key
    is settled wrong).  ``score`` is p_reject until the split sets it."""
    base_logit = (np.log(eps_s) - np.log1p(-eps_s))[d.subject]
    Q, ll_n, ll_g = _estep(d, a, w, eta, base_logit + lam, clamp, truth, counts)
    Qt, ll_nt = Q.transpose(1, 2, 0), ll_n.T          # letter-major, contiguous
    p_guessing = Qt[1].sum(0)
    P = Qt[0]
    P += Qt[1]                                        # (Q is not used again)
    p_reject = np.clip(1.0 - np.where(d.has_key, np.take(P, d.key_flat), 0.0 * P[0]), 0.0, 1.0)
    score = p_reject.copy()
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
                          key: ArrayLike, *, subject: ArrayLike | None = None, clamp: ArrayLike | None = None,
                          truth: ArrayLike | None = None, agreement: ArrayLike | None = None) -> KeyErrorFit:
    """Every item's posterior under ``fit``'s parameters, from the weighted
    counts computed elsewhere (e.g. over all items after a fit on a
    sample): per item S0 = Σ_j w_j·log(1 − a_j) over the models that
    answered it; per (item, letter), n × Kmax, C = Σ_j w_j and D = Σ_j
    w_j·log(a_j / (1 − a_j)) over the models that gave that letter.  The
    other arguments as in :func:`fit_key_error`; ``agreement``: each item's
    agreement share (kept with the result).  The answers' posterior only
    (``score`` = p_reject): :func:`split_fit` splits it."""
    K = np.asarray(n_options, dtype=np.int64)
    n = len(K)
    kmax = C.shape[1]
    subj = np.zeros(n, dtype=np.int64) if subject is None else np.asarray(subject, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    d = _Data(empty, empty, empty, K, np.asarray(key, dtype=np.int64), subj, len(fit.reliability), kmax)
    clamp_b = None if clamp is None else np.where(np.asarray(clamp, dtype=np.float64) == 1, 1.0, np.nan)
    out = _final(d, fit.reliability, fit.weight, fit.family_rho, fit.guess_rate, fit.global_rate, fit.subject_rate,
                 np.zeros(n), clamp_b, None if truth is None else np.asarray(truth, dtype=np.int64),
                 len(fit.subject_rate), fit.n_iter, fit.converged, (S0, C, D))
    out.agreement = np.zeros(n) if agreement is None else np.asarray(agreement, dtype=float)
    return out
