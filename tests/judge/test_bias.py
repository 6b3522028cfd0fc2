"""Judge bias: the methodology's figures reproduced from a constructed data
set with those counts, checked against an independent computation (exact
binomial sum with math.comb, Clopper–Pearson from beta quantiles); bias
versus accuracy with expert verdicts; cross-family panel; agreement."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from scipy.stats import beta

from audit.judge import import_judge, judge_bias
from audit.judge.bias import bias_vs_accuracy_from, ratio_test
from audit.store import connect, transaction

JUDGE = "gemini/gemini-2.5-pro"   # family google by name
N_DISPUTED, N_ACCEPTED = 130, 20

# disputed item index sets (judge answer "B", key "A")
BOTH = range(0, 66)          # 66
G_ONLY = range(66, 109)      # 43
A_ONLY = range(109, 111)     # 2
NEITHER = range(111, 130)    # 19
MATCHES = {
    "gemini-2.5-pro": set(range(0, 105)),              # 105 / 130
    "gemini-1.5-pro": set(range(105, 109)),            # completes the google family (109 = 66 + 43)
    "claude-3-5-sonnet": set(range(0, 66)) | {109},    # 67 / 130
    "claude-3-opus": {110},                            # completes anthropic (68 = 66 + 2)
    "gpt-4o": set(range(0, 50)),                       # 50 / 130
    "deepseek-v3": set(range(20, 72)),                 # 52 / 130
}


def qid(i: int) -> str:
    return f"m{i:03d}"


def build(db, tmp_path, *, judge=JUDGE, expert=None):
    """Questions, predictions and an imported judge file with the methodology's counts."""
    from audit.ingest.models import register_models
    from audit.ingest.storing import store_questions
    from audit.store.records import Option, Question

    n = N_DISPUTED + N_ACCEPTED
    qs = [Question("meth", qid(i), f"stem {i}", [Option(l, f"{l}{i}") for l in "ABCD"], "A") for i in range(n)]
    rows = []
    for model, matched in MATCHES.items():
        for i in range(n):
            if i < N_DISPUTED:
                ans = "B" if i in matched else ("A" if i % 2 else "C")
            else:
                ans = "A"
            rows.append(("meth", qid(i), model, "default", None, ans, "given", True))
    with connect(db) as con, transaction(con):
        store_questions(con, "meth", "test", qs)
        register_models(con, list(MATCHES))
        # read by DuckDB's replacement scan, by its name, in the INSERT below
        preds = pd.DataFrame(rows, columns=["benchmark", "question_id", "model", "run", "response", "answer",  # noqa: F841
                                            "method", "valid"])
        con.execute("INSERT INTO predictions SELECT * FROM preds")
    f = tmp_path / "judge.jsonl"
    with f.open("w", encoding="utf-8") as fh:
        for i in range(n):
            val = ({"answer_key_correct": False, "correct_answer": "B", "answer_explanation": "x", "confidence": 0.9}
                   if i < N_DISPUTED else {"answer_key_correct": True, "correct_answer": "A",
                                           "answer_explanation": "ok", "confidence": 0.8})
            fh.write(json.dumps({"loc": qid(i), "llm_validation": val}) + "\n")
    import_judge(f, judge=judge, benchmark="meth", db=db)


def exact_two_sided_p(k: int, n: int) -> float:
    """Independent: sum of binomial(n, 1/2) probabilities no larger than P(k)."""
    probs = [math.comb(n, i) / 2 ** n for i in range(n + 1)]
    return min(1.0, sum(p for p in probs if p <= probs[k] * (1 + 1e-7)))


def clopper_pearson(k: int, n: int, conf=0.95):
    a = 1 - conf
    lo = 0.0 if k == 0 else beta.ppf(a / 2, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(1 - a / 2, k + 1, n - k)
    return lo, hi


def test_ratio_test_against_independent_computation():
    for x, y in [(43, 2), (10, 7), (3, 0), (0, 5)]:
        r = ratio_test(x, y)
        assert r["p_value"] == pytest.approx(exact_two_sided_p(x, x + y), rel=1e-9)
        lo, hi = clopper_pearson(x, x + y)
        assert r["ratio_low"] == pytest.approx(lo / (1 - lo) if lo < 1 else math.inf, rel=1e-9)
        assert r["ratio_high"] == (math.inf if hi >= 1 else pytest.approx(hi / (1 - hi), rel=1e-9))
    assert math.isnan(ratio_test(0, 0)["p_value"])


def test_methodology_figures(db_path, tmp_path):
    build(db_path, tmp_path)
    rep = judge_bias("meth", JUDGE, db=db_path)
    assert rep.n_judged == N_DISPUTED + N_ACCEPTED and rep.n_disputed == 130
    assert rep.judge_family == "google" and rep.self_family
    rates = rep.models.set_index("model")
    for model, want, pct in [("gemini-2.5-pro", 105, 80.8), ("claude-3-5-sonnet", 67, 51.5),
                             ("gpt-4o", 50, 38.5), ("deepseek-v3", 52, 40.0)]:
        assert rates.loc[model, "n_match"] == want
        assert rates.loc[model, "n_disputed"] == 130
        assert round(100 * rates.loc[model, "rate"], 1) == pct
    pair = rep.pairs[(rep.pairs.family_x == "google") & (rep.pairs.family_y == "anthropic")].iloc[0]
    assert (pair.x_only, pair.y_only, pair.both, pair.neither) == (43, 2, 66, 19)
    assert pair.ratio == pytest.approx(21.5)
    assert pair.p_value == pytest.approx(5.9e-11, rel=0.01)
    assert pair.p_value == pytest.approx(exact_two_sided_p(43, 45), rel=1e-9)
    assert round(pair.ratio_low, 1) == 5.6 and round(pair.ratio_high) == 183
    # every pair of the 4 families is reported; the judge's family is X in its pairs
    assert len(rep.pairs) == 6
    assert set(rep.pairs[rep.pairs.judge_in_pair].family_x) == {"google"}
    assert any("Warning" in line and "google" in line for line in rep.reading)
    assert any("43" in line and "21.5" in line for line in rep.reading)


def test_bias_cli(db_path, tmp_path, capsys):
    from tests.support.judge_server import run_cli

    build(db_path, tmp_path)
    code, out, _ = run_cli(capsys, "judge", "bias", "--judge", JUDGE, "--db", db_path, "--format", "json")
    assert code == 0
    rep = json.loads(out)
    pair = next(p for p in rep["pairs"] if p["family_x"] == "google" and p["family_y"] == "anthropic")
    assert (pair["x_only"], pair["y_only"], pair["ratio"]) == (43, 2, 21.5)
    assert "accuracy" in rep      # bias vs accuracy section (no settled items yet)
    code, out, _ = run_cli(capsys, "judge", "bias", "--judge", JUDGE, "--db", db_path)
    assert code == 0 and "Warning: the judge belongs to the google family" in out and "21.5" in out


def test_no_flag_for_outside_judge(db_path, tmp_path):
    build(db_path, tmp_path, judge="mistral-large")
    rep = judge_bias("meth", "mistral-large", db=db_path)
    assert rep.judge_family == "mistralai" and not rep.self_family
    assert not rep.pairs.judge_in_pair.any()
    assert not any("Warning" in line for line in rep.reading)


def _settled(verdicts: dict[int, tuple[str, str | None]]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"question_id": qid(i), "verdict": v, "corrected_answer": c} for i, (v, c) in verdicts.items()]
    )


def test_bias_vs_accuracy_accurate_judge(db_path, tmp_path):
    """Experts confirm the judge's answer B on every Gemini-only item: Gemini
    was right there — accuracy, not bias."""
    build(db_path, tmp_path)
    verdicts = {i: ("key_wrong", "B") for i in G_ONLY}
    verdicts.update({i: ("key_wrong", "B") for i in A_ONLY})
    verdicts.update({i: ("key_correct", None) for i in range(130, 150)})
    verdicts.update({i: ("ambiguous", None) for i in range(111, 115)})
    rep = bias_vs_accuracy_from("meth", JUDGE, db=db_path, settled=_settled(verdicts))
    o = rep.overall.iloc[0]
    assert o.n == 43 + 2 + 20 and o.n_correct == 65 and o.accuracy == 1.0
    assert o.kappa == pytest.approx(1.0) and o.kappa_n == 65
    pat = rep.patterns[(rep.patterns.family_x == "google") & (rep.patterns.family_y == "anthropic")].set_index(
        "pattern"
    )
    assert pat.loc["x_only", "n"] == 43 and pat.loc["x_only", "n_settled"] == 43
    assert pat.loc["x_only", "accuracy"] == 1.0
    assert pat.loc["neither", "n_settled"] == 0     # ambiguous items have no expert answer
    # on settled items google is never wrong where judged, so the judge cannot repeat its errors
    err = rep.errors.set_index("family")
    assert err.loc["google", "n_judge_same"] == 0
    assert any("accuracy, not bias" in line for line in rep.reading)


def test_bias_vs_accuracy_biased_judge(db_path, tmp_path):
    """Experts say the key A was right on every disputed item: the judge
    repeated Gemini's wrong answer B far more often than Claude's."""
    build(db_path, tmp_path)
    verdicts = {i: ("key_correct", None) for i in range(0, 150)}
    rep = bias_vs_accuracy_from("meth", JUDGE, db=db_path, settled=_settled(verdicts))
    o = rep.overall.iloc[0]
    assert o.n == 150 and o.n_correct == 20
    # independent count: an item counts for a family when one of its models is wrong
    fam = {"google": ["gemini-2.5-pro", "gemini-1.5-pro"], "anthropic": ["claude-3-5-sonnet", "claude-3-opus"]}

    def answer(model, i):
        return ("B" if i in MATCHES[model] else ("A" if i % 2 else "C")) if i < 130 else "A"

    for f, models in fam.items():
        wrong = same = 0
        for i in range(150):
            judge_answer = "B" if i < 130 else "A"
            wrong_answers = {answer(m, i) for m in models} - {"A"}
            if wrong_answers:
                wrong += 1
                same += judge_answer in wrong_answers
        row = rep.errors.set_index("family").loc[f]
        assert (row.n_wrong, row.n_judge_same) == (wrong, same)
    err = rep.errors.set_index("family")
    assert err.loc["google", "rate_low"] > err.loc["anthropic", "rate_high"]
    by_model = rep.errors_by_model.set_index("model")
    assert by_model.loc["gemini-2.5-pro", "n_judge_same"] == 105
    assert by_model.loc["gemini-2.5-pro", "n_wrong"] == 105 + sum(1 for i in range(105, 130) if i % 2 == 0)
    assert any("evidence of self-preference" in line for line in rep.reading)
    pat = rep.patterns[(rep.patterns.family_x == "google") & (rep.patterns.family_y == "anthropic")].set_index(
        "pattern"
    )
    assert pat.loc["x_only", "accuracy"] == 0.0 and pat.loc["x_only", "n_settled"] == 43


def test_judge_family_from_name_and_registry(db_path):
    from audit.ingest import set_family
    from audit.judge._store import judge_family

    con = duckdb_connect(db_path)
    try:
        assert judge_family(con, "gemini/gemini-2.5-pro") == "google"
        assert judge_family(con, "openrouter/google/gemini-2.5-pro") == "google"
        assert judge_family(con, "groq/llama-3.1-70b") == "meta"
        assert judge_family(con, "openai/Qwen2.5-72B") == "qwen"     # served by an OpenAI-compatible server
        assert judge_family(con, "openai/my-judge") == "openai"
    finally:
        con.close()
    set_family("my-judge", "acme", db=db_path, create=True)     # a judge's model: registered on purpose
    con = duckdb_connect(db_path)
    try:
        assert judge_family(con, "openai/my-judge") == "acme"        # the registry overrides
    finally:
        con.close()


def duckdb_connect(path):
    import duckdb

    return duckdb.connect(str(path), read_only=True)


@pytest.mark.slow
def test_bias_vs_accuracy_reads_settled_expert_verdicts(db_path, tmp_path):
    """Default path: the experts' settled verdicts come from the review stage
    (audit.review.bias_vs_accuracy; the judge stage never imports review)."""
    from audit.review import add_review, bias_vs_accuracy, settled_verdicts

    build(db_path, tmp_path)
    plan = {i: ("key_wrong", "B") for i in list(G_ONLY)[:10]}
    plan.update({i: ("key_correct", None) for i in list(A_ONLY) + [130, 131, 132]})
    for i, (verdict, ans) in plan.items():
        add_review("meth", qid(i), "lead", verdict, corrected_answer=ans, is_adjudication=True, db=db_path)
    settled = settled_verdicts("meth", db=db_path)
    assert len(settled) == len(plan)
    via_review = bias_vs_accuracy("meth", JUDGE, db=db_path)
    explicit = bias_vs_accuracy("meth", JUDGE, db=db_path, settled=_settled(plan))
    pd.testing.assert_frame_equal(via_review.overall, explicit.overall)
    pd.testing.assert_frame_equal(via_review.errors, explicit.errors)
    o = via_review.overall.iloc[0]
    # judge right on the 10 Gemini-only items and the 3 accepted keys, wrong on the 2 Claude-only ones
    assert (o.n, o.n_correct) == (15, 13)
