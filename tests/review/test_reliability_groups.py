"""Reviewer reliability per language and per subject
(audit.review.reliability.reliability_by) on a real DuckDB file: a group
with enough known-answer items is judged on its own, with the Wilson
interval of statsmodels; a group with too few says so and is never
flagged."""
from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from audit.review import add_gold, add_reviews, reviewer_reliability
from audit.review.reliability import MIN_GOLD, reliability_by
from tests.support.campaign import analysed_benchmark

pytestmark = pytest.mark.slow   # real DuckDB files, analysed benchmarks, subprocesses: tens of seconds

B = "trust"


@pytest.fixture
def db(db_path):
    keys = analysed_benchmark(db_path, n=60)          # even items: Tibetan, history; odd: Chinese, grammar
    bo = [f"t{i:03d}" for i in range(0, 60, 2)][:12]
    zh = [f"t{i:03d}" for i in range(1, 60, 2)][:4]
    for qid in bo + zh:
        add_gold(B, qid, keys[qid], db=db_path)
    rows = []
    for i, qid in enumerate(bo):                       # 4 of 12 right in Tibetan
        right = i < 4
        rows.append({"question_id": qid, "reviewer": "Pema", "verdict": "key_correct" if right else "key_wrong",
                     "corrected_answer": None if right else next(x for x in "ABCD" if x != keys[qid])})
    for qid in zh:                                     # 4 of 4 right in Chinese
        rows.append({"question_id": qid, "reviewer": "Pema", "verdict": "key_correct", "corrected_answer": None})
    add_reviews(B, rows, source="workbench", db=db_path)
    return db_path


def test_per_language_and_subject(db):
    assert 4 < MIN_GOLD <= 12
    for by, (enough, few) in (("language", ("bo", "zh")), ("subject", ("history", "grammar"))):
        t = reliability_by(B, by, db=db).set_index(by)
        assert t.loc[enough, "reviewer"] == t.loc[few, "reviewer"] == "Pema"
        assert t.loc[enough, ["n_gold", "flagged", "reason"]].tolist() == [12, True, "below_threshold"]
        low, high = proportion_confint(4, 12, alpha=0.05, method="wilson")
        assert t.loc[enough, "gold_accuracy_low"] == pytest.approx(low)
        assert t.loc[enough, "gold_accuracy_high"] == pytest.approx(high) and high < 0.8
        # four right of four: too few to say anything, and never flagged
        assert t.loc[few, ["n_gold", "gold_accuracy", "flagged", "reason"]].tolist() == [4, 1.0, False, "few_gold"]
    overall = reviewer_reliability(B, db=db).set_index("reviewer").loc["Pema"]
    low, high = proportion_confint(8, 16, alpha=0.05, method="wilson")
    assert overall["n_gold"] == 16 and overall["gold_accuracy_high"] == pytest.approx(high)
    assert bool(overall["flagged"])
    with pytest.raises(ValueError, match="use one of"):
        reliability_by(B, "tier", db=db)
