"""What wrong keys cost: the expected number of wrong keys with a posterior
interval, each model's accuracy on the items whose key is right and under
the most probable corrected keys, and the selection control of the
exclusion scenarios.

Everything here reads the current key-error score of every item (the
combined score with settled verdicts and judges when the review stage has
stored one for the current run, else the fit's score; see
:mod:`audit.analyze.keyerror`) and treats the items' key states as
independent Bernoulli draws with those probabilities (the posterior of the
model, which assumes items independent given its parameters).  The
uncertainty of the misconception split φ is carried along: each of
``draws`` Monte Carlo draws takes φ_k ~ Beta(φ̂·m, (1 − φ̂)·m) (m = the
prior's strength plus the settled items) and rescales the unsettled items'
scores by φ_k / φ̂ (per band of the agreement share; exact for items without other evidence, where score =
φ·p_reject).  Intervals are equal-tailed posterior quantiles of the draws
(default 90%).  Only items with a score above 1e-3 are drawn; the rest
count as right keys (their expected contribution is added to the
estimate).

**Cost per model** (``wrong_key_cost``): ``accuracy`` is the reported
accuracy (correct / questions the model was asked, as
:func:`~audit.analyze.model_metrics`); ``accuracy_right_keys`` the accuracy
over the asked items whose key is right,
``accuracy_corrected`` the accuracy when every wrong key is replaced by the
models' most probable other answer (the fit's ``alternative``); both are
posterior means with quantile intervals.  ``cost_points`` =
(accuracy_right_keys − accuracy) × 100: how many points wrong keys take
from the model's reported score.

**Selection control** (``selection_control``): excluding items that models
find hard raises accuracy whether or not their keys are wrong.  For a
scenario that excludes the items X, the control is the change in each
model's conditional accuracy if each excluded item were, with weight
1 − score_i (the posterior probability its key is right), a typical item
of the same difficulty whose key the models confirm (p_reject < 0.5, not
excluded): per difficulty stratum (the share of models choosing the key,
in tenths) the mean correct and valid answers of each model over those
items; a stratum without such items uses the excluded item itself.  The
scenario's delta minus its control is then the part key errors explain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from audit._util.sql import unregister
from audit.analyze.inputs import QUESTIONS_SQL, latest_run, model_set, usable_predictions_sql
from audit.analyze.keyerror import PHI_PRIOR_MEAN, PHI_STRENGTH, phi_band
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

DRAWS = 1000
LEVEL = 0.9
MIN_SCORE = 1e-3
CONFIRMED = 0.5      # p_reject below this: the models confirm the key

# Every item of the benchmark with its current score: the stored combined
# score when it builds on the current run, else the fit's.
_ITEMS_SQL = f"""
WITH _q AS ({QUESTIONS_SQL})
SELECT q.qn, q.question_id, coalesce(q.subject, '') AS subject, r.tier, r.bucket,
       CASE WHEN e.run_id = k.run_id THEN e.score ELSE k.score END AS score,
       CASE WHEN e.run_id = k.run_id THEN coalesce(e.p_reject, k.p_reject) ELSE k.p_reject END AS p_reject,
       k.alternative, k.fixed_reason, coalesce(k.agreement_share, 1.0) AS agreement_share,
       (e.run_id = k.run_id AND e.settled_verdict IS NOT NULL) AS settled
FROM _q q
LEFT JOIN audit_results r ON r.run_id = $run_id AND r.question_id = q.question_id
LEFT JOIN key_error_scores k ON k.run_id = $run_id AND k.question_id = q.question_id
LEFT JOIN key_error_evidence e ON e.benchmark = $benchmark AND e.question_id = q.question_id
ORDER BY q.qn
"""



@dataclass
class ImpactData:
    """One benchmark's items (``items``: qn, question_id, subject, tier,
    bucket, score, p_reject, alternative, fixed_reason, settled), its
    models, and the answers as dense items × models boolean matrices
    ``valid``, ``correct`` (the key) and ``alt`` (the fit's alternative),
    and ``asked`` (the model has a prediction for the item, valid or not)."""

    benchmark: str
    models: list[str]
    items: pd.DataFrame
    valid: np.ndarray
    correct: np.ndarray
    alt: np.ndarray
    phi: np.ndarray      # the misconception split per band (the fit's)
    n_settled: int
    asked: np.ndarray | None = None

    @property
    def scored(self) -> bool:
        return bool(self.items["score"].notna().any())


def load_impact(benchmark: str | None = None, *, db: DbPath = None, models: Any = None) -> ImpactData:
    """Read what :func:`expected_wrong_keys`, :func:`wrong_key_cost` and
    :func:`selection_control` need (the latest audit run's models by default)."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        ms = model_set(con, benchmark, models if models is not None else run["models"])
        params = {"benchmark": benchmark, "run_id": run["run_id"]}
        items = con.execute(_ITEMS_SQL, params).df()
        con.register("_ms", ms.arrow())
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE _alt AS SELECT q.qn, k.alternative FROM ({QUESTIONS_SQL}) q "
                        "JOIN key_error_scores k ON k.run_id = $run_id AND k.question_id = q.question_id "
                        "WHERE k.alternative IS NOT NULL", params)
            ans = con.execute(
                f"WITH _q AS ({QUESTIONS_SQL}), p AS ({usable_predictions_sql()}) "
                "SELECT p.qn - 1 AS i, p.model_id AS j, p.is_key, "
                "coalesce(p.answer = a.alternative, false) AS is_alt FROM p LEFT JOIN _alt a USING (qn)",
                {"benchmark": benchmark}).fetchnumpy()
            asked_rows = con.execute(
                f"WITH _q AS ({QUESTIONS_SQL}) SELECT DISTINCT q.qn - 1 AS i, ms.model_id AS j FROM all_predictions p "
                "JOIN _ms ms ON ms.model = p.model AND ms.run = p.run JOIN _q q ON q.question_id = p.question_id "
                "WHERE p.benchmark = $benchmark", {"benchmark": benchmark}).fetchnumpy()
            con.execute("DROP TABLE IF EXISTS _alt")
        finally:
            unregister(con, "_ms")
        phi_rows = dict(con.execute("SELECT name, value FROM key_error_params WHERE run_id = ? AND kind = 'phi_band' "
                                    "AND param = 'wrong_given_reject'", [run["run_id"]]).fetchall())
    n, J = len(items), ms.n
    valid = np.zeros((n, J), dtype=bool)
    correct = np.zeros((n, J), dtype=bool)
    alt = np.zeros((n, J), dtype=bool)
    i = np.asarray(ans["i"], dtype=np.int64)
    j = np.asarray(ans["j"], dtype=np.int64)
    valid[i, j] = True
    correct[i, j] = np.asarray(ans["is_key"], dtype=bool)
    alt[i, j] = np.asarray(ans["is_alt"], dtype=bool)
    asked = np.zeros((n, J), dtype=bool)
    asked[np.asarray(asked_rows["i"], dtype=np.int64), np.asarray(asked_rows["j"], dtype=np.int64)] = True
    items["settled"] = items["settled"].fillna(False).astype(bool)
    return ImpactData(benchmark, list(ms.models), items, valid, correct, alt,
                      np.array([float(phi_rows.get(str(k), m)) for k, m in enumerate(PHI_PRIOR_MEAN)]),
                      int(items["settled"].sum()), asked)


Drawn = tuple[np.ndarray, np.ndarray, np.ndarray]


def _draws(d: ImpactData, draws: int, seed: int) -> Drawn:
    """(idx, W, s): the items drawn (score > MIN_SCORE), a draws × len(idx)
    boolean matrix of "key wrong" draws, and every item's score (NaN → 0)."""
    s = d.items["score"].fillna(0.0).to_numpy(dtype=float)
    idx = np.nonzero(s > MIN_SCORE)[0]
    rng = np.random.default_rng(seed)
    band = phi_band(d.items["agreement_share"].to_numpy(dtype=float))
    settled = d.items["settled"].to_numpy(bool)
    m = PHI_STRENGTH + np.bincount(band[settled], minlength=len(d.phi))
    phi = np.clip(d.phi, 1e-6, 1 - 1e-6)
    ratio = rng.beta(phi * m, (1 - phi) * m, size=(draws, len(phi))) / phi     # draws × bands
    fixed = (settled | d.items["fixed_reason"].notna().to_numpy())[idx]
    p = np.where(fixed[None, :], s[idx][None, :], np.clip(s[idx][None, :] * ratio[:, band[idx]], 0.0, 1.0))
    W = rng.random((draws, len(idx))) < p
    return idx, W, s


def _interval(x: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    a = (1 - level) / 2
    return np.quantile(x, a, axis=0), np.quantile(x, 1 - a, axis=0)


def expected_wrong_keys(data: ImpactData, *, by: str | None = None, level: float = LEVEL, draws: int = DRAWS,
                        seed: int = 0, drawn: Drawn | None = None) -> pd.DataFrame:
    """Expected number of wrong keys with a ``level`` posterior interval, for
    the benchmark (``by`` None) or per ``"subject"`` / ``"tier"``.

    Columns: group ("all", the subject, or the bucket), n_items, estimate
    (Σ score), low, high.  Items without a score (multi-answer keys, runs
    with fewer than two models) count as none.
    """
    it = data.items
    if by is None:
        groups = np.zeros(len(it), dtype=np.int64)
        names = np.array(["all"], dtype=object)
    else:
        col = it["subject"] if by == "subject" else it["bucket"].fillna("")
        codes, uniq = pd.factorize(col, sort=True)
        groups, names = codes.astype(np.int64), np.asarray(uniq, dtype=object)
    G = len(names)
    idx, W, s = _draws(data, draws, seed) if drawn is None else drawn
    onehot = np.zeros((len(idx), G), dtype=np.float32)
    onehot[np.arange(len(idx)), groups[idx]] = 1.0
    sims = (W.astype(np.float32) @ onehot).astype(np.float64)      # draws × groups
    rest = np.bincount(groups, weights=np.where(s > MIN_SCORE, 0.0, s), minlength=G)
    lo, hi = _interval(sims, level) if len(idx) else (np.zeros(G), np.zeros(G))
    return pd.DataFrame({"group": names, "n_items": np.bincount(groups, minlength=G),
                         "estimate": np.bincount(groups, weights=s, minlength=G),
                         "low": lo + rest, "high": hi + rest})


def wrong_key_cost(data: ImpactData, *, level: float = LEVEL, draws: int = DRAWS, seed: int = 0,
                   drawn: Drawn | None = None) -> pd.DataFrame:
    """Per model: accuracy (reported), accuracy_right_keys (+ _low, _high),
    accuracy_corrected (+ _low, _high), cost_points (see the module
    docstring), and n_asked of n_items (the items it was asked, which the
    accuracies are over).  Fractions in [0, 1]; rows in model order."""
    c = data.correct
    a = data.alt
    # each model over the items it was asked (all items when the data says nothing else)
    asked = data.asked if data.asked is not None else np.ones_like(c)
    n = np.maximum(asked.sum(0).astype(np.float64), 1.0)        # per model
    idx, W, s = _draws(data, draws, seed) if drawn is None else drawn
    Wf = W.astype(np.float32)
    tot_c = c.sum(0)
    wc = (Wf @ data.correct[idx].astype(np.float32)).astype(np.float64)   # per draw: correct answers on wrong keys
    wa = (Wf @ data.alt[idx].astype(np.float32)).astype(np.float64)
    num_right = tot_c[None, :] - wc                                # correct answers on right-key items, per draw
    den_right = asked.sum(0)[None, :] - (Wf @ asked[idx].astype(np.float32)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_right = num_right / den_right
    acc_corr = (tot_c[None, :] - wc + wa) / n[None, :]
    lo_r, hi_r = _interval(acc_right, level)
    lo_c, hi_c = _interval(acc_corr, level)
    acc = tot_c / n
    # the posterior means without Monte Carlo noise where they are linear
    mean_corr = (tot_c - s @ c + s @ a) / n   # exact (linear in the key states)
    mean_right = acc_right.mean(0)
    return pd.DataFrame({
        "model": data.models, "accuracy": acc,
        "accuracy_right_keys": mean_right, "accuracy_right_keys_low": lo_r, "accuracy_right_keys_high": hi_r,
        "accuracy_corrected": mean_corr, "accuracy_corrected_low": lo_c, "accuracy_corrected_high": hi_c,
        "cost_points": (mean_right - acc) * 100.0,
        "n_asked": asked.sum(0).astype(np.int64), "n_items": np.full(len(data.models), len(data.items), np.int64),
    })


def selection_control(data: ImpactData, exclusions: dict[str, Any]) -> dict[str, np.ndarray]:
    """Per scenario (name → excluded question ids): the control delta in
    points of every model's conditional accuracy (array in model order; see
    the module docstring).  NaN when the benchmark has no key-error score."""
    it = data.items
    J = len(data.models)
    if not data.scored or J == 0:
        return {k: np.full(J, np.nan) for k in exclusions}
    V = data.valid.astype(np.float64)
    C = data.correct.astype(np.float64)
    s = it["score"].fillna(0.0).to_numpy(dtype=float)
    b = it["p_reject"].fillna(0.0).to_numpy(dtype=float)
    nv = V.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(nv > 0, C.sum(1) / np.where(nv > 0, nv, 1), 0.0)
    stratum = np.minimum((share * 10).astype(np.int64), 9)
    v_tot, c_tot = V.sum(0), C.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        base = c_tot / v_tot
    pos = pd.Series(np.arange(len(it)), index=it["question_id"].to_numpy())
    out: dict[str, np.ndarray] = {}
    for name, ids in exclusions.items():       # a loop over scenarios, not items
        x = np.zeros(len(it), dtype=bool)
        x[pos.reindex(list(ids)).dropna().to_numpy(dtype=np.int64)] = True
        conf = (b < CONFIRMED) & ~x
        cnt = np.bincount(stratum[conf], minlength=10).astype(float)
        mean_v = np.zeros((10, J))
        mean_c = np.zeros((10, J))
        np.add.at(mean_v, stratum[conf], V[conf])
        np.add.at(mean_c, stratum[conf], C[conf])
        has = cnt > 0
        mean_v[has] /= cnt[has, None]
        mean_c[has] /= cnt[has, None]
        w = (1.0 - s)[x]
        st = stratum[x]
        use_stratum = has[st]
        rv = np.where(use_stratum[:, None], mean_v[st], V[x])
        rc = np.where(use_stratum[:, None], mean_c[st], C[x])
        dv = (w[:, None] * rv).sum(0)
        dc = (w[:, None] * rc).sum(0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = ((c_tot - dc) / (v_tot - dv) - base) * 100.0
    return out


def impact_summary(benchmark: str | None = None, *, db: DbPath = None, models: Any = None, level: float = LEVEL,
                   draws: int = DRAWS, seed: int = 0) -> dict:
    """The report's block: ``expected_wrong_keys`` {estimate, low, high},
    ``expected_wrong_keys_by_subject`` and ``_by_tier`` (DataFrames of
    :func:`expected_wrong_keys`), ``wrong_key_cost`` (DataFrame), ``level``,
    ``phi``, ``scored`` (False: fewer than two models, nothing estimated).

    >>> import tempfile, os
    >>> from audit.demo import build_demo
    >>> db = os.path.join(tempfile.mkdtemp(), "d.duckdb"); _ = build_demo(db)
    >>> r = impact_summary("demo", db=db, draws=200)
    >>> e = r["expected_wrong_keys"]; bool(e["low"] <= e["estimate"] <= e["high"])
    True
    >>> list(r["wrong_key_cost"].columns[:3])
    ['model', 'accuracy', 'accuracy_right_keys']
    """
    d = load_impact(benchmark, db=db, models=models)
    out: dict = {"level": level, "phi": d.phi.tolist(), "scored": d.scored}
    if not d.scored:
        out.update(expected_wrong_keys=None, expected_wrong_keys_by_subject=None, expected_wrong_keys_by_tier=None,
                   wrong_key_cost=None)
        return out
    drawn = _draws(d, draws, seed)
    tot = expected_wrong_keys(d, level=level, drawn=drawn).iloc[0]
    out["expected_wrong_keys"] = {"estimate": float(tot["estimate"]), "low": float(tot["low"]),
                                  "high": float(tot["high"]), "n_items": int(tot["n_items"])}
    out["expected_wrong_keys_by_subject"] = expected_wrong_keys(d, by="subject", level=level, drawn=drawn)
    out["expected_wrong_keys_by_tier"] = expected_wrong_keys(d, by="tier", level=level, drawn=drawn)
    out["wrong_key_cost"] = wrong_key_cost(d, level=level, drawn=drawn)
    return out


__all__ = ["ImpactData", "load_impact", "expected_wrong_keys", "wrong_key_cost", "selection_control",
           "impact_summary"]
