"""audit.review.judges: the judge-stage analyses fed with this stage's
expert tables, on the analysed toy benchmark with an imported judge file —
judge vs experts and reviewer vs reviewer kappas (checked against a hand
computation), the report's sections, bias vs accuracy, the bias summary and
the judge card."""
from __future__ import annotations

import json

import pytest

from audit.analyze import analyze_benchmark
from audit.ingest import import_predictions
from audit.judge import import_judge
from audit.review.judges import (
    JudgeBiasSummary,
    agreement_report,
    bias_vs_accuracy,
    judge_bias_summary,
    judge_card,
    judge_family_name,
    report_sections,
)
from tests.support.toy_release import BENCH, ITEMS, MODELS, toy_db

JUDGE = "gpt-4o"
# the judge: key right, or wrong with the answer it names
VERDICTS = {"t01": (True, None), "t02": (False, "B"), "t03": (False, "C"), "t04": (True, None),
            "t05": (True, None), "t06": (True, None), "t07": (True, None), "t08": (False, "C"),
            "t09": (True, None), "t10": (False, "A")}
# two more models of other families (the bias analysis compares families)
OTHERS = {"qwen-2": "ABBDACCCBD", "llama-3": "BBCDBBCCBA"}


def _kappa(a, b):
    """Cohen's kappa written out: (p_o - p_e) / (1 - p_e)."""
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    pe = sum((a.count(c) / n) * (b.count(c) / n) for c in set(a) | set(b))
    return (po - pe) / (1 - pe)


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("judges")
    db = toy_db(tmp, migrated_template)
    lines = ["question_id," + ",".join(OTHERS)] + [
        f"{q}," + ",".join(a[i] for a in OTHERS.values()) for i, q in enumerate(ITEMS)]
    (tmp / "others.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_predictions(tmp / "others.csv", benchmark=BENCH, layout="wide", db=db)
    analyze_benchmark(BENCH, db=db)
    with open(tmp / "judge.jsonl", "w", encoding="utf-8") as fh:
        for q, (ok, answer) in VERDICTS.items():
            fh.write(json.dumps({"loc": q, "llm_validation": {"answer_key_correct": ok, "correct_answer": answer}})
                     + "\n")
    import_judge(tmp / "judge.jsonl", judge=JUDGE, benchmark=BENCH, db=db)
    return db


def test_judge_vs_experts_against_a_hand_kappa(toy):
    rep = agreement_report(BENCH, db=toy)
    jx = rep["judge_vs_experts"].set_index("on")
    # settled key_correct / key_wrong: t02 key_wrong→B, t04 key_wrong→D (adjudicated), t07 key_correct
    experts, judge = ["wrong", "wrong", "right"], ["wrong", "right", "right"]
    assert jx.loc["verdict", "n"] == 3
    assert jx.loc["verdict", "agreement"] == pytest.approx(2 / 3)
    assert jx.loc["verdict", "kappa"] == pytest.approx(_kappa(experts, judge)) == pytest.approx(0.4)
    # on the answer: the experts' B, D, C against the judge's B, C (it kept the key of t04), C
    assert jx.loc["answer", "kappa"] == pytest.approx(_kappa(["B", "D", "C"], ["B", "C", "C"])) == pytest.approx(0.5)


def test_reviewer_vs_reviewer_against_a_hand_kappa(toy):
    pairs = agreement_report(BENCH, db=toy)["reviewers"]
    row = pairs.iloc[0]
    # alice and bob both reviewed t02 (B, B) and t03 (C, D)
    assert (row["rater_a"], row["rater_b"], row["n"]) == ("alice", "bob", 2)
    assert row["kappa"] == pytest.approx(_kappa(["B", "C"], ["B", "D"])) == pytest.approx(1 / 3)


def test_report_sections_are_titled_and_non_empty(toy):
    sections = report_sections(BENCH, db=toy)
    assert "Agreement: judge vs experts (Cohen's kappa)" in sections
    assert "Agreement: reviewer vs reviewer (Cohen's kappa)" in sections
    assert all(len(df) for df in sections.values())


def test_bias_vs_accuracy_with_the_settled_verdicts(toy):
    acc = bias_vs_accuracy(BENCH, JUDGE, db=toy)
    o = acc.overall.iloc[0]
    assert (acc.n_settled, o["n"], o["n_correct"]) == (5, 3, 2)
    assert o["kappa"] == pytest.approx(0.4)


def test_the_bias_summary_and_the_card(toy):
    s = judge_bias_summary(None, JUDGE, db=toy)
    assert isinstance(s, JudgeBiasSummary) and s.bias.n_judged == 10 and s.bias.n_disputed == 4
    d = s.as_dict()
    assert d["judge"] == JUDGE and "accuracy" in d
    assert "accuracy" not in judge_bias_summary(BENCH, JUDGE, db=toy, experts=False).as_dict()
    assert judge_family_name(BENCH, JUDGE, db=toy) == "openai"
    c = judge_card(BENCH, db=toy)
    row = c.card.iloc[0]
    assert (row["judge"], row["prompt_version"], row["n"]) == (JUDGE, "imported", 3)
    assert row["kappa"] == pytest.approx(0.4) and c.languages.empty


def test_bias_vs_accuracy_when_every_model_is_of_one_family(toy):
    """Three sizes of one family: no pair of families to compare, but the
    judge's accuracy on the settled items is still read (no crash)."""
    acc = bias_vs_accuracy(BENCH, JUDGE, db=toy, models=MODELS)
    assert acc.overall.iloc[0]["n"] == 3
    assert acc.patterns.empty and acc.reading_codes[0][0].startswith("reading.acc.overall")
