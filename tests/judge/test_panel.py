"""Several judges: agreement matrix (checked against a closed-form kappa),
cross-family panel, judge scenarios and set sizes, the report hook, the CLI."""
from __future__ import annotations

import json
import math

import duckdb
import pytest

from audit.judge import import_judge, judge_agreement, judge_scenarios, panel_verdict, save_panel
from audit.judge.panel import agreement_report_from
from tests.judge.test_bias import JUDGE, N_DISPUTED, build
from tests.support.judge_server import make_benchmark, run_cli

# answers of three judges on 8 items (key A); "ok" = accepts the key
PLAN = {
    "gemini-2.5-pro":  ["B", "B", "ok", "C", "ok", "B", "D", "ok"],
    "claude-3-opus":   ["B", "ok", "ok", "C", "ok", "C", "ok", "ok"],
    "gpt-4o":          ["B", "C", "ok", "ok", "D", "C", "ok", "B"],
}


def load_judges(db, tmp_path, plan=PLAN):
    make_benchmark(db, name="tlue", n=8)
    for judge, answers in plan.items():
        f = tmp_path / f"{judge}.jsonl"
        f.write_text("".join(json.dumps({"loc": f"q{i:03d}", "llm_validation": {
            "answer_key_correct": a == "ok", "correct_answer": None if a == "ok" else a,
            "answer_explanation": "", "confidence": 0.5}}) + "\n" for i, a in enumerate(answers)), encoding="utf-8")
        import_judge(f, judge=judge, benchmark="tlue", db=db)


def closed_form_kappa(a, b):
    n = len(a)
    cats = set(a) | set(b)
    po = sum(x == y for x, y in zip(a, b)) / n
    pe = sum((a.count(c) / n) * (b.count(c) / n) for c in cats)
    return (po - pe) / (1 - pe)


def test_judge_agreement_matrix(db_path, tmp_path):
    load_judges(db_path, tmp_path)
    ja = judge_agreement("tlue", db=db_path)
    assert ja.judges == sorted(PLAN)
    answers = {j: ["A" if x == "ok" else x for x in v] for j, v in PLAN.items()}
    for r in ja.pairs.itertuples():
        assert r.n == 8
        assert r.kappa == pytest.approx(closed_form_kappa(answers[r.rater_a], answers[r.rater_b]), abs=1e-12)
    assert ja.fleiss is not None and ja.fleiss.n_items == 8 and ja.fleiss.n_raters == 3
    verdict = judge_agreement("tlue", db=db_path, on="verdict", judges=["gpt-4o", "claude-3-opus"])
    assert len(verdict.pairs) == 1 and verdict.fleiss is None
    vv = {j: ["ok" if x == "ok" else "bad" for x in v] for j, v in PLAN.items()}
    assert verdict.pairs.kappa.iloc[0] == pytest.approx(closed_form_kappa(vv["claude-3-opus"], vv["gpt-4o"]))


@pytest.mark.slow
def test_cross_family_panel(db_path, tmp_path):
    load_judges(db_path, tmp_path)
    df = panel_verdict("tlue", db=db_path).set_index("question_id")
    assert list(df["panel_verdict"]) == ["key_wrong", "no_majority", "key_correct", "key_wrong", "key_correct",
                                         "key_wrong", "key_correct", "key_correct"]
    assert df.loc["q000", "panel_answer"] == "B" and df.loc["q000", "support"] == 1.0
    assert df.loc["q005", "panel_answer"] == "C" and df.loc["q005", "support"] == pytest.approx(2 / 3)
    assert df.loc["q001", "votes"] == "anthropic=A; google=B; openai=C"
    # two judges of one family get one vote: a second google judge cannot out-vote the others
    plan = dict(PLAN, **{"gemini-1.5-pro": ["B", "B", "B", "B", "B", "B", "B", "B"]})
    load_judges(db_path.parent / "two.duckdb", tmp_path, plan)
    df2 = panel_verdict("tlue", db=db_path.parent / "two.duckdb").set_index("question_id")
    assert df2.loc["q002", "panel_verdict"] == "key_correct"   # google split B/A → no google vote
    assert df2.loc["q001", "panel_answer"] is None or df2.loc["q001", "panel_verdict"] == "no_majority"
    n = save_panel("tlue", "panel-3", db=db_path)
    con = duckdb.connect(str(db_path), read_only=True)
    stored = con.execute(
        "SELECT count(*) FILTER (parse_ok), "
        "count(*) FILTER (NOT parse_ok AND NOT coalesce(answer_key_correct, false)), "
        "count(*) FILTER (parse_ok AND NOT answer_key_correct) FROM judge_verdicts WHERE judge = 'panel-3'"
    ).fetchone()
    con.close()
    assert n == 8 and stored == (7, 1, 3)


def test_judge_scenarios_sets(db_path, tmp_path):
    from audit.analyze import analyze_benchmark

    build(db_path, tmp_path)
    analyze_benchmark("meth", db=db_path, t1=5, t2=4)
    js = judge_scenarios("meth", JUDGE, db=db_path)
    con = duckdb.connect(str(db_path), read_only=True)
    tier12 = {
        r[0]
        for r in con.execute(
            "SELECT question_id FROM current_audit WHERE benchmark = 'meth' AND tier IN (1, 2)"
        ).fetchall()
    }
    judge = {
        r[0]
        for r in con.execute(
            "SELECT question_id FROM judge_verdicts WHERE parse_ok AND NOT answer_key_correct"
        ).fetchall()
    }
    con.close()
    assert len(judge) == N_DISPUTED
    sets = js.sets.set_index("set")
    assert sets.loc["Tier 1–2", "n"] == len(tier12) and sets.loc["judge-disputed", "n"] == len(judge)
    assert sets.loc["Tier 1–2 ∩ judge", "n"] == len(tier12 & judge)
    assert sets.loc["Tier 1–2 ∪ judge", "n"] == len(tier12 | judge)
    assert 0 < len(tier12 & judge) < len(judge)
    if tier12:
        assert sets.loc["Tier 1–2 ∩ judge", "share_of_tier12"] == pytest.approx(len(tier12 & judge) / len(tier12))
        assert sets.loc["Tier 1–2 ∩ judge", "share_of_judge"] == pytest.approx(len(tier12 & judge) / len(judge))
        assert sets.loc["Tier 1–2 ∪ judge", "share_of_items"] == pytest.approx(len(tier12 | judge) / 150)
        assert math.isnan(sets.loc["judge-disputed", "share_of_tier12"])
        assert any("of Tier 1–2 confirmed by the judge" in line for line in js.reading)
    sc = js.scenarios
    excl = sc.groupby("scenario")["n_excluded"].first()
    assert excl["exclude judge-disputed"] == len(judge)
    assert excl["exclude Tier 1–2 ∪ judge-disputed"] == len(tier12 | judge)


@pytest.mark.slow
def test_agreement_report_and_cli(db_path, tmp_path, capsys):
    load_judges(db_path, tmp_path)
    rep = agreement_report_from("tlue", db=db_path)
    assert len(rep["judges"]) == 3 and set(rep["fleiss"]["raters"]) == {"judges"}
    assert rep["models"].empty            # no predictions on this benchmark
    code, out, _ = run_cli(capsys, "judge", "agreement", "--db", db_path)
    assert code == 0 and "Fleiss' kappa over the 8 items" in out
    code, out, _ = run_cli(capsys, "judge", "panel", "--db", db_path, "--save-as", "p")
    assert code == 0 and "key_wrong 3" in out and "stored 8 panel verdicts" in out
    code, out, _ = run_cli(capsys, "judge", "list", "--db", db_path)
    assert code == 0 and "gemini-2.5-pro" in out and "panel" in out
    code, out, err = run_cli(capsys, "judge", "bias", "--judge", "nobody", "--db", db_path)
    assert code == 1 and err.startswith("error: no verdicts of judge 'nobody'") and err.count("\n") == 1
    # bias needs model answers: a clear one-line error when there are none
    code, out, err = run_cli(capsys, "judge", "bias", "--judge", "gemini-2.5-pro", "--db", db_path)
    assert code == 1 and "has no predictions" in err
    assert not math.isnan(rep["judges"]["kappa"].iloc[0])


def test_model_agreement_in_report(db_path, tmp_path, monkeypatch):
    from audit.judge import panel
    from tests.analyze.test_kappa import closed_form_cohen, closed_form_fleiss

    build(db_path, tmp_path)
    con = duckdb.connect(str(db_path), read_only=True)
    preds = con.execute("SELECT question_id, model, answer FROM predictions ORDER BY question_id, model").fetchall()
    con.close()
    by_item: dict[str, list[str]] = {}
    by_model: dict[str, dict[str, str]] = {}
    for q, m, a in preds:
        by_item.setdefault(q, []).append(a)
        by_model.setdefault(m, {})[q] = a
    rep = agreement_report_from("meth", db=db_path)
    fl = rep["fleiss"].set_index("raters").loc["models"]
    assert fl.n_items == len(by_item) and fl.n_raters == 6
    assert fl.kappa == pytest.approx(closed_form_fleiss(list(by_item.values())), abs=1e-12)
    pairs = rep["models"]
    assert len(pairs) == 15
    r = pairs.iloc[0]
    items = sorted(by_model[r.rater_a])
    k, se, _ = closed_form_cohen([by_model[r.rater_a][i] for i in items], [by_model[r.rater_b][i] for i in items])
    assert r.kappa == pytest.approx(k, abs=1e-12) and r.se == pytest.approx(se, rel=1e-9)
    # many models: pairs are left out, Fleiss stays
    monkeypatch.setattr(panel, "MAX_PAIRWISE_MODELS", 5)
    rep = agreement_report_from("meth", db=db_path)
    assert rep["models"].empty and rep["fleiss"].set_index("raters").loc["models"].kappa == pytest.approx(fl.kappa)
