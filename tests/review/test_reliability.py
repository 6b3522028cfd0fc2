"""The reliability table from its inputs (audit.review.reliability, pure):
the columns of the interface, the Wilson interval against statsmodels
directly, the flag and its reasons, the Dawid–Skene column."""
from __future__ import annotations

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from audit.review.dawid_skene import dawid_skene
from audit.review.reliability import DS_CLASSES, RELIABILITY_COLUMNS, gold_accuracy, reliability_table


def _inputs():
    answers = pd.DataFrame({"reviewer": ["a"] * 12 + ["b"] * 12 + ["c"] * 3,
                            "is_right": [True] * 12 + [True] * 5 + [False] * 7 + [True, False, True]})
    rows = []
    for i in range(12):
        rows.append((f"g{i}", "a", "key_correct"))
        rows.append((f"g{i}", "b", "key_correct" if i < 5 else "key_wrong"))
    for i in range(8):
        rows.append((f"q{i}", "a", "key_wrong" if i < 2 else "key_correct"))
        rows.append((f"q{i}", "c", "key_correct"))
    v = pd.DataFrame(rows, columns=["question_id", "reviewer", "verdict"])
    v["opinion"] = v["verdict"].where(v["verdict"] != "key_wrong", "key_wrong:B")
    settled = pd.DataFrame({"question_id": [f"q{i}" for i in range(8)],
                            "opinion": ["key_wrong:B", "key_correct"] + ["key_correct"] * 6,
                            "adjudicated": [True, True] + [False] * 6})
    known = pd.Series("key_correct", index=[f"g{i}" for i in range(12)])
    return answers, v, settled, known


def test_the_interval_is_statsmodels_wilson():
    g = gold_accuracy(pd.DataFrame({"reviewer": ["x"] * 17, "is_right": [True] * 9 + [False] * 8}))
    low, high = proportion_confint(9, 17, alpha=0.05, method="wilson")
    assert g.loc[0, "gold_accuracy_low"] == pytest.approx(low) and g.loc[0, "gold_accuracy_high"] == pytest.approx(high)


def test_the_table():
    answers, v, settled, known = _inputs()
    t = reliability_table(answers, v, settled, known).set_index("reviewer")
    assert list(t.reset_index().columns) == RELIABILITY_COLUMNS
    assert t.loc["a", ["n_gold", "gold_accuracy", "flagged", "reason"]].tolist() == [12, 1.0, False, "ok"]
    assert t.loc["b", ["n_gold", "flagged", "reason"]].tolist() == [12, True, "below_threshold"]
    assert t.loc["c", ["n_gold", "flagged", "reason"]].tolist() == [3, False, "few_gold"]
    # agreement: a on q0 (adjudicated, agrees), q1 (adjudicated: a said key_wrong, settled key_correct),
    # q2–q7 (two verdicts each, a agrees): 7 of 8; c: q0 differs, the rest agree: 7 of 8
    assert t.loc["a", "agreement"] == pytest.approx(7 / 8) and t.loc["c", "agreement"] == pytest.approx(7 / 8)
    assert pd.isna(t.loc["b", "agreement"])                            # b's verdicts are all on known-answer items
    ds = dawid_skene(v, classes=DS_CLASSES, known=known, item="question_id", worker="reviewer", label="verdict")
    assert t["estimated_accuracy"].to_dict() == pytest.approx(ds.accuracy.to_dict())
    assert t.loc["a", "n_verdicts"] == 20 and t.loc["c", "n_verdicts"] == 8


def test_no_known_answer_item_yet():
    _, v, settled, known = _inputs()
    t = reliability_table(pd.DataFrame(columns=["reviewer", "is_right"]), v, settled, known.iloc[:0])
    assert set(t["reason"]) == {"no_gold"} and not t["flagged"].any() and (t["n_gold"] == 0).all()
