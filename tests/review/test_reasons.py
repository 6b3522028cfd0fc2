"""The case "Show it": on the item page, the judge runs the key-error fit
weighed are one plain-words sentence — how many runs looked, how many said
the key is wrong, and how much that counted (the fit's ``llr_judges`` as
"about N times more / less likely", never a raw ratio) — instead of one
sentence per verdict with the review stage's own figures."""
from __future__ import annotations

import json
import math

import pytest

from audit.analyze import analyze_benchmark, key_error_scores
from audit.judge import import_judge
from audit.review.reasons import evidence_reasons, render_reason, times_words
from tests.support.analyze_data import make_benchmark
from tests.support.wrong_keys import wrong_key_votes

JUDGES = [("judge-a", "v1"), ("judge-a", "v2"), ("judge-b", "v1"), ("judge-c", "v1")]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """80 items, 5 models, every 7th key rejected by most models; four judge
    runs (two of one model) on the first 60 items, saying "wrong" mostly on
    the rejected keys; analysed again after the judges so the fit weighs them."""
    tmp = tmp_path_factory.mktemp("judges_words")
    db = tmp / "x.duckdb"
    questions, preds, fams, rng = wrong_key_votes(80, 40, seed=11)
    make_benchmark(db, "jw", questions, fams, preds)
    analyze_benchmark("jw", db=db)
    for n, (judge, version) in enumerate(JUDGES):
        f = tmp / f"j{n}.jsonl"
        lines = []
        for i in range(60):
            wrong = (i % 7 == 3) if rng.random() < 0.85 else rng.random() < 0.3
            lines.append(json.dumps({"loc": f"q{i:02d}", "llm_validation": {
                "answer_key_correct": not wrong, "correct_answer": "C" if wrong else "A"}}))
        f.write_text("\n".join(lines) + "\n")
        import_judge(f, judge=judge, benchmark="jw", db=db, prompt_version=version)
    analyze_benchmark("jw", db=db)
    return db, key_error_scores("jw", db=db).set_index("question_id")


def test_weighed_items_get_one_sentence_from_the_fits_figures(bench):
    db, ks = bench
    judged = ks[ks["n_judges"] > 0]
    assert len(judged) == 60 and (judged["n_judges"] == len(JUDGES)).all()
    seen_less = False
    for qid in ["q03", "q10", "q17", "q00", "q01", "q05"]:
        reasons = evidence_reasons("jw", qid, db=db)
        keys = [k for k, _ in reasons]
        assert "evidence.judge" not in keys                     # no per-verdict sentences
        assert keys.count("evidence.judges") == 1
        p = dict(reasons)["evidence.judges"]
        assert p["n"] == int(ks.loc[qid, "n_judges"]) == len(JUDGES)
        assert p["llr_judges"] == pytest.approx(float(ks.loc[qid, "llr_judges"]))
        assert p["effect_key"] == times_words(p["llr_judges"])[0]
        text = render_reason("evidence.judges", p)
        assert text.startswith(f"{p['k']} of {len(JUDGES)} judge runs said the key is wrong; together they ")
        assert "%" not in text and "llr" not in text
        f = math.exp(abs(p["llr_judges"]))
        if p["effect_key"] in ("evidence.judges_more", "evidence.judges_less"):
            side = "more" if p["llr_judges"] > 0 else "less"
            assert text.endswith(f"made a wrong key about {p['times']} times {side} likely.")
            assert 0.6 * f <= p["times"] <= 1.6 * f
            seen_less |= side == "less"
    assert seen_less                    # keys every judge run confirmed count down
    # the judges' sentence follows the fit's sign: more "wrong" verdicts, never a lower llr_judges
    ks_words = {q: dict(evidence_reasons("jw", q, db=db))["evidence.judges"] for q in ("q03", "q00")}
    assert ks_words["q03"]["k"] > ks_words["q00"]["k"]
    assert ks_words["q03"]["llr_judges"] > ks_words["q00"]["llr_judges"]


def test_items_without_judges_have_no_judges_sentence(bench):
    db, ks = bench
    assert int(ks.loc["q70", "n_judges"]) == 0
    keys = [k for k, _ in evidence_reasons("jw", "q70", db=db)]
    assert "evidence.judges" not in keys and "evidence.judge" not in keys


def test_times_words_never_a_raw_ratio():
    assert times_words(0.0) == ("evidence.judges_none", {})
    assert times_words(math.log(3.2)) == ("evidence.judges_more", {"times": 3})
    assert times_words(-math.log(47)) == ("evidence.judges_less", {"times": 50})
    assert times_words(math.log(980)) == ("evidence.judges_more_over", {})
    assert times_words(-40.0) == ("evidence.judges_less_over", {})
    assert render_reason("evidence.judges", {"k": 12, "n": 20, "effect_key": "evidence.judges_more", "times": 3}) == (
        "12 of 20 judge runs said the key is wrong; together they made a wrong key about 3 times more likely.")
