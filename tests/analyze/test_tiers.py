"""Agreement tiers: the SQL rule against an independent pure-Python
reference, the real MMLU-Redux counts, lint, config recording, atomicity and
the CLI."""
from __future__ import annotations

import ast
import json

import duckdb
import pandas as pd
import pytest

from audit.analyze import analyze_benchmark, audit_lint, audit_results, tier_counts
from audit.errors import InputError, NotFoundError
from tests.conftest import db_snapshot
from tests.support.analyze_data import make_benchmark, random_benchmark, reference_tiers, run_cli


def _results(db, run_id):
    con = duckdb.connect(str(db), read_only=True)
    try:
        df = con.execute("SELECT * FROM audit_results WHERE run_id = ? ORDER BY question_id", [run_id]).df()
    finally:
        con.close()
    return df


def _assert_matches_reference(db, run_id, ref):
    got = _results(db, run_id).set_index("question_id")
    assert sorted(got.index) == sorted(ref)
    for qid, exp in ref.items():
        row = got.loc[qid]
        tier = None if pd.isna(row["tier"]) else int(row["tier"])
        actual = {
            "tier": tier,
            "top_answer": None if pd.isna(row["top_answer"]) else row["top_answer"],
            "agreement_count": int(row["agreement_count"]),
            "agreeing_families": int(row["agreeing_families"]),
            "n_valid": int(row["n_valid"]),
            "n_correct": int(row["n_correct"]),
        }
        assert actual == exp, qid
        assert row["bucket"] == _bucket(exp, int(row["n_models"]))


def _bucket(exp, n_models):
    """The bucket the reference's tier implies."""
    if exp["tier"] is not None:
        return f"tier{exp['tier']}"
    return "needs_two_models" if n_models < 2 else "no_prediction" if exp["n_valid"] == 0 else "incomplete"


# ------------------------------------------------------------ reference check


@pytest.mark.parametrize("seed", range(8))
def test_sql_rule_matches_python_reference_on_random_data(tmp_path, seed):
    db = tmp_path / "r.duckdb"
    questions, families, preds = random_benchmark(seed, n_questions=80)
    make_benchmark(db, "rand", questions, families, preds)
    n = len(families)
    # every model has at least one prediction in 80 questions at these rates
    configs = [dict(), dict(separate=True)]
    if n >= 3:
        configs += [dict(t1=n - 1, t2=n - 2), dict(t1=n - 1), dict(t1=2, t2=2, separate=True)]
    for cfg in configs:
        separate = cfg.pop("separate", False)
        s = analyze_benchmark("rand", db=db, incomplete="separate" if separate else "tier", preset="tlue4", **cfg)
        ref = reference_tiers(questions, families, preds, separate=separate, **cfg)
        _assert_matches_reference(db, s.run_id, ref)
        counts = {b: n for b, n in s.runs[0].counts.items() if n}
        exp = pd.Series([_bucket(r, n) for r in ref.values()]).value_counts()
        assert counts == exp.to_dict()


def test_model_subset_uses_only_those_models(tmp_path):
    db = tmp_path / "r.duckdb"
    questions, families, preds = random_benchmark(99, n_questions=80, n_models=7, n_families=3)
    make_benchmark(db, "rand", questions, families, preds)
    subset = ["m01", "m03", "m04", "m06"]
    s = analyze_benchmark("rand", db=db, models=",".join(subset), preset="tlue4")
    assert s.runs[0].models == tuple(subset)
    _assert_matches_reference(db, s.run_id, reference_tiers(questions, families, preds, models=subset))


def test_every_tier_occurs_in_the_random_data(tmp_path):
    # guards the reference test against data too bland to exercise the rule
    db = tmp_path / "r.duckdb"
    questions, families, preds = random_benchmark(5, n_questions=300, n_models=6, n_families=3)
    make_benchmark(db, "rand", questions, families, preds)
    counts = analyze_benchmark("rand", db=db, preset="tlue4").runs[0].counts
    assert all(counts[f"tier{t}"] > 0 for t in range(6)), counts


# --------------------------------------------------------------- hand cases


FAM = {"a1": "a", "a2": "a", "b1": "b", "c1": "c"}


def _one_question(tmp_path, answers, key="A", k=4, families=FAM, **kw):
    db = tmp_path / "h.duckdb"
    db.unlink(missing_ok=True)
    preds = {("q", m): a for m, a in answers.items() if a != "-"}
    make_benchmark(db, "h", [("q", k, key)], families, preds)
    analyze_benchmark("h", db=db, **{"preset": "tlue4", **kw})
    return audit_results("h", db=db).iloc[0]


def test_tier1_all_models_agree_on_a_non_key_answer(tmp_path):
    r = _one_question(tmp_path, {"a1": "C", "a2": "C", "b1": "C", "c1": "C"})
    assert (r["tier"], r["top_answer"], r["agreement_count"], r["agreeing_families"]) == (1, "C", 4, 3)


def test_tier2_all_but_one(tmp_path):
    r = _one_question(tmp_path, {"a1": "C", "a2": "C", "b1": "C", "c1": "A"})
    assert (r["tier"], r["n_correct"]) == (2, 1)


def test_invalid_prediction_never_agrees(tmp_path):
    # 3 of 4 agree, the 4th is invalid: not Tier 1 (needs 4), Tier 2 (3 = N-1)
    r = _one_question(tmp_path, {"a1": "C", "a2": "C", "b1": "C", "c1": None})
    assert (r["tier"], r["n_valid"]) == (2, 3)
    # a letter outside the item's options is not valid either
    r = _one_question(tmp_path, {"a1": "C", "a2": "C", "b1": "C", "c1": "E"})
    assert (r["tier"], r["n_valid"]) == (2, 3)


def test_tier3_needs_two_families_tier4_one(tmp_path):
    r = _one_question(tmp_path, {"a1": "B", "a2": "A", "b1": "B", "c1": "A"})
    assert (r["tier"], r["agreeing_families"]) == (3, 2)
    r = _one_question(tmp_path, {"a1": "B", "a2": "B", "b1": "A", "c1": "A"})
    assert (r["tier"], r["agreeing_families"]) == (4, 1)


def test_tier5_and_tier0(tmp_path):
    r = _one_question(tmp_path, {"a1": "B", "a2": "C", "b1": "D", "c1": "A"})
    assert (r["tier"], r["agreement_count"]) == (5, 1)
    assert r["top_answer"] == "B"  # ties on count and families: letter ascending
    r = _one_question(tmp_path, {"a1": "A", "a2": "A", "b1": None, "c1": "-"})
    assert (r["tier"], r["top_answer"], r["agreement_count"], r["n_valid"]) == (0, None, 0, 2)


def test_ranking_prefers_more_families_on_equal_count(tmp_path):
    fams = {"a1": "a", "a2": "a", "b1": "b", "c1": "c", "d1": "d"}
    # D: a1+a2 (one family), C: b1+c1 (two families) -> C ranks first -> Tier 3
    r = _one_question(tmp_path, {"a1": "D", "a2": "D", "b1": "C", "c1": "C", "d1": "A"}, families=fams)
    assert (r["top_answer"], r["tier"]) == ("C", 3)
    # count beats families: D by 3 of one family beats C by 2 of two families -> Tier 4
    fams2 = {"a1": "a", "a2": "a", "a3": "a", "b1": "b", "c1": "c", "d1": "d"}
    r = _one_question(tmp_path, {"a1": "D", "a2": "D", "a3": "D", "b1": "C", "c1": "C", "d1": "A"}, families=fams2)
    assert (r["top_answer"], r["agreement_count"], r["tier"]) == ("D", 3, 4)


def test_incomplete_separate_bucket(tmp_path):
    db = tmp_path / "s.duckdb"
    preds = {("q1", m): "C" for m in ("a1", "a2", "b1")}  # c1 missing on q1
    preds.update({("q2", m): "A" for m in FAM})
    preds[("q3", "a1")] = None  # invalid
    preds.update({("q3", m): "B" for m in ("a2", "b1", "c1")})
    make_benchmark(db, "s", [("q1", 4, "A"), ("q2", 4, "A"), ("q3", 4, "A")], FAM, preds)
    analyze_benchmark("s", db=db, incomplete="separate", preset="tlue4")
    res = audit_results("s", db=db).set_index("question_id")
    assert res["bucket"].to_dict() == {"q1": "incomplete", "q2": "tier0", "q3": "incomplete"}
    assert res["tier"].isna().tolist() == [True, False, True]
    tc = tier_counts("s", db=db)
    assert tc.set_index("bucket")["n"].to_dict() == {
        "tier0": 1, "tier1": 0, "tier2": 0, "tier3": 0, "tier4": 0, "tier5": 0, "incomplete": 2}
    # with the default policy the same questions get tiers from their valid predictions
    analyze_benchmark("s", db=db, preset="tlue4")
    assert audit_results("s", db=db)["tier"].tolist() == [2, 0, 2]


def test_t1_t2_thresholds(tmp_path):
    answers = {"a1": "C", "a2": "C", "b1": "C", "c1": "A"}
    assert _one_question(tmp_path, answers, t1=3)["tier"] == 1
    assert _one_question(tmp_path, answers, t1=4, t2=2)["tier"] == 2
    assert _one_question(tmp_path, {"a1": "C", "a2": "C", "b1": "A", "c1": "A"}, t1=4, t2=2)["tier"] == 2


# ------------------------------------------------------------- real data


@pytest.mark.slow
@pytest.mark.shared_data
def test_mmlu_redux_default_rule_counts(mmlu_redux_dir, tmp_path):
    from audit.ingest import import_mmlu_redux

    db = tmp_path / "redux.duckdb"
    import_mmlu_redux(mmlu_redux_dir, db=db)
    s = analyze_benchmark("mmlu-redux", db=db, preset="tlue4")
    run = s.runs[0]
    assert (run.n_questions, run.n_models) == (1500, 14)
    tc = tier_counts("mmlu-redux", db=db)
    assert dict(zip(tc["tier"].astype(int), tc["n"])) == {0: 813, 1: 27, 2: 22, 3: 488, 4: 47, 5: 103}

    # the same, question by question, from the CSV files with the Python reference
    questions, preds, families = [], {}, {}
    for f in sorted(mmlu_redux_dir.glob("*.csv")):
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        for i, row in df.iterrows():
            qid = f"{f.stem}/{i}"
            k = len(ast.literal_eval(row["choices"]))
            questions.append((qid, k, "ABCDEF"[int(row["groundtruth_answer"])]))
            for m in df.columns[4:]:
                families[m] = m.split("_", 1)[0]
                preds[(qid, m)] = row[m].strip()
    _assert_matches_reference(db, s.run_id, reference_tiers(questions, families, preds))

    # separate: the incomplete bucket is exactly the questions with an invalid cell
    s2 = analyze_benchmark("mmlu-redux", db=db, incomplete="separate", preset="tlue4")
    n_incomplete = sum(1 for q in questions if any(preds[(q[0], m)] not in set("ABCDEF"[: q[1]]) for m in families))
    assert s2.runs[0].counts["incomplete"] == n_incomplete > 0
    assert sum(s2.runs[0].counts.values()) == 1500
    # the current_audit view follows the latest run
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT DISTINCT run_id FROM current_audit").fetchall() == [(s2.run_id,)]
    finally:
        con.close()


# ------------------------------------------------------- lint and recording


def test_lint_kinds(tmp_path):
    db = tmp_path / "l.duckdb"
    questions = [(f"q{i:02d}", 4, "A") for i in range(20)]
    questions[3] = ("q03", 4, "E")  # key outside the options
    questions[4] = ("q04", 4, None)  # no key
    fams = {"const": "x", "ninety": "y", "varied": "z"}
    preds = {}
    for i, q in enumerate(questions):
        preds[(q[0], "const")] = "B"
        preds[(q[0], "ninety")] = "C" if i < 18 else "D"  # 18/20 = 90%: flagged
        preds[(q[0], "varied")] = "ABCD"[i % 4]
    preds[("q00", "const")] = None  # 19/20 = 95% B, still constant
    make_benchmark(
        db,
        "l",
        questions,
        fams,
        preds,
        option_texts={"q07": ["x", "same  text", "same text", "y"], "q08": ["GG", "gg", "Gg", "y"]},
    )  # case differs: not duplicates
    s = analyze_benchmark("l", db=db)
    lint = audit_lint("l", db=db)
    assert s.runs[0].n_lint == len(lint)
    kinds = lint.groupby("kind")
    assert sorted(kinds.get_group("key_not_in_options")["question_id"]) == ["q03", "q04"]
    dup = kinds.get_group("duplicate_options")
    assert dup["question_id"].tolist() == ["q07"] and "B = C" in dup["detail"].iloc[0]
    const = kinds.get_group("constant_predictor")
    assert sorted(const["model"]) == ["const", "ninety"]
    assert "95.0%" in const.set_index("model").loc["const", "detail"]


def test_run_config_and_model_set_recorded(tmp_path):
    db = tmp_path / "c.duckdb"
    questions, families, preds = random_benchmark(3, n_questions=30, n_models=5, n_families=2)
    make_benchmark(db, "c", questions, families, preds)
    s = analyze_benchmark("c", db=db, t1=4, t2=3, incomplete="separate")
    con = duckdb.connect(str(db), read_only=True)
    try:
        bench, config, models = con.execute(
            "SELECT benchmark, config, models FROM audit_runs WHERE run_id = ?", [s.run_id]).fetchall()[0]
    finally:
        con.close()
    config = json.loads(config)
    assert bench == "c" and models == sorted(families)
    assert (config["t1"], config["t2"], config["incomplete"], config["n_models"]) == (4, 3, "separate", 5)
    assert config["families"] == families and set(config["runs"].values()) == {"default"}


def test_all_benchmarks_one_run_each_and_skip_without_predictions(tmp_path):
    db = tmp_path / "m.duckdb"
    for i, name in enumerate(["x", "y"]):
        q, f, p = random_benchmark(10 + i, n_questions=25, n_models=4, n_families=2)
        make_benchmark(db, name, q, f, p)
    make_benchmark(db, "empty", [("q1", 4, "A")], {}, {})
    s = analyze_benchmark(db=db)
    assert [r.benchmark for r in s.runs] == ["x", "y"] and s.skipped == ("empty",)
    assert len({r.run_id for r in s.runs}) == 2
    assert set(s.counts()["benchmark"]) == {"x", "y"}
    with pytest.raises(NotFoundError, match="no predictions"):
        analyze_benchmark("empty", db=db)


def test_failure_midway_leaves_database_unchanged(tmp_path, monkeypatch):
    import audit.analyze.tiers as tiers

    db = tmp_path / "a.duckdb"
    for name in ["x", "y"]:
        q, f, p = random_benchmark(20, n_questions=20, n_models=3, n_families=2)
        make_benchmark(db, name, q, f, p)
    analyze_benchmark("x", db=db)
    before = db_snapshot(db)
    calls = {"n": 0}
    original = tiers._analyze_one

    def failing(con, name, *a):
        calls["n"] += 1
        if calls["n"] == 2:  # the second benchmark fails after the first was written
            raise RuntimeError("boom")
        return original(con, name, *a)

    monkeypatch.setattr(tiers, "_analyze_one", failing)
    with pytest.raises(RuntimeError):
        analyze_benchmark(db=db)
    assert db_snapshot(db) == before


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(t1=5), InputError, "t1 must be between 1 and the number of models"),
        (dict(t1=0), InputError, "t1 must be"),
        (dict(t1=3, t2=4), InputError, "t2 must be between 1 and t1"),
        (dict(models="m00,nobody"), NotFoundError, "nobody"),
        (dict(models="m00,m00"), InputError, "twice"),
        (dict(incomplete="drop"), InputError, "incomplete must be"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, error, match):
    db = tmp_path / "b.duckdb"
    q, f, p = random_benchmark(1, n_questions=10, n_models=4, n_families=2)
    make_benchmark(db, "b", q, f, p)
    before = db_snapshot(db)
    with pytest.raises(error, match=match):
        analyze_benchmark("b", db=db, **kwargs)
    assert db_snapshot(db) == before


def test_unknown_benchmark_and_not_analysed(tmp_path):
    db = tmp_path / "u.duckdb"
    q, f, p = random_benchmark(1, n_questions=5, n_models=2, n_families=1)
    make_benchmark(db, "b", q, f, p)
    with pytest.raises(NotFoundError, match="no benchmark named 'nope'"):
        analyze_benchmark("nope", db=db)
    with pytest.raises(NotFoundError, match="not been analysed"):
        tier_counts("b", db=db)


def test_cli_analyze_prints_counts_and_fails_in_one_line(tmp_path):
    db = tmp_path / "cli.duckdb"
    fams = {"a1": "a", "b1": "b", "c1": "c"}
    preds = {("q1", m): "B" for m in fams}
    preds.update({("q2", m): "A" for m in fams})
    make_benchmark(db, "cli", [("q1", 4, "A"), ("q2", 4, "A")], fams, preds)
    r = run_cli("analyze", "--benchmark", "cli", "--preset", "tlue4", db=db)
    assert r.returncode == 0, r.stderr
    assert "Tier 1          1" in r.stdout and "Tier 0          1" in r.stdout
    r = run_cli(
        "analyze",
        "--benchmark",
        "cli",
        "--preset",
        "tlue4",
        "--t1",
        "2",
        "--t2",
        "1",
        "--incomplete",
        "separate",
        db=db,
    )
    assert r.returncode == 0 and "t1=2, t2=1, incomplete=separate" in r.stdout
    before = db_snapshot(db)
    r = run_cli("analyze", "--benchmark", "cli", "--preset", "tlue4", "--t1", "9", db=db)
    assert r.returncode == 1 and r.stderr.strip().count("\n") == 0
    assert r.stderr.startswith("error: t1 must be between 1 and the number of models (3)")
    assert db_snapshot(db) == before
