"""New models re-open what they should: on MMLU-Redux (14 models), 40 items
settled with the experts' labels and version 1.1 exported, then five more
models' answers from MMLU-Pro on the shared items; ``audit review changes``
lists exactly the items whose evidence crossed the thresholds (recomputed
here from the stored runs with plain SQL and NumPy), and no settled verdict
changes."""
from __future__ import annotations

import json

import duckdb
import numpy as np
import pandas as pd
import pytest

from audit.analyze import analyze_benchmark
from audit.export import create_version
from audit.ingest import import_mmlu_redux, import_predictions
from audit.review import add_review, settled_verdicts
from audit.review.changes import DEFAULT_TIERS, JSON_COLUMNS, REOPEN_THRESHOLD, review_changes

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]
NEW_MODELS = ["unnamed-2026-02", "gemini-1.5-pro-002", "Meta-Llama-3_1-70B-Instruct", "Qwen1.5-110B",
              "jamba-1.5-large"]


def _q(db, sql, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).df()
    finally:
        con.close()


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    from tests.conftest import shared_path

    redux, pro = shared_path("mmlu_redux_dev"), shared_path("mmlu_pro_dev")
    tmp = tmp_path_factory.mktemp("changes")
    db = tmp / "r.duckdb"
    import_mmlu_redux(redux, benchmark="redux", db=db)
    analyze_benchmark("redux", db=db)
    labels = pd.read_csv(pro / "labels.csv")
    labels["qid"] = labels["redux_subject"] + "/" + labels["redux_row"].astype(int).astype(str)
    # the ids match the question texts
    qs = _q(db, "SELECT question_id, stem FROM questions WHERE benchmark = 'redux'").set_index("question_id")
    pro_q = pd.read_json(pro / "questions.jsonl", lines=True).set_index("id")
    sample = labels.head(50)
    assert all(" ".join(qs.loc[r.qid, "stem"].split()) == " ".join(pro_q.loc[r.question_id, "question"].split())
               for r in sample.itertuples())
    # settle 40 shared items with the experts' labels: every wrong key, then items labelled ok
    wrong = labels[labels["error_type"] == "wrong_groundtruth"]["qid"].tolist()
    ok = labels[labels["error_type"] == "ok"]["qid"].tolist()[: 40 - len(wrong)]
    preds = _q(db, "SELECT question_id, answer FROM predictions WHERE benchmark = 'redux' AND valid")
    keys = _q(db, "SELECT question_id, answer_key FROM questions WHERE benchmark = 'redux'").set_index("question_id")
    for q in wrong:
        others = preds[(preds["question_id"] == q) & (preds["answer"] != keys.loc[q, "answer_key"])]["answer"]
        fix = others.value_counts().index[0] if len(others) else ("B" if keys.loc[q, "answer_key"] == "A" else "A")
        add_review("redux", q, "expert", "key_wrong", corrected_answer=fix, cause="source_error",
                   is_adjudication=True, db=db)
    for q in ok:
        add_review("redux", q, "expert", "key_correct", is_adjudication=True, db=db)
    create_version("redux", "1.1", db=db, exports_dir=tmp / "exports")
    settled_before = settled_verdicts("redux", db=db)
    n_reviews = _q(db, "SELECT count(*) AS n FROM reviews")["n"].iloc[0]
    # five more models' answers on the shared items, ids mapped through labels.csv
    p = pd.read_parquet(pro / "predictions.parquet")
    p = p[p["model"].isin(NEW_MODELS)].assign(pid=lambda d: d["question_id"].astype(str)).merge(
        labels.assign(pid=labels["question_id"].astype(str))[["pid", "qid"]], on="pid")
    f = tmp / "new.csv"
    pd.DataFrame({"question_id": p["qid"], "model": p["model"], "answer": p["answer"]}).to_csv(f, index=False)
    import_predictions(f, benchmark="redux", db=db)
    analyze_benchmark("redux", db=db)
    return db, set(wrong) | set(ok), settled_before, n_reviews


def _expected(db, settled_ids) -> dict[str, str]:
    """The rule, recomputed from the stored runs."""
    runs = _q(db, "SELECT run_id FROM audit_runs WHERE benchmark = 'redux' ORDER BY run_id")["run_id"].tolist()
    assert len(runs) == 2
    s = {r: _q(db, "SELECT s.question_id, s.score, coalesce(s.p_reject, s.score) AS p_reject, s.alternative, "
                   "s.p_alternative, a.tier FROM key_error_scores s JOIN audit_results a USING (run_id, question_id) "
                   "WHERE s.run_id = ?", [r]).set_index("question_id") for r in runs}
    a, b = s[runs[0]], s[runs[1]]
    out = {}
    for q in b.index:
        if q in settled_ids:
            continue
        before, after = a.loc[q, "tier"] in DEFAULT_TIERS, b.loc[q, "tier"] in DEFAULT_TIERS
        if before != after:
            out[q] = "entered_queue" if after else "left_queue"
    rev = _q(db, "SELECT question_id, verdict, corrected_answer FROM reviews WHERE benchmark = 'redux'")
    for r in rev.itertuples():
        def against(row):
            if r.verdict == "key_correct":
                return row["p_reject"]
            if row["alternative"] == r.corrected_answer:
                return 1 - row["p_alternative"]
            return 1 - min(row["p_alternative"], max(row["p_reject"] - row["p_alternative"], 0))
        x, y = against(a.loc[r.question_id]), against(b.loc[r.question_id])
        if y >= REOPEN_THRESHOLD and x < REOPEN_THRESHOLD:
            out[r.question_id] = "reopened"
    return out


def test_changes_list_exactly_the_items_that_crossed_and_settled_verdicts_stand(scenario):
    db, settled_ids, settled_before, n_reviews = scenario
    got = review_changes("redux", db=db)
    want = _expected(db, settled_ids)
    assert dict(zip(got["question_id"], got["change"])) == want
    assert len(want) > 0
    assert set(got["change"]) <= {"reopened", "entered_queue", "left_queue"}
    assert (got["new_models"] == 5).all()
    assert got["reason"].str.len().gt(20).all()
    # the settled verdicts stand: nothing was written, every settlement is as it was
    after = settled_verdicts("redux", db=db)
    cols = ["question_id", "verdict", "corrected_answer"]
    pd.testing.assert_frame_equal(after[cols].sort_values("question_id").reset_index(drop=True),
                                  settled_before[cols].sort_values("question_id").reset_index(drop=True))
    assert _q(db, "SELECT count(*) AS n FROM reviews")["n"].iloc[0] == n_reviews
    # a reopened item names its settled key in its reason
    for r in got[got["change"] == "reopened"].itertuples():
        assert r.settled_key in r.reason and r.after >= REOPEN_THRESHOLD > r.before
    # --since 1.1 is the default (the latest version)
    assert review_changes("redux", since="1.1", db=db)["question_id"].tolist() == got["question_id"].tolist()


def test_the_cli_json_rows(scenario):
    from typer.testing import CliRunner

    from audit.cli import app

    db = scenario[0]
    res = CliRunner().invoke(app, ["review", "changes", "--benchmark", "redux", "--since", "1.1", "--format", "json",
                                   "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert rows and all(list(r) == JSON_COLUMNS for r in rows)
    assert np.all([r["change"] in ("reopened", "entered_queue", "left_queue") for r in rows])
