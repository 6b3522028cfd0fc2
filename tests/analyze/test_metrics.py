"""Wilson intervals, per-model metrics and item difficulty, checked against
independent computations (closed-form Wilson with scipy's normal quantile,
pandas counts straight from the source CSVs)."""
from __future__ import annotations

import ast

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from audit.analyze import item_difficulty, model_metrics, wilson_interval
from audit.analyze._metrics import difficulty_band
from audit.errors import InputError
from tests.support.analyze_data import make_benchmark, random_benchmark


def wilson_closed_form(k, n, confidence=0.95):
    z = norm.ppf(1 - (1 - confidence) / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


# ------------------------------------------------------------------ Wilson


def test_wilson_methodology_example_is_the_correct_interval():
    low, high = wilson_interval(447, 657)
    assert round(100 * 447 / 657, 2) == 68.04
    assert (round(100 * low, 2), round(100 * high, 2)) == (64.37, 71.49)
    # the methodology document prints [64.44%, 71.43%]: that is not Wilson at z = 1.96
    assert (round(100 * low, 2), round(100 * high, 2)) != (64.44, 71.43)
    exp_low, exp_high = wilson_closed_form(447, 657)
    assert low == pytest.approx(exp_low, abs=1e-12) and high == pytest.approx(exp_high, abs=1e-12)


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_wilson_vectorised_matches_closed_form(confidence):
    rng = np.random.default_rng(7)
    n = rng.integers(1, 2000, size=500)
    k = rng.integers(0, n + 1)
    k[:5], n[:5] = 0, [1, 2, 10, 100, 1000]  # edges: no successes
    k[5:10] = n[5:10]  # all successes
    low, high = wilson_interval(k, n, confidence)
    exp_low, exp_high = wilson_closed_form(k.astype(float), n.astype(float), confidence)
    np.testing.assert_allclose(low, np.clip(exp_low, 0, 1), atol=1e-12)
    np.testing.assert_allclose(high, np.clip(exp_high, 0, 1), atol=1e-12)
    assert np.all((low <= k / n + 1e-12) & (k / n <= high + 1e-12))


def test_wilson_edges():
    low, high = wilson_interval([0, 3], [0, 3])
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert high[1] == 1.0 and 0 < low[1] < 1
    with pytest.raises(ValueError):
        wilson_interval(5, 4)
    with pytest.raises(ValueError):
        wilson_interval(1, 4, confidence=1.5)
    assert isinstance(wilson_interval(1, 4)[0], float)


# ---------------------------------------------------------- model metrics


@pytest.fixture
def redux_db(mmlu_redux_dir, tmp_path):
    from audit.ingest import import_mmlu_redux

    db = tmp_path / "redux.duckdb"
    import_mmlu_redux(mmlu_redux_dir, db=db)
    return db


def redux_long(mmlu_redux_dir) -> pd.DataFrame:
    """question_id, subject, key, model, answer (None when not a valid letter)."""
    rows = []
    for f in sorted(mmlu_redux_dir.glob("*.csv")):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        for i, row in df.iterrows():
            k = len(ast.literal_eval(row["choices"]))
            key = "ABCDEF"[int(row["groundtruth_answer"])]
            for m in df.columns[4:]:
                a = row[m].strip()
                rows.append((f"{f.stem}/{i}", f.stem, key, m, a if len(a) == 1 and a in "ABCDEF"[:k] else None))
    return pd.DataFrame(rows, columns=["question_id", "subject", "key", "model", "answer"])


@pytest.mark.slow
@pytest.mark.shared_data
def test_model_metrics_match_pandas_on_mmlu_redux(redux_db, mmlu_redux_dir):
    long = redux_long(mmlu_redux_dir)
    long["valid"] = long["answer"].notna()
    long["correct"] = long["answer"] == long["key"]
    exp = long.groupby("model").agg(n_questions=("question_id", "size"), n_valid=("valid", "sum"),
                                    n_correct=("correct", "sum"))
    got = model_metrics("mmlu-redux", db=redux_db).set_index("model")
    assert len(got) == 14
    pd.testing.assert_frame_equal(got[["n_questions", "n_valid", "n_correct"]], exp, check_dtype=False)
    np.testing.assert_allclose(got["accuracy"], exp["n_correct"] / exp["n_questions"])
    np.testing.assert_allclose(got["conditional_accuracy"], exp["n_correct"] / exp["n_valid"])
    np.testing.assert_allclose(got["response_rate"], exp["n_valid"] / exp["n_questions"])
    lo, hi = wilson_closed_form(exp["n_correct"].to_numpy(float), exp["n_valid"].to_numpy(float))
    np.testing.assert_allclose(got["conditional_accuracy_low"], lo, atol=1e-12)
    np.testing.assert_allclose(got["conditional_accuracy_high"], hi, atol=1e-12)
    assert (got["family"] == got.index.str.split("_").str[0]).all()

    by_subject = model_metrics("mmlu-redux", db=redux_db, by_subject=True)
    assert len(by_subject) == 14 * 15
    exp_s = long.groupby(["model", "subject"]).agg(n_valid=("valid", "sum"), n_correct=("correct", "sum"))
    got_s = by_subject.set_index(["model", "subject"])
    assert (got_s["n_questions"] == 100).all()
    pd.testing.assert_frame_equal(got_s[["n_valid", "n_correct"]], exp_s, check_dtype=False)


@pytest.mark.slow
@pytest.mark.shared_data
def test_corrected_keys_and_exclusions(redux_db, mmlu_redux_dir):
    long = redux_long(mmlu_redux_dir)
    # correct the key of every 'wrong_groundtruth' item to the letter most models chose
    labels = pd.concat(
        [
            pd.read_csv(f, dtype=str, keep_default_na=False).assign(
                question_id=lambda d, s=f.stem: [f"{s}/{i}" for i in range(len(d))]
            )
            for f in sorted(mmlu_redux_dir.glob("*.csv"))
        ]
    )
    wrong = set(labels.loc[labels["error_type"] == "wrong_groundtruth", "question_id"])
    majority = (long[long["question_id"].isin(wrong) & long["answer"].notna()]
                .groupby("question_id")["answer"].agg(lambda s: s.value_counts().sort_index().idxmax()))
    keys = majority.rename("answer_key").reset_index()
    drop = set(labels.loc[labels["error_type"] == "no_correct_answer", "question_id"])

    eff = long.merge(keys, on="question_id", how="left")
    eff["key"] = eff["answer_key"].fillna(eff["key"])
    eff = eff[~eff["question_id"].isin(drop)]
    eff["correct"] = eff["answer"] == eff["key"]
    exp = eff.groupby("model").agg(n_questions=("question_id", "size"), n_valid=("answer", "count"),
                                   n_correct=("correct", "sum"))
    got = model_metrics("mmlu-redux", db=redux_db, keys=keys, exclude=drop | {"not/a/question"}).set_index("model")
    pd.testing.assert_frame_equal(got[["n_questions", "n_valid", "n_correct"]], exp, check_dtype=False)
    base = model_metrics("mmlu-redux", db=redux_db).set_index("model")
    assert (got["n_questions"] == 1500 - len(drop)).all()
    assert (got["n_correct"] != base["n_correct"]).any()


def test_rates_are_over_the_items_asked_and_models_filter(tmp_path):
    """An invalid answer counts against the model; an item it was never asked
    (no prediction row) does not: its rates are over the items asked, and the
    coverage says how many of the benchmark's those are."""
    db = tmp_path / "m.duckdb"
    fams = {"m1": "a", "m2": "b"}
    preds = {("q1", "m1"): "A", ("q2", "m1"): "B", ("q3", "m1"): None, ("q1", "m2"): "A"}
    make_benchmark(db, "b", [("q1", 4, "A"), ("q2", 4, "A"), ("q3", 2, "B"), ("q4", 3, "C")], fams, preds)
    got = model_metrics("b", db=db).set_index("model")
    assert got.loc["m1", ["n_questions", "n_asked", "n_valid", "n_correct"]].tolist() == [4, 3, 2, 1]
    assert got.loc["m2", ["n_questions", "n_asked", "n_valid", "n_correct"]].tolist() == [4, 1, 1, 1]
    assert got.loc["m1", "accuracy"] == 1 / 3 and got.loc["m1", "response_rate"] == 2 / 3
    assert got.loc["m2", "accuracy"] == 1.0 and got.loc["m2", "coverage"] == 0.25
    assert got.loc["m2", "conditional_accuracy"] == 1.0
    only = model_metrics("b", db=db, models=["m2"])
    assert only["model"].tolist() == ["m2"]


def test_keys_validation(tmp_path):
    db = tmp_path / "k.duckdb"
    make_benchmark(db, "b", [("q1", 4, "A")], {"m": "f"}, {("q1", "m"): "A"})
    with pytest.raises(InputError, match="not in benchmark 'b': zz"):
        model_metrics("b", db=db, keys=pd.DataFrame({"question_id": ["zz"], "answer_key": ["A"]}))
    with pytest.raises(InputError, match="exclude"):
        model_metrics("b", db=db, keys=pd.DataFrame({"question_id": ["q1"], "answer_key": [None]}))
    with pytest.raises(InputError, match="twice"):
        model_metrics("b", db=db, keys=pd.DataFrame({"question_id": ["q1", "q1"], "answer_key": ["A", "B"]}))
    with pytest.raises(InputError, match="answer_key"):
        model_metrics("b", db=db, keys=pd.DataFrame({"question_id": ["q1"]}))


# --------------------------------------------------------------- difficulty


def test_difficulty_bands_cmilbench_and_scaled():
    bands14 = [difficulty_band(c, 14) for c in range(15)]
    assert bands14 == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3 + [4] * 3
    for n in (5, 8, 20, 100):
        bands = [difficulty_band(c, n) for c in range(n + 1)]
        sizes = np.bincount(bands, minlength=5)
        assert bands == sorted(bands) and bands[0] == 0 and bands[-1] == 4
        assert sizes.max() - sizes.min() <= 1  # near-equal widths


@pytest.mark.shared_data
def test_item_difficulty_on_mmlu_redux(redux_db, mmlu_redux_dir):
    long = redux_long(mmlu_redux_dir)
    n_correct = (long["answer"] == long["key"]).groupby(long["question_id"]).sum()
    got = item_difficulty("mmlu-redux", db=redux_db).set_index("question_id")
    assert len(got) == 1500 and (got["n_models"] == 14).all()
    assert (got["n_correct"] == n_correct.reindex(got.index)).all()
    assert (got["chance_rate"] == 0.25).all()
    expected_band = (n_correct.reindex(got.index) // 3).map(dict(enumerate(
        ["very hard", "hard", "medium", "easy", "very easy"])))
    assert (got["band"] == expected_band).all()
    assert (got["above_chance"] == (got["n_correct"] / 14 > 0.25)).all()


def test_item_difficulty_chance_rate_by_option_count(tmp_path):
    db = tmp_path / "d.duckdb"
    questions, families, preds = random_benchmark(2, n_questions=40, n_models=5)
    make_benchmark(db, "d", questions, families, preds)
    got = item_difficulty("d", db=db).set_index("question_id")
    for qid, k, key, *_ in questions:
        assert got.loc[qid, "chance_rate"] == pytest.approx(1 / k)
        exp = sum(1 for m in families if preds.get((qid, m)) == key and key in "ABCDEF"[:k])
        assert got.loc[qid, "n_correct"] == exp
        assert got.loc[qid, "band_index"] == (5 * exp) // 6
