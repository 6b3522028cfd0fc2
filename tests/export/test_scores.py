"""audit.export.scores: every model under every key version of the toy
benchmark — accuracy counted by hand from the answers and each version's
keys, Wilson intervals from statsmodels, the change in points, superseded
versions, the working keys; key sets from derived items; the Markdown table;
a benchmark without predictions."""
from __future__ import annotations

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from audit.export import create_version
from audit.export._corrected import version_items
from audit.export.scores import (
    SCORE_COLUMNS,
    WORKING,
    KeySet,
    keyset_from_items,
    scores_for,
    scores_markdown,
    scores_with_new_version,
    version_scores,
)
from audit.ingest import import_questions
from audit.review import add_review
from tests.support.toy_release import BENCH, EXPECTED_DEFAULT, ITEMS, MODELS, hand_accuracy, toy_db, write_questions

ORIGINAL = {q: v[3] for q, v in ITEMS.items()}
V11 = {q: k for q, (_, k) in EXPECTED_DEFAULT.items()}
V11_IN = {q for q, (a, _) in EXPECTED_DEFAULT.items() if a != "excluded"}


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("scores")
    db = toy_db(tmp, migrated_template)
    create_version(BENCH, "1.1", db=db, exports_dir=tmp / "exports")
    import_questions(write_questions(tmp / "bare.csv"), benchmark="bare", db=db)
    return db


def test_hand_count_of_one_model_written_out():
    # m-alpha answers A B B D A C C C B D; original keys A A B C A B C A B D: right on t01 t03 t05 t07 t09 t10
    assert hand_accuracy(ORIGINAL, set(ITEMS), "m-alpha") == (6, 10)
    # version 1.1: t02→B, t04→D, t08→C corrected, t05 and t06 left out: right on all eight
    assert hand_accuracy(V11, V11_IN, "m-alpha") == (8, 8)


def test_every_model_under_every_version(toy):
    s = version_scores(BENCH, db=toy)
    assert list(s.columns) == SCORE_COLUMNS
    assert s["version"].tolist() == ["1.0"] * 3 + ["1.1"] * 3 + [WORKING] * 3
    assert s["model"].tolist() == MODELS * 3
    for r in s.itertuples():
        keys, inside = (ORIGINAL, set(ITEMS)) if r.version == "1.0" else (V11, V11_IN)
        k, n = hand_accuracy(keys, inside, r.model)
        low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert (r.n_items, r.n_valid) == (n, n)
        assert r.accuracy == pytest.approx(k / n) and r.conditional_accuracy == pytest.approx(k / n)
        assert (r.accuracy_low, r.accuracy_high) == (pytest.approx(low), pytest.approx(high))
    assert s["superseded"].tolist() == [True] * 3 + [False] * 6
    first = s[s["version"] == "1.0"]["change_points"]
    assert first.isna().all()
    a = s.set_index(["version", "model"])["accuracy"]
    for m in MODELS:
        assert s.set_index(["version", "model"]).loc[("1.1", m), "change_points"] == pytest.approx(
            100 * (a[("1.1", m)] - a[("1.0", m)]))
        assert s.set_index(["version", "model"]).loc[(WORKING, m), "change_points"] == pytest.approx(0.0)


def test_models_filter_and_no_working_keys(toy):
    s = version_scores(BENCH, models=["m-beta"], working=False, db=toy)
    assert s["model"].unique().tolist() == ["m-beta"] and s["version"].tolist() == ["1.0", "1.1"]


def test_keyset_from_items_and_a_new_version(toy):
    items = version_items(BENCH, db=toy)
    ks = keyset_from_items("1.2", items)
    assert ks.exclude == frozenset({"t05", "t06"}) and not ks.superseded
    assert dict(zip(ks.keys["question_id"], ks.keys["answer_key"])) == {"t02": "B", "t04": "D", "t08": "C"}
    s = scores_with_new_version(BENCH, "1.2", items, db=toy)
    assert s["version"].unique().tolist() == ["1.0", "1.1", "1.2"]
    assert s.loc[s["version"] != "1.2", "superseded"].all() and not s.loc[s["version"] == "1.2", "superseded"].any()


def test_a_key_set_scores_against_its_keys_only(toy):
    # every key set to the answer m-gamma gave: m-gamma scores 100%, nothing excluded
    gamma = dict(zip(ITEMS, "ABBCAACCBD"))
    ks = KeySet("x", pd.DataFrame({"question_id": list(gamma), "answer_key": list(gamma.values())}), frozenset())
    s = scores_for(BENCH, [ks], db=toy).set_index("model")
    assert s.loc["m-gamma", "accuracy"] == 1.0 and s.loc["m-gamma", "n_items"] == 10
    assert s.loc["m-alpha", "accuracy"] == pytest.approx(hand_accuracy(gamma, set(ITEMS), "m-alpha")[0] / 10)


def test_a_benchmark_without_predictions_has_no_scores(toy):
    s = version_scores("bare", db=toy)
    assert s.empty and list(s.columns) == SCORE_COLUMNS
    assert scores_for(BENCH, [], db=toy).empty


def test_working_keys_follow_new_verdicts(tmp_path, toy):
    import shutil

    db = tmp_path / "copy.duckdb"
    shutil.copyfile(toy, db)
    add_review(BENCH, "t01", "lead", "key_wrong", corrected_answer="B", cause="key_slip", is_adjudication=True, db=db)
    s = version_scores(BENCH, db=db).set_index(["version", "model"])
    keys = {**V11, "t01": "B"}
    for m in MODELS:
        assert s.loc[(WORKING, m), "accuracy"] == pytest.approx(hand_accuracy(keys, V11_IN, m)[0] / 8)


def test_markdown_rows_escape_names_and_mark_superseded():
    df = pd.DataFrame([
        {"model": "<m>|1", "version": "1.0", "accuracy": 0.6, "accuracy_low": 0.3127, "accuracy_high": 0.8318,
         "conditional_accuracy": 0.6, "n_valid": 10, "n_items": 10, "change_points": None, "superseded": True},
        {"model": "<m>|1", "version": "1.1", "accuracy": 1.0, "accuracy_low": 0.6756, "accuracy_high": 1.0,
         "conditional_accuracy": float("nan"), "n_valid": 8, "n_items": 8, "change_points": 40.0,
         "superseded": False},
    ])
    lines = scores_markdown(df, lambda s: str(s).replace("|", "\\|").replace("<", "&lt;"))
    assert lines[0].startswith("| Model | Version |") and lines[1] == "|---|---|---|---|---|---|"
    assert lines[2] == "| &lt;m>\\|1 | 1.0 (superseded) | 60.0 [31.3, 83.2] | 60.0 | 10 / 10 | – |"
    assert lines[3] == "| &lt;m>\\|1 | 1.1 | 100.0 [67.6, 100.0] | – | 8 / 8 | +40.0 |"
