"""Filtering scenarios and pairwise comparisons, checked against pandas
counts and independent scipy computations (binomtest for McNemar's exact
test, a closed-form pooled z for the two-proportion test)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, norm

from audit.analyze import analyze_benchmark, audit_results, compare_models, model_metrics, scenario_table
from audit.analyze._stats import significance_stars
from audit.errors import InputError, NotFoundError
from tests.support.analyze_data import make_benchmark, random_benchmark
from tests.support.common import copy_db


def _analysed(db, _folder):
    make_benchmark(db, "s", *random_benchmark(11, n_questions=200, n_models=5, n_families=3))
    analyze_benchmark("s", db=db)


@pytest.fixture
def rand_db(tmp_path, db_template):
    db = copy_db(db_template(_analysed), tmp_path / "s.duckdb")
    questions, families, preds = random_benchmark(11, n_questions=200, n_models=5, n_families=3)
    return db, questions, families, preds


def _long(questions, families, preds, tiers):
    rows = []
    for qid, k, key, *_ in questions:
        for m in families:
            a = preds.get((qid, m))
            valid = a is not None and a in "ABCDEF"[:k]
            rows.append((qid, tiers[qid], m, valid, valid and a == key))
    return pd.DataFrame(rows, columns=["question_id", "tier", "model", "valid", "correct"])


def test_scenarios_match_pandas(rand_db):
    db, questions, families, preds = rand_db
    tiers = audit_results("s", db=db).set_index("question_id")["tier"].to_dict()
    long = _long(questions, families, preds, tiers)
    extra = {"excl_custom": {"q000", "q001", "q002", "zzz-not-in-benchmark"}}
    got = scenario_table("s", db=db, extra_exclusions=extra)
    assert got["scenario"].unique().tolist() == ["baseline", "excl_tier1", "excl_tier1-2", "excl_tier1-3",
                                                 "excl_tier1-4", "excl_custom"]
    masks = {
        "baseline": long["tier"] < 99,
        "excl_tier1": ~long["tier"].isin([1]),
        "excl_tier1-2": ~long["tier"].isin([1, 2]),
        "excl_tier1-3": ~long["tier"].isin([1, 2, 3]),
        "excl_tier1-4": ~long["tier"].isin([1, 2, 3, 4]),
        "excl_custom": ~long["question_id"].isin(extra["excl_custom"]),
    }
    base = None
    for name, mask in masks.items():
        sub = long[mask]
        exp = sub.groupby("model").agg(n_questions=("question_id", "size"), n_valid=("valid", "sum"),
                                       n_correct=("correct", "sum"))
        g = got[got["scenario"] == name].set_index("model")
        pd.testing.assert_frame_equal(g[["n_questions", "n_valid", "n_correct"]], exp, check_dtype=False)
        acc = exp["n_correct"] / exp["n_valid"]
        np.testing.assert_allclose(g["conditional_accuracy"], acc)
        base = acc if name == "baseline" else base
        np.testing.assert_allclose(g["delta_points"], (acc - base) * 100, atol=1e-9)
        assert (g["n_excluded"] == 200 - exp["n_questions"]).all()
        assert (g["conditional_accuracy_low"] <= acc).all() and (acc <= g["conditional_accuracy_high"]).all()
    # baseline = model_metrics' conditional accuracy
    mm = model_metrics("s", db=db).set_index("model")
    b = got[got["scenario"] == "baseline"].set_index("model")
    np.testing.assert_allclose(b["conditional_accuracy"], mm["conditional_accuracy"])
    np.testing.assert_allclose(b["conditional_accuracy_low"], mm["conditional_accuracy_low"])


def test_incomplete_bucket_is_never_excluded_by_tier_scenarios(tmp_path):
    db = tmp_path / "i.duckdb"
    fams = {"a": "x", "b": "y", "c": "z"}
    preds = {("q1", "a"): "B", ("q1", "b"): "B"}  # c missing on q1 -> incomplete
    preds.update({(q, m): "B" for q in ("q2",) for m in fams})  # Tier 1
    preds.update({(q, m): "A" for q in ("q3",) for m in fams})  # Tier 0
    make_benchmark(db, "i", [("q1", 4, "A"), ("q2", 4, "A"), ("q3", 4, "A")], fams, preds)
    analyze_benchmark("i", db=db, incomplete="separate")
    got = scenario_table("i", db=db)
    n = got.groupby("scenario")["n_questions"].first().to_dict()
    assert n == {"baseline": 3, "excl_tier1": 2, "excl_tier1-2": 2, "excl_tier1-3": 2, "excl_tier1-4": 2}


def test_scenario_errors(rand_db, tmp_path):
    db = rand_db[0]
    with pytest.raises(InputError, match="already exists"):
        scenario_table("s", db=db, extra_exclusions={"baseline": {"q000"}})
    with pytest.raises(NotFoundError, match="no scenario 'nope'"):
        compare_models("s", db=db, scenario="nope")
    db2 = tmp_path / "n.duckdb"
    make_benchmark(db2, "n", [("q1", 4, "A")], {"m": "f"}, {("q1", "m"): "A"})
    with pytest.raises(NotFoundError, match="not been analysed"):
        scenario_table("n", db=db2)


def test_compare_models_against_scipy(rand_db):
    db, questions, families, preds = rand_db
    tiers = audit_results("s", db=db).set_index("question_id")["tier"].to_dict()
    long = _long(questions, families, preds, tiers)
    got = compare_models("s", db=db, scenario="excl_tier1-2")
    models = sorted(families)
    assert len(got) == len(models) * (len(models) - 1) // 2
    sub = long[~long["tier"].isin([1, 2])]
    valid = sub[sub["valid"]].pivot(index="question_id", columns="model", values="correct")
    checked_nonsig = 0
    for r in got.itertuples():
        a, b = valid[r.model_a].dropna(), valid[r.model_b].dropna()
        # unpaired two-proportion z-test, pooled variance, closed form
        k1, n1, k2, n2 = a.sum(), len(a), b.sum(), len(b)
        pool = (k1 + k2) / (n1 + n2)
        z = (k1 / n1 - k2 / n2) / np.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
        assert (r.n_a, r.correct_a, r.n_b, r.correct_b) == (n1, k1, n2, k2)
        assert r.z == pytest.approx(z, rel=1e-9)
        assert r.p_ztest == pytest.approx(2 * norm.sf(abs(z)), rel=1e-9)
        # paired: questions both answered; McNemar exact = binomial test on the discordant pairs
        both = valid[[r.model_a, r.model_b]].dropna().astype(bool)
        a_only = int((both[r.model_a] & ~both[r.model_b]).sum())
        b_only = int((~both[r.model_a] & both[r.model_b]).sum())
        assert (r.n_paired, r.a_only, r.b_only) == (len(both), a_only, b_only)
        assert r.both_correct == int((both[r.model_a] & both[r.model_b]).sum())
        p_exact = binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
        assert r.p_mcnemar == pytest.approx(p_exact, rel=1e-9)
        assert r.sig_mcnemar == significance_stars(p_exact)
        checked_nonsig += r.sig_mcnemar == ""
    assert checked_nonsig > 0


def test_compare_models_detects_a_real_difference(tmp_path):
    # model 'good' right on 90 of 100, 'bad' on 60: McNemar and z both significant
    db = tmp_path / "d.duckdb"
    questions = [(f"q{i:03d}", 4, "A") for i in range(100)]
    preds = {}
    for i, (qid, *_) in enumerate(questions):
        preds[(qid, "good")] = "A" if i < 90 else "B"
        preds[(qid, "bad")] = "A" if i < 60 else "C"
    make_benchmark(db, "d", questions, {"good": "g", "bad": "b"}, preds)
    analyze_benchmark("d", db=db)
    r = compare_models("d", db=db).iloc[0]
    assert (r["model_a"], r["model_b"], r["a_only"], r["b_only"]) == ("bad", "good", 0, 30)
    assert r["p_mcnemar"] == pytest.approx(binomtest(0, 30, 0.5).pvalue)
    assert r["sig_mcnemar"] == "***" and r["sig_ztest"] == "***"
    all_scen = compare_models("d", db=db, scenario=None)
    assert all_scen["scenario"].nunique() == 5


def test_significance_stars_thresholds():
    assert [significance_stars(p) for p in (0.05, 0.0499, 0.01, 0.0099, 0.001, 0.00099, None)] == [
        "", "*", "*", "**", "**", "***", ""]


@pytest.mark.parametrize("n_q", [1, 7, 64, 65, 130, 1001])
def test_pair_counts_from_bitsets_match_integer_products(n_q, monkeypatch):
    from audit.analyze import scenarios as S

    rng = np.random.default_rng(n_q)
    x, y = rng.random((n_q, 5)) < 0.5, rng.random((n_q, 5)) < 0.3
    expected = x.T.astype(np.int64) @ y.astype(np.int64)
    assert (S._and_counts(S._pack(x), S._pack(y)) == expected).all()
    monkeypatch.delattr(np, "bitwise_count", raising=False)  # the numpy < 2 path
    assert (S._and_counts(S._pack(x), S._pack(y)) == expected).all()
