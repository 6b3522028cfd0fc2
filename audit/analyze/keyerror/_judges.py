"""Judge runs' verdicts as evidence about the key: each run's reliability
and weight estimated from the data (no expert labels needed).  The split
adds their λ at the same level (:func:`~audit.analyze.keyerror._split.scores`
solves the level offset again), so discounted ratios move mass between
items without adding wrong keys."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

#: Beta priors of a judge run's sensitivity and specificity for "key wrong":
#: uniform (one pseudo-item each way), so a run's figures are its own data's.
JUDGE_SENS_PRIOR = (1.0, 1.0)
JUDGE_SPEC_PRIOR = (1.0, 1.0)


@dataclass
class JudgeVerdicts:
    """The judge runs' verdicts on a benchmark's items: ``v`` is items × runs
    (1 = says the key is wrong, 0 = says it is right, NaN = no verdict);
    ``runs`` the runs' names (``'<judge> <prompt version>'``); ``family`` the
    run's family index (runs of one judge model share a family)."""

    v: np.ndarray
    runs: list[str]
    family: np.ndarray


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

    >>> import pandas as pd
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
