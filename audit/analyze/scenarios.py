"""Filtering scenarios and pairwise model comparisons.

A scenario is a set of questions left out of the scoring.  Built in
(from the latest audit run's tiers):

===============  ===========================
baseline         nothing excluded
excl_tier1       Tier 1 excluded
excl_tier1-2     Tiers 1–2 excluded
excl_tier1-3     Tiers 1–3 excluded
excl_tier1-4     Tiers 1–4 excluded
===============  ===========================

Questions in the ``incomplete`` bucket (``analyze(incomplete="separate")``)
have no tier and are never excluded by these.  More scenarios (e.g. the
judge's) come in through ``extra_exclusions={name: {question_id, …}}``.

Per model × scenario the accuracy is the conditional accuracy (correct /
valid) over the remaining questions, with a Wilson interval (statsmodels
``proportion_confint(method="wilson")``).  Pairwise comparisons report the
two-proportion z-test of the methodology (statsmodels
``proportions_ztest``, pooled variance) and McNemar's exact test on paired
per-question correctness over the questions both models answered
(statsmodels ``mcnemar(exact=True)``: a two-sided exact binomial test on the
discordant pairs), which is the right test when both models answered the
same questions.
"""
from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pyarrow as pa

from audit.analyze._impact import load_impact, selection_control
from audit.analyze._metrics import add_wilson
from audit.analyze._stats import significance_stars
from audit.analyze.inputs import QUESTIONS_SQL, RegisteredTables, latest_run, model_set, usable_predictions_sql
from audit.errors import InputError, NotFoundError
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

# name -> highest tier excluded (tiers 1..k); 0 = nothing
SCENARIOS: dict[str, int] = {
    "baseline": 0,
    "excl_tier1": 1,
    "excl_tier1-2": 2,
    "excl_tier1-3": 3,
    "excl_tier1-4": 4,
}


def _scenario_tables(extra_exclusions) -> tuple[pa.Table, pa.Table]:
    names = list(SCENARIOS)
    max_tier = list(SCENARIOS.values())
    ex_s, ex_q = [], []
    for name, ids in (extra_exclusions or {}).items():
        name = str(name)
        if not name.strip():
            raise InputError("a scenario name must not be empty")
        if name in names:
            raise InputError(f"scenario '{name}' already exists; choose another name")
        names.append(name)
        max_tier.append(0)
        for qid in sorted({str(q) for q in ids}):
            ex_s.append(name)
            ex_q.append(qid)
    sc = pa.table(
        {
            "scenario": pa.array(names, pa.string()),
            "ord": pa.array(range(len(names)), pa.int32()),
            "max_tier": pa.array(max_tier, pa.int32()),
        }
    )
    scx = pa.table({"scenario": pa.array(ex_s, pa.string()), "question_id": pa.array(ex_q, pa.string())})
    return sc, scx


# Each question falls in an exclusion *class*: its tier in the latest run and
# the list of extra scenarios that drop it.  The 10 M-row prediction table is
# aggregated once per (model, class); scenarios are then sums over the
# classes they keep, so adding scenarios costs nothing at scale.
_SCOPE_SQL = f"""
    _q AS ({QUESTIONS_SQL}),
    p AS ({usable_predictions_sql()}),
    res AS (SELECT question_id, tier FROM audit_results WHERE run_id = $run_id),
    xq AS (SELECT question_id, list(DISTINCT scenario ORDER BY scenario) AS xs FROM _scx GROUP BY question_id),
    qc0 AS (
        SELECT q.qn, r.tier, coalesce(xq.xs, []::VARCHAR[]) AS xs
        FROM _q q LEFT JOIN res r USING (question_id) LEFT JOIN xq USING (question_id)
    ),
    qc AS (SELECT qn, tier, xs, dense_rank() OVER (ORDER BY tier NULLS FIRST, xs) AS cls FROM qc0),
    classes AS (SELECT cls, any_value(tier) AS tier, any_value(xs) AS xs, count(*) AS n_questions FROM qc GROUP BY cls),
    keep AS (
        SELECT s.scenario, s.ord, c.cls
        FROM _sc s, classes c
        WHERE NOT coalesce(c.tier BETWEEN 1 AND s.max_tier, false) AND NOT list_contains(c.xs, s.scenario)
    )
"""


class _ScenarioScope(RegisteredTables):
    def __init__(self, con, benchmark, models, extra_exclusions):
        self.con = con
        self.run = latest_run(con, benchmark)
        self.ms = model_set(con, benchmark, models if models is not None else self.run["models"])
        sc, scx = _scenario_tables(extra_exclusions)
        self.scenarios = sc.column("scenario").to_pylist()
        self.tables = {"_ms": self.ms.arrow(), "_sc": sc, "_scx": scx}
        self.params = {"benchmark": benchmark, "run_id": self.run["run_id"]}


def scenario_table(
    benchmark: str | None = None,
    *,
    db: DbPath = None,
    models=None,
    extra_exclusions: dict[str, set] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per model × scenario: questions remaining, valid answers, correct
    answers, conditional accuracy with a Wilson interval, and the change from
    the baseline in percentage points.

    Uses the tiers of the latest audit run (run ``analyze`` first) and, by
    default, that run's model set.  ``extra_exclusions`` adds scenarios:
    ``{"excl_judge": {"q1", "q7"}}`` excludes those question ids.

    Columns: scenario, model, family, n_questions, n_excluded, n_valid,
    n_correct, conditional_accuracy, conditional_accuracy_low,
    conditional_accuracy_high, delta_points (conditional accuracy minus the
    baseline's, × 100), control_delta_points (the delta that excluding as
    many items of the same difficulty whose keys the models confirm would
    give: the selection control of :mod:`audit.analyze._impact`; NaN without
    a key-error score).  Rows are ordered by scenario (built-ins first,
    then the extra ones in the given order), then model.
    """
    sql = f"""
        WITH {_SCOPE_SQL},
        per AS (
            SELECT qc.cls, p.model, count(*) AS n_valid, count(*) FILTER (WHERE p.is_key) AS n_correct
            FROM p JOIN qc USING (qn) GROUP BY ALL
        ),
        nq AS (SELECT k.scenario, sum(c.n_questions) AS n_questions FROM keep k JOIN classes c USING (cls) GROUP BY 1),
        pm AS (
            SELECT k.scenario, per.model, sum(per.n_valid) AS n_valid, sum(per.n_correct) AS n_correct
            FROM keep k JOIN per USING (cls) GROUP BY ALL
        )
        SELECT s.scenario, ms.model, ms.family,
               coalesce(nq.n_questions, 0)::BIGINT AS n_questions,
               coalesce(pm.n_valid, 0)::BIGINT AS n_valid,
               coalesce(pm.n_correct, 0)::BIGINT AS n_correct
        FROM _sc s CROSS JOIN _ms ms
        LEFT JOIN nq ON nq.scenario = s.scenario
        LEFT JOIN pm ON pm.scenario = s.scenario AND pm.model = ms.model
        ORDER BY s.ord, ms.model
    """
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        with _ScenarioScope(con, benchmark, models, extra_exclusions) as scope:
            df = con.execute(sql, scope.params).df()
    base_n = df.loc[df["scenario"] == "baseline", "n_questions"]
    df.insert(4, "n_excluded", (int(base_n.iloc[0]) if len(base_n) else 0) - df["n_questions"])
    add_wilson(df, "conditional_accuracy", "n_correct", "n_valid", confidence)
    base = df.loc[df["scenario"] == "baseline"].set_index("model")["conditional_accuracy"]
    df["delta_points"] = (df["conditional_accuracy"] - df["model"].map(base)) * 100.0
    df["control_delta_points"] = _control(benchmark, db, models, extra_exclusions, df)
    return df


def _control(benchmark: str, db: DbPath, models, extra_exclusions, df: pd.DataFrame) -> np.ndarray:
    """The selection control of every row (:func:`audit.analyze._impact.selection_control`)."""

    data = load_impact(benchmark, db=db, models=models)
    tier = data.items["tier"]
    qid = data.items["question_id"]
    excl = {name: set(qid[tier.between(1, k)]) for name, k in SCENARIOS.items()}
    excl.update({str(k): {str(q) for q in v} for k, v in (extra_exclusions or {}).items()})
    ctl = selection_control(data, excl)
    pos = {m: i for i, m in enumerate(data.models)}
    return np.array([ctl[sc][pos[m]] if sc in ctl and m in pos else np.nan
                     for sc, m in zip(df["scenario"], df["model"])], dtype=float)


def scenario_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per scenario of a :func:`scenario_table`, in its order: the mean over
    the models of the change in accuracy from the baseline
    (``change_points``, the mean ``delta_points``), of the selection control
    (``control_points``, the mean ``control_delta_points``) and of the part
    of the change that key errors explain (``explained_points``, the mean of
    ``delta_points − control_delta_points`` over the models that have a
    control).  Plain means of each column (NaN skipped), in percentage
    points; the control is the change that excluding as many equally hard
    items whose keys the models confirm would give, so what is left is the
    part that comes from removing wrong keys rather than hard items.

    >>> table = pd.DataFrame({"scenario": ["baseline", "baseline", "excl_tier1", "excl_tier1"],
    ...                       "model": ["m1", "m2", "m1", "m2"], "delta_points": [0.0, 0.0, 3.0, 5.0],
    ...                       "control_delta_points": [0.0, 0.0, 1.0, float("nan")]})
    >>> scenario_summary(table)
         scenario  change_points  control_points  explained_points
    0    baseline            0.0             0.0               0.0
    1  excl_tier1            4.0             1.0               2.0
    """
    explained = table["delta_points"] - table["control_delta_points"]
    out = (table.assign(explained_points=explained)
           .groupby("scenario", sort=False)[["delta_points", "control_delta_points", "explained_points"]].mean()
           .rename(columns={"delta_points": "change_points", "control_delta_points": "control_points"}))
    return out.reset_index()


def _ztest(k1, n1, k2, n2) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportions_ztest

    if n1 == 0 or n2 == 0:
        return float("nan"), float("nan")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        z, p = proportions_ztest(np.array([k1, k2]), np.array([n1, n2]))
    return float(z), float(p)


def _mcnemar_exact(both, a_only, b_only, neither) -> float:
    from statsmodels.stats.contingency_tables import mcnemar

    if both + a_only + b_only + neither == 0:
        return float("nan")
    return float(mcnemar(np.array([[both, a_only], [b_only, neither]]), exact=True).pvalue)


def _pack(x: np.ndarray) -> np.ndarray:
    """Boolean questions × models → one bitset per model: (models, words) uint64."""
    packed = np.packbits(x.T, axis=1)  # (models, ceil(q / 8)) uint8
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(x)
    return _BYTE_POPCOUNT[x.view(np.uint8)].reshape(*x.shape, 8).sum(axis=-1)


def _and_counts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """out[i, j] = number of questions set in both bitset a[i] and b[j]."""
    out = np.empty((a.shape[0], b.shape[0]), dtype=np.int64)
    for i in range(a.shape[0]):  # a loop over models, not questions
        out[i] = _popcount(a[i] & b).sum(axis=1, dtype=np.int64)
    return out


def compare_models(
    benchmark: str | None = None,
    *,
    db: DbPath = None,
    scenario: str | None = "baseline",
    models=None,
    extra_exclusions: dict[str, set] | None = None,
) -> pd.DataFrame:
    """Pairwise model comparisons in one scenario (``None``: every scenario).

    Unpaired: each model's conditional accuracy over its valid answers in the
    scenario, compared with the two-proportion z-test (statsmodels
    ``proportions_ztest``, pooled).  Paired: over the questions both models
    answered validly, the 2×2 table of per-question correctness and
    McNemar's exact test (statsmodels ``mcnemar(exact=True)``).  Stars:
    ``*`` p < 0.05, ``**`` p < 0.01, ``***`` p < 0.001.

    Columns: scenario, model_a, model_b, n_a, correct_a, acc_a, n_b,
    correct_b, acc_b, diff_points ((acc_a − acc_b) × 100), z, p_ztest,
    sig_ztest, n_paired, both_correct, a_only, b_only, neither, p_mcnemar,
    sig_mcnemar.  ``model_a`` < ``model_b`` alphabetically.

    The counts come from one pass over the predictions: question × model
    boolean matrices of correct (C) and valid-but-wrong (W) answers, packed
    into bitsets per model; popcounts of ``C_a & C_b``, ``C_a & W_b``,
    ``W_a & C_b`` and ``W_a & W_b`` give every pair's 2×2 table (the
    equivalent of the matrix products Cᵀ C, Cᵀ W, … without floating point
    or BLAS threads).
    """
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        scope_obj = _ScenarioScope(con, benchmark, models, extra_exclusions)
        if scenario is not None and scenario not in scope_obj.scenarios:
            raise NotFoundError(f"no scenario '{scenario}' (known: {', '.join(scope_obj.scenarios)})")
        with scope_obj as scope:
            # per question: its class; per scenario: the classes it keeps;
            # per usable prediction: (question, model, correct)
            qcls = con.execute(f"WITH {_SCOPE_SQL} SELECT qn, cls FROM qc", scope.params).fetchnumpy()
            keep = con.execute(f"WITH {_SCOPE_SQL} SELECT scenario, cls FROM keep", scope.params).df()
            preds = con.execute(f"WITH {_SCOPE_SQL} SELECT qn, model_id, is_key FROM p", scope.params).fetchnumpy()
        scenarios = scope.scenarios if scenario is None else [scenario]
        names = list(scope.ms.models)  # model_id = position
    n_q, n_m = int(len(qcls["qn"])), len(names)
    cls_of_q = np.zeros(n_q, dtype=np.int64)
    cls_of_q[np.asarray(qcls["qn"], dtype=np.int64) - 1] = np.asarray(qcls["cls"], dtype=np.int64)
    # dense boolean matrices, questions × models: V = valid answer, C = correct answer
    V = np.zeros((n_q, n_m), dtype=bool)
    C = np.zeros((n_q, n_m), dtype=bool)
    qi = np.asarray(preds["qn"], dtype=np.int64) - 1
    mi = np.asarray(preds["model_id"], dtype=np.int64)
    V[qi, mi] = True
    C[qi, mi] = np.asarray(preds["is_key"], dtype=bool)
    order = sorted(range(n_m), key=lambda i: names[i])
    rows = []
    for sc in scenarios:
        mask = np.isin(cls_of_q, keep.loc[keep["scenario"] == sc, "cls"].to_numpy(dtype=np.int64))
        Vs, Cs = V[mask], C[mask]
        Ws = Vs & ~Cs  # valid but wrong
        n_valid, n_correct = Vs.sum(axis=0), Cs.sum(axis=0)
        # paired 2×2 cells for every pair at once
        pc, pw = _pack(Cs), _pack(Ws)
        both, a_only, b_only, neither = (
            _and_counts(pc, pc),
            _and_counts(pc, pw),
            _and_counts(pw, pc),
            _and_counts(pw, pw),
        )
        for ia, ib in combinations(order, 2):
            n_a, k_a, n_b, k_b = int(n_valid[ia]), int(n_correct[ia]), int(n_valid[ib]), int(n_correct[ib])
            cells = (int(both[ia, ib]), int(a_only[ia, ib]), int(b_only[ia, ib]), int(neither[ia, ib]))
            acc_a = k_a / n_a if n_a else float("nan")
            acc_b = k_b / n_b if n_b else float("nan")
            z, p_z = _ztest(k_a, n_a, k_b, n_b)
            p_m = _mcnemar_exact(*cells)
            a, b = names[ia], names[ib]
            rows.append(
                {
                    "scenario": sc, "model_a": a, "model_b": b,
                    "n_a": n_a, "correct_a": k_a, "acc_a": acc_a,
                    "n_b": n_b, "correct_b": k_b, "acc_b": acc_b,
                    "diff_points": (acc_a - acc_b) * 100.0,
                    "z": z, "p_ztest": p_z, "sig_ztest": significance_stars(p_z),
                    "n_paired": sum(cells), "both_correct": cells[0], "a_only": cells[1],
                    "b_only": cells[2], "neither": cells[3],
                    "p_mcnemar": p_m, "sig_mcnemar": significance_stars(p_m),
                }
            )
    cols = ["scenario", "model_a", "model_b", "n_a", "correct_a", "acc_a", "n_b", "correct_b", "acc_b",
            "diff_points", "z", "p_ztest", "sig_ztest", "n_paired", "both_correct", "a_only", "b_only",
            "neither", "p_mcnemar", "sig_mcnemar"]
    return pd.DataFrame(rows, columns=cols)


__all__ = ["scenario_table", "scenario_summary", "compare_models", "SCENARIOS"]
