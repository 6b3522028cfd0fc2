"""audit.export._derive: each item's key and inclusion under every built-in
policy, on the toy benchmark (settled verdicts from the review stage),
against hand-written expectations; the settled-frame checks, the cause shown
as inconsistent, the reviewer summary columns and the counts."""
from __future__ import annotations

import pandas as pd
import pytest

from audit.export._derive import ITEM_COLUMNS, _settled_frame, counts, derive_items
from audit.export.policy import get_policy
from audit.review import settled_verdicts
from audit.store import connect
from tests.support.toy_release import BENCH, EXPECTED_DEFAULT, ITEMS, toy_db


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    return toy_db(tmp_path_factory.mktemp("derive"), migrated_template, predictions=False)


def _derive(db, policy, settled="stored"):
    if isinstance(settled, str):
        settled = settled_verdicts(BENCH, db=db)
    with connect(db, read_only=True) as con:
        return derive_items(con, BENCH, get_policy(policy), settled)


def _actions(df):
    return {q: (a, k) for q, a, k in zip(df["question_id"], df["action"], df["answer_key"])}


def _with(changes):
    out = {q: ("unchanged", ITEMS[q][3]) for q in ITEMS}
    out.update(changes)
    return out


POLICY_EXPECTED = {
    "default": EXPECTED_DEFAULT,
    "original": _with({}),
    "corrections-only": _with({"t02": ("corrected", "B"), "t04": ("corrected", "D"), "t08": ("corrected", "C")}),
    # a settlement counts with two distinct reviewers or an adjudication: t08, t05, t06 had one reviewer each
    "double-reviewed": _with({"t02": ("corrected", "B"), "t04": ("corrected", "D")}),
    "adjudicated-only": _with({"t04": ("corrected", "D")}),
}


@pytest.mark.parametrize("policy", sorted(POLICY_EXPECTED))
def test_each_policy_against_the_hand_expectation(toy, policy):
    df = _derive(toy, policy)
    assert list(df.columns) == ITEM_COLUMNS
    assert df["question_id"].tolist() == list(ITEMS)          # import order
    assert _actions(df) == POLICY_EXPECTED[policy]
    assert (df["included"] == (df["action"] != "excluded")).all()
    ex = df[df["action"] == "excluded"]
    assert (ex["exclusion_list"] == ex["verdict"]).all()
    assert df.loc[df["action"] != "excluded", "exclusion_list"].isna().all()


def test_no_settled_verdicts_keeps_every_key(toy):
    for settled in (None, pd.DataFrame()):
        df = _derive(toy, "default", settled)
        assert _actions(df) == _with({}) and not df["settled"].any()


def test_reviewer_summary_columns(toy):
    df = _derive(toy, "default").set_index("question_id")
    assert df.loc["t02", "reviewers"] == "alice; bob" and df.loc["t02", "n_reviewers"] == 2
    assert df.loc["t02", "rationale"] == "alice: =2+2 is 4 | bob: four | `x`"
    assert df.loc["t04", "reviewers"] == "carol (adjudication)" and df.loc["t04", "n_reviewers"] == 0
    assert bool(df.loc["t04", "adjudicated"]) and not bool(df.loc["t02", "adjudicated"])
    assert pd.isna(df.loc["t01", "reviewers"]) and df.loc["t01", "n_reviewers"] == 0
    assert len(df.loc["t02", "review_dates"]) == 10
    assert df.loc["t03", "verdict"] is None or pd.isna(df.loc["t03", "verdict"])   # disputed: not settled


def test_a_correction_to_the_original_key_is_no_correction_and_inconsistent_causes_are_shown(toy):
    settled = pd.DataFrame({"question_id": ["t01", "t07", "t09"], "verdict": ["key_wrong", "key_correct", "ambiguous"],
                            "corrected_answer": ["A", None, None], "cause": [None, "key_slip", "key_slip"],
                            "adjudicated": [True, None, True]})
    df = _derive(toy, "default", settled).set_index("question_id")
    assert df.loc["t01", "action"] == "unchanged" and df.loc["t01", "answer_key"] == "A"
    assert df.loc["t07", "cause"] == "inconsistent: cause key_slip given with a key_correct verdict"
    assert df.loc["t09", "cause"] == "inconsistent: cause key_slip given with a ambiguous verdict"
    assert df.loc["t09", "action"] == "excluded"


def test_settled_frame_checks_and_defaults():
    with pytest.raises(ValueError, match=r"lack columns \['verdict'\]"):
        _settled_frame(pd.DataFrame({"question_id": ["a"]}))
    f = _settled_frame(pd.DataFrame({"question_id": ["a"], "verdict": ["ambiguous"]}))
    assert f.to_dict("records") == [{"question_id": "a", "verdict": "ambiguous", "corrected_answer": None,
                                     "cause": None, "cause_from": None, "adjudicated": False,
                                     "settled_by": "agreement"}]
    assert list(_settled_frame(None).columns) == ["question_id", "verdict", "corrected_answer", "cause", "cause_from",
                                                  "adjudicated", "settled_by"]


def test_counts(toy):
    c = counts(_derive(toy, "default"))
    assert c == {"items": 10, "corrected": 3, "excluded": 2, "unchanged": 5, "reviewed": 7}
