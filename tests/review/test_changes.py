"""audit.review.changes: what new models' answers change — the pure parts
(the probability against a settled key, version order, the queue entry
rule and its words, the run in effect at settlement) on hand-built data,
and ``review_changes`` on the toy benchmark analysed twice (four new models
that reject three settled keys), each row recomputed from the stored runs."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from audit.analyze import analyze_benchmark
from audit.errors import NotFoundError
from audit.ingest import import_predictions
from audit.review import review_status, settled_verdicts
from audit.review.campaign import QueueEntry
from audit.review.changes import (
    CHANGE_COLUMNS,
    REOPEN_THRESHOLD,
    Baseline,
    _flagged,
    _rule_words,
    _settled_runs,
    _version_order,
    against_settled_key,
    baseline,
    item_change,
    review_changes,
)
from audit.store import connect
from tests.support.toy_release import BENCH, EXPECTED_DEFAULT, ITEMS, toy_db

NEW = ["n1", "n2", "n3", "n4"]


@pytest.mark.parametrize("args, want", [
    (("A", "A", 0.3, "B", 0.2), 0.3),                       # the original key stands: p_reject
    (("B", "A", 0.97, "B", 0.95), 1 - 0.95),                # corrected to the alternative
    (("C", "A", 0.97, "B", 0.95), 1 - min(0.95, 0.02)),     # corrected to another option
    (("C", "A", 0.5, "B", 0.6), 1.0),                       # p_reject below p_alternative: nothing left for C
    (("B", "A", 0.9, "B", None), 1.0),                      # no alternative probability stored
    (("B", "A", 0.9, "B", float("nan")), 1.0),
])
def test_against_settled_key(args, want):
    assert against_settled_key(*args) == pytest.approx(want)


def test_against_settled_key_without_a_score_is_nan():
    assert math.isnan(against_settled_key("A", "A", None, "B", 0.1))
    assert math.isnan(against_settled_key("A", "A", float("nan"), "B", 0.1))


def test_version_order():
    assert sorted(["1.10", "2.0", "1.9", "1.0.0", "1.2"], key=_version_order) == ["1.0.0", "1.2", "1.9", "1.10", "2.0"]


def test_the_queue_entry_rule():
    df = pd.DataFrame({"tier": [1, 2, 3, None, 5], "score": [0.0, 0.1, 0.8, 0.95, None],
                       "subject": ["a", "b", "a", "a", "b"]})
    assert _flagged(df, QueueEntry()).tolist() == [True, True, False, False, False]          # Tier 1–2 by default
    assert _flagged(df, QueueEntry(tiers=(3,))).tolist() == [False, False, True, False, False]
    assert _flagged(df, QueueEntry(min_key_error=0.8)).tolist() == [False, False, True, True, False]
    assert _flagged(df, QueueEntry(tiers=(1,), min_key_error=0.9)).tolist() == [True, False, False, True, False]
    assert _flagged(df, QueueEntry(subjects=("a",))).tolist() == [True, False, False, False, False]
    assert _rule_words(QueueEntry(), "en") == "tiers 1, 2"
    assert _rule_words(QueueEntry(min_key_error=0.5), "en") == "key-error score at least 0.50"
    assert _rule_words(QueueEntry(tiers=(1,), min_key_error=0.25), "en") == "tiers 1 or key-error score at least 0.25"


def test_the_run_in_effect_at_settlement():
    runs = pd.DataFrame({"run_id": [1, 2, 3],
                         "created_utc": pd.to_datetime(["2026-01-01", "2026-02-01", "2026-03-01"])})
    settled = pd.DataFrame({"last_reviewed_at": pd.to_datetime(["2025-12-31", "2026-01-01", "2026-02-15",
                                                                "2026-04-01"])})
    got = _settled_runs(settled, runs).tolist()
    assert np.isnan(got[0]) and got[1:] == [1, 2, 3]
    assert _settled_runs(settled, runs.iloc[0:0]).isna().all()


@pytest.fixture(scope="module")
def lived(tmp_path_factory, migrated_template):
    tmp = tmp_path_factory.mktemp("changes")
    db = toy_db(tmp, migrated_template)
    analyze_benchmark(BENCH, db=db)
    one_run = (baseline(BENCH, db=db), review_changes(BENCH, db=db))
    # four new models answer the version's keys, except: the original key of t02 (settled wrong → B),
    # A on t07 (settled right, key C) and A on t08 (its one review settles it once it leaves Tier 1)
    answers = {q: k for q, (_, k) in EXPECTED_DEFAULT.items()} | {"t02": "A", "t07": "A", "t08": "A",
                                                                  "t01": "C", "t09": "C", "t10": "B"}
    lines = ["question_id," + ",".join(NEW)] + [f"{q}," + ",".join([answers[q]] * 4) for q in ITEMS]
    (tmp / "new.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_predictions(tmp / "new.csv", benchmark=BENCH, layout="wide", db=db)
    analyze_benchmark(BENCH, db=db)
    return db, one_run


def test_nothing_to_compare_with_one_run(lived):
    base, changes = lived[1]
    assert base == Baseline(None, None)
    assert changes.empty and list(changes.columns) == CHANGE_COLUMNS


def _stored(db):
    with connect(db, read_only=True) as con:
        s = con.execute("SELECT s.run_id, s.question_id, coalesce(s.p_reject, s.score) AS p_reject, s.alternative, "
                        "s.p_alternative, r.tier FROM key_error_scores s "
                        "JOIN audit_results r USING (run_id, question_id) WHERE r.benchmark = ?", [BENCH]).df()
    return {(int(r.run_id), r.question_id): r for r in s.itertuples()}


def test_every_row_recomputed_from_the_stored_runs(lived):
    db, _ = lived
    assert baseline(BENCH, db=db) == Baseline(1, None)
    df = review_changes(BENCH, db=db)
    stored = _stored(db)
    # reopened: settled key_correct / key_wrong whose probability against the settled key crossed 0.9
    settled = settled_verdicts(BENCH, db=db)
    want = {}
    for r in settled[settled["verdict"].isin(["key_correct", "key_wrong"])].itertuples():
        key = r.corrected_answer if r.verdict == "key_wrong" else ITEMS[r.question_id][3]
        p = []
        for run in (1, 2):
            s = stored[(run, r.question_id)]
            if key == ITEMS[r.question_id][3]:
                p.append(s.p_reject)
            elif key == s.alternative:
                p.append(1 - s.p_alternative)
            else:
                p.append(1 - min(s.p_alternative, max(s.p_reject - s.p_alternative, 0)))
        if p[1] >= REOPEN_THRESHOLD > p[0]:
            want[r.question_id] = (key, p[0], p[1])
    got = df[df["change"] == "reopened"].set_index("question_id")
    assert set(want) == set(got.index) == {"t02", "t07", "t08"}
    for q, (key, before, after) in want.items():
        assert got.loc[q, "settled_key"] == key
        assert (got.loc[q, "before"], got.loc[q, "after"]) == (pytest.approx(before), pytest.approx(after))
        assert got.loc[q, "new_models"] == 4 and got.loc[q, "run_before"] == 1 and got.loc[q, "run_after"] == 2
    # entering or leaving the queue (Tier 1–2 by default): unsettled items whose tier crossed the rule
    done = set(review_status(BENCH, db=db).query("status == 'done'")["question_id"])
    moved = {q: ("entered_queue" if stored[(2, q)].tier in (1, 2) else "left_queue") for q in ITEMS
             if q not in done and (stored[(1, q)].tier in (1, 2)) != (stored[(2, q)].tier in (1, 2))}
    assert dict(zip(*df[df["change"] != "reopened"][["question_id", "change"]].T.values)) == moved
    assert df["change"].tolist() == sorted(df["change"], key=["reopened", "entered_queue", "left_queue"].index)


def test_the_reason_and_one_item(lived):
    db, _ = lived
    row = item_change(BENCH, "t07", db=db)
    assert row["change"] == "reopened" and row["settled_verdict"] == "key_correct"
    assert row["reason"].startswith("New evidence against the settled key C: the chance that the models hold "
                                    "another answer rose from 0.00 to 1.00 (threshold 0.90; 4 new models since "
                                    "the previous analysis)")
    assert item_change(BENCH, "t05", db=db) is None
    bo = review_changes(BENCH, db=db, lang="bo").set_index("question_id")
    assert bo.loc["t07", "reason"] != row["reason"]


def test_an_unknown_version(lived):
    db, _ = lived
    with pytest.raises(NotFoundError, match="has no version 1.1"):
        review_changes(BENCH, since="1.1", db=db)
