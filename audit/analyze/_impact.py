"""What wrong keys cost: the expected number of wrong keys with a posterior
interval, each model's accuracy on the items whose key is right and under
the most probable corrected keys, and the selection control of the
exclusion scenarios.

Everything here reads the current key-error score of every item (the
combined score with settled verdicts and judges when the review stage has
stored one for the current run, else the fit's score; see
:mod:`audit.analyze.keyerror`) and its parts: the allocation (h1, h0), the
other evidence λ and the level — π's Beta (after the random audit
sample's verdicts, when the review stage has updated it) and s's.  The figures integrate over (π, s) by quadrature
(:func:`~audit.analyze.keyerror.count_and_cost`): at each node the
unsettled items share n·π minus the wrong keys found, their count is normal
with variance Σ q(1 − q), and the intervals are the mixture's equal-tailed
quantiles (default 90%).  The estimate is Σ score.

**The model set** (``model_set_warning``): when the benchmark's models lie
outside the sets the split was learned on (near chance, one model far
ahead, fewer than three models, another options count, most keys
rejected), the fit widened the level's prior and a plain sentence says so
and points to the random audit sample.

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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from audit._util.sql import unregister
from audit.analyze.inputs import QUESTIONS_SQL, latest_run, model_set, usable_predictions_sql
from audit.analyze.keyerror import REASONS, Level, count_and_cost
from audit.i18n import translate
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

LEVEL = 0.9
CONFIRMED = 0.5      # p_reject below this: the models confirm the key

# Every item of the benchmark with its current score and its parts: the
# stored combined score when it builds on the current run, else the fit's.
_ITEMS_SQL = f"""
WITH _q AS ({QUESTIONS_SQL})
SELECT q.qn, q.question_id, coalesce(q.subject, '') AS subject, r.tier, r.bucket,
       CASE WHEN e.run_id = k.run_id THEN e.score ELSE k.score END AS score,
       CASE WHEN e.run_id = k.run_id THEN coalesce(e.p_reject, k.p_reject) ELSE k.p_reject END AS p_reject,
       CASE WHEN e.run_id = k.run_id THEN coalesce(e.alloc_wrong, k.alloc_wrong) ELSE k.alloc_wrong END AS h1,
       CASE WHEN e.run_id = k.run_id THEN coalesce(e.alloc_right, k.alloc_right) ELSE k.alloc_right END AS h0,
       coalesce(CASE WHEN e.run_id = k.run_id THEN e.llr_parallel ELSE k.llr_parallel END, 0)
         + coalesce(k.llr_lint, 0)
         + coalesce(CASE WHEN e.run_id = k.run_id THEN e.llr_judges ELSE k.llr_judges END, 0) AS llr_evidence,
       k.alternative, k.fixed_reason, k.llr_models IS NOT NULL AS scored,
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
    bucket, score, p_reject, h1, h0, llr_evidence, alternative,
    fixed_reason, scored, settled), its models, the answers as dense items
    × models boolean matrices ``valid``, ``correct`` (the key) and ``alt``
    (the fit's alternative), the level (``level``: π's truncated Beta) and
    ``s_ab`` (s's Beta), the model set's ``features`` and the
    ``warning`` reasons (codes with figures) when it lies outside the
    training domain, and ``asked`` (the model has a prediction for the item,
    valid or not)."""

    benchmark: str
    models: list[str]
    items: pd.DataFrame
    valid: np.ndarray
    correct: np.ndarray
    alt: np.ndarray
    level: Level
    s_ab: tuple[float, float]
    n_settled: int
    features: dict = field(default_factory=dict)
    warning: list = field(default_factory=list)
    asked: np.ndarray | None = None

    @property
    def scored(self) -> bool:
        return bool(self.items["score"].notna().any()) and bool(self.items["scored"].any())


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
        prm = con.execute("SELECT kind, name, param, value FROM key_error_params WHERE run_id = ? "
                          "AND kind IN ('split', 'model_set', 'model_set_warning')", [run["run_id"]]).fetchall()
        state = _level_state(con, benchmark, run["run_id"])
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
    items["scored"] = items["scored"].fillna(False).astype(bool)
    split = {(nm, pr): v for k, nm, pr, v in prm if k == "split"}
    level = Level(split.get(("level", "prior_a"), 1.0), split.get(("level", "prior_b"), 1.0))
    s_ab = (split.get(("share_rejected", "prior_a"), 1.0), split.get(("share_rejected", "prior_b"), 1.0))
    if state is not None:
        level, s_ab = Level(state[0], state[1]), (state[2], state[3])
    warning: dict[str, dict] = {}
    for k, nm, pr, v in prm:
        if k == "model_set_warning":
            warning.setdefault(nm, {})
            if pr != "flag":
                warning[nm][pr] = v
    return ImpactData(benchmark, list(ms.models), items, valid, correct, alt, level, s_ab,
                      int(items["settled"].sum()), {nm: v for k, nm, _, v in prm if k == "model_set"},
                      [(c, warning[c]) for c in REASONS if c in warning], asked)


def _level_state(con: Any, benchmark: str, run_id: int) -> tuple | None:
    """The level after the verdicts (stored by the review stage for this run), or None."""
    try:
        rows = con.execute("SELECT pi_a, pi_b, s_a, s_b FROM key_error_evidence_state "
                           "WHERE benchmark = ? AND run_id = ? AND pi_a IS NOT NULL", [benchmark, run_id]).fetchall()
    except Exception:   # a file opened read-only before its migration
        return None
    return tuple(float(x) for x in rows[0]) if rows else None


def figures(data: ImpactData, *, by: str | None = None, level: float = LEVEL) -> dict:
    """:func:`~audit.analyze.keyerror.count_and_cost` over the benchmark's
    items, grouped ``by`` None, ``"subject"`` or ``"tier"`` (adds ``names``,
    the groups)."""
    it = data.items
    if by is None:
        groups, names = np.zeros(len(it), dtype=np.int64), np.array(["all"], dtype=object)
    else:
        col = it["subject"] if by == "subject" else it["bucket"].fillna("")
        codes, uniq = pd.factorize(col, sort=True)
        groups, names = codes.astype(np.int64), np.asarray(uniq, dtype=object)
    sc = it["scored"].to_numpy(bool) & it["h1"].notna().to_numpy()
    s = it["score"].to_numpy(dtype=float)
    clamped = it["settled"].to_numpy(bool) | ~sc
    out = count_and_cost(it["h1"].fillna(0).to_numpy(float), it["h0"].fillna(0).to_numpy(float), data.level,
                         data.s_ab, evidence_llr=it["llr_evidence"].fillna(0).to_numpy(float), scored=sc,
                         clamped=clamped, clamp_value=np.nan_to_num(s), groups=groups, n_groups=len(names),
                         correct=data.correct if by is None else None, alt=data.alt if by is None else None,
                         asked=data.asked if by is None else None, interval=level)
    out["names"], out["groups"] = names, groups
    return out


def expected_wrong_keys(data: ImpactData, *, by: str | None = None, level: float = LEVEL,
                        computed: dict | None = None) -> pd.DataFrame:
    """Expected number of wrong keys with a ``level`` posterior interval, for
    the benchmark (``by`` None) or per ``"subject"`` / ``"tier"``.

    Columns: group ("all", the subject, or the bucket), n_items, estimate
    (Σ score), low, high.  Items without a score (multi-answer keys, runs
    with fewer than two models) count as none.  ``computed``: :func:`figures`
    already run with the same ``by``.
    """
    f = figures(data, by=by, level=level) if computed is None else computed
    s = data.items["score"].fillna(0.0).to_numpy(dtype=float)
    G = len(f["names"])
    return pd.DataFrame({"group": f["names"], "n_items": np.bincount(f["groups"], minlength=G),
                         "estimate": np.bincount(f["groups"], weights=s, minlength=G),
                         "low": f["group_low"], "high": f["group_high"]})


def wrong_key_cost(data: ImpactData, *, level: float = LEVEL, computed: dict | None = None) -> pd.DataFrame:
    """Per model: accuracy (reported), accuracy_right_keys (+ _low, _high),
    accuracy_corrected (+ _low, _high), cost_points (see the module
    docstring), and n_asked of n_items (the items it was asked, which the
    accuracies are over).  Fractions in [0, 1]; rows in model order.
    ``computed``: :func:`figures` of the whole benchmark already run."""
    f = figures(data, level=level) if computed is None else computed
    c = data.correct
    # each model over the items it was asked (all items when the data says nothing else)
    asked = data.asked if data.asked is not None else np.ones_like(c)
    n = np.maximum(asked.sum(0).astype(np.float64), 1.0)        # per model
    s = data.items["score"].fillna(0.0).to_numpy(dtype=float)
    tot_c = c.sum(0)
    acc = tot_c / n
    # the mean with the wrong keys replaced is linear in the key states: exact from the scores
    mean_corr = (tot_c - s @ c + s @ data.alt) / n
    mean_right = f["accuracy_right_keys"]
    return pd.DataFrame({
        "model": data.models, "accuracy": acc,
        "accuracy_right_keys": mean_right, "accuracy_right_keys_low": f["accuracy_right_keys_low"],
        "accuracy_right_keys_high": f["accuracy_right_keys_high"],
        "accuracy_corrected": mean_corr, "accuracy_corrected_low": np.minimum(f["accuracy_corrected_low"], mean_corr),
        "accuracy_corrected_high": np.maximum(f["accuracy_corrected_high"], mean_corr),
        "cost_points": (mean_right - acc) * 100.0,
        "n_asked": asked.sum(0).astype(np.int64), "n_items": np.full(len(data.models), len(data.items), np.int64),
    })


def model_set_warning(reasons: list, lang: str = "en") -> str | None:
    """The plain sentence for the reasons of
    :func:`~audit.analyze.keyerror.extrapolation` (codes with figures), in
    ``lang``; None when there are none.

    >>> model_set_warning([])
    >>> model_set_warning([("few_models", {"n": 2, "fewest": 3})]).split(":")[0]
    'The key-error estimate extrapolates'
    """
    if not reasons:
        return None
    parts = []
    for code, figs in reasons:
        vals = {k: (f"{100 * v:.0f}%" if k in ("accuracy", "lowest", "share", "highest") else
                    f"{v:g}" if isinstance(v, float) else v) for k, v in dict(figs).items()}
        parts.append(translate(f"keyerror.reason.{code}", lang, **vals))
    return translate("keyerror.warning", lang, reasons=translate("keyerror.reason_sep", lang).join(parts))

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


def impact_summary(benchmark: str | None = None, *, db: DbPath = None, models: Any = None,
                   level: float = LEVEL) -> dict:
    """The report's block: ``expected_wrong_keys`` {estimate, low, high,
    n_items}, ``expected_wrong_keys_by_subject`` and ``_by_tier``
    (DataFrames of :func:`expected_wrong_keys`), ``wrong_key_cost``
    (DataFrame), ``level``, ``scored`` (False: fewer than two models,
    nothing estimated), ``model_set_warning`` (a plain sentence, or None),
    ``model_set_reasons`` (its codes with figures, for other languages:
    :func:`model_set_warning`), ``model_set`` (the set's summary) and
    ``split`` (the level's Beta after the verdicts, s's Beta) and
    ``found_all`` (the settled wrong keys reach the level's expected total:
    only the random audit sample can say how many more there are).

    >>> import tempfile, os
    >>> from audit.demo import build_demo
    >>> db = os.path.join(tempfile.mkdtemp(), "d.duckdb"); _ = build_demo(db)
    >>> r = impact_summary("demo", db=db)
    >>> e = r["expected_wrong_keys"]; bool(e["low"] <= e["estimate"] <= e["high"])
    True
    >>> list(r["wrong_key_cost"].columns[:3])
    ['model', 'accuracy', 'accuracy_right_keys']
    """
    d = load_impact(benchmark, db=db, models=models)
    out: dict = {"level": level, "scored": d.scored, "model_set": d.features,
                 "model_set_reasons": [[c, dict(f)] for c, f in d.warning],
                 "model_set_warning": model_set_warning(d.warning) if d.scored else None,
                 "split": {"pi_a": d.level.a, "pi_b": d.level.b, "pi_mean": d.level.mean,
                           "s_a": d.s_ab[0], "s_b": d.s_ab[1]}}
    if not d.scored:
        out.update(expected_wrong_keys=None, expected_wrong_keys_by_subject=None, expected_wrong_keys_by_tier=None,
                   wrong_key_cost=None)
        return out
    it = d.items
    found = int((it["settled"] & it["scored"] & (it["score"] == 1.0)).sum())
    out["found_all"] = bool(found and found >= int(it["scored"].sum()) * d.level.mean)
    whole = figures(d, level=level)
    tot = expected_wrong_keys(d, level=level, computed=whole).iloc[0]
    out["expected_wrong_keys"] = {
        "estimate": float(tot["estimate"]),
        "low": min(float(tot["low"]), float(tot["estimate"])),
        "high": max(float(tot["high"]), float(tot["estimate"])),
        "n_items": int(tot["n_items"]),
    }
    out["expected_wrong_keys_by_subject"] = expected_wrong_keys(d, by="subject", level=level)
    out["expected_wrong_keys_by_tier"] = expected_wrong_keys(d, by="tier", level=level)
    out["wrong_key_cost"] = wrong_key_cost(d, level=level, computed=whole)
    return out


__all__ = ["ImpactData", "load_impact", "figures", "expected_wrong_keys", "wrong_key_cost", "selection_control",
           "impact_summary", "model_set_warning"]
