"""Scores tied to key versions on the demo: after versions 1.1 and 1.2,
every model is listed under 1.0, 1.1, 1.2 (and the working keys); the
differences equal a recomputation from the exported files; a model imported
afterwards is scored on all three; the DATASHEET of a version carries the
table."""
from __future__ import annotations

import json

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from audit.demo import build_demo, demo_truth
from audit.export import create_version
from audit.export.scores import SCORE_COLUMNS, version_scores
from audit.ingest import import_predictions
from audit.review import add_review

pytestmark = pytest.mark.slow


def _settle_wrong(db, ids, truth):
    for q in ids:
        add_review("demo", q, "lead", "key_wrong", corrected_answer=truth[q]["true_answer"], cause="key_slip",
                   is_adjudication=True, db=db)


def _recompute(db, folder) -> pd.DataFrame:
    """Accuracy per model from the version's own questions.parquet and the
    stored answers (one plain SQL query, no library code)."""
    keys = pq.read_table(folder / "questions.parquet").to_pandas()
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.register("k", keys[["question_id", "answer_key", "included"]])
        return con.execute(
            "SELECT p.model, count(*) FILTER (WHERE p.valid AND p.answer = k.answer_key) AS correct, "
            "count(*) FILTER (WHERE p.valid) AS n_valid, (SELECT count(*) FROM k WHERE included) AS n_items "
            "FROM predictions p JOIN k USING (question_id) WHERE p.benchmark = 'demo' AND k.included "
            "GROUP BY p.model ORDER BY p.model").df()
    finally:
        con.close()


@pytest.fixture
def versions(tmp_path):
    db = tmp_path / "d.duckdb"
    build_demo(db)
    truth = demo_truth(db)
    wrong = sorted(q for q, t in truth.items() if t.get("injected_key_error"))
    assert len(wrong) >= 10
    exports = tmp_path / "exports"
    _settle_wrong(db, wrong[:5], truth)
    create_version("demo", "1.1", db=db, exports_dir=exports)
    _settle_wrong(db, wrong[5:10], truth)
    create_version("demo", "1.2", db=db, exports_dir=exports)
    return db, exports


def test_every_model_under_every_version_and_differences_recomputed(versions, tmp_path):
    db, exports = versions
    s = version_scores("demo", db=db)
    assert list(s.columns) == SCORE_COLUMNS
    models = sorted(s["model"].unique())
    assert len(models) == 8
    for v in ("1.0", "1.1", "1.2", "working"):
        assert sorted(s.loc[s["version"] == v, "model"]) == models, v
    assert s.set_index("version")["superseded"].groupby(level=0).all().to_dict() == {
        "1.0": True, "1.1": True, "1.2": False, "working": False}
    acc = {}
    for v in ("1.0", "1.1", "1.2"):
        r = _recompute(db, exports / "demo" / v).set_index("model")
        acc[v] = r["correct"] / r["n_items"]
        got = s[s["version"] == v].set_index("model")
        assert (got["n_items"] == r["n_items"]).all()
        assert (got["n_valid"] == r["n_valid"]).all()
        assert got["accuracy"].to_numpy() == pytest.approx(acc[v].loc[got.index].to_numpy(), abs=1e-12)
    for prev, v in (("1.0", "1.1"), ("1.1", "1.2")):
        got = s[s["version"] == v].set_index("model")["change_points"].astype(float)
        want = (acc[v] - acc[prev]) * 100
        assert got.to_numpy() == pytest.approx(want.loc[got.index].to_numpy(), abs=1e-9)
        assert (got != 0).any()      # the corrections moved some scores
    assert s.loc[s["version"] == "1.0", "change_points"].isna().all()
    # the Wilson interval is statsmodels' own
    from statsmodels.stats.proportion import proportion_confint
    r = _recompute(db, exports / "demo" / "1.2").set_index("model")
    one = s[(s["version"] == "1.2")].set_index("model").loc[models[0]]
    lo, hi = proportion_confint(r.loc[models[0], "correct"], r.loc[models[0], "n_items"], method="wilson")
    assert (one["accuracy_low"], one["accuracy_high"]) == pytest.approx((lo, hi))
    # the DATASHEET of 1.2 carries the table: every model under 1.0, 1.1 and 1.2
    sheet = (exports / "demo" / "1.2" / "DATASHEET.md").read_text(encoding="utf-8")
    part = sheet.split("## Scores under every key version", 1)[1]
    for m in models:
        assert sum(line.startswith(f"| {m.replace('_', chr(92) + '_')} |") for line in part.splitlines()) == 3, m
    assert "1.1 (superseded)" in part and "key correction" in part


def test_a_model_imported_later_is_scored_on_every_version(versions, tmp_path, capsys):
    db, exports = versions
    con = duckdb.connect(str(db), read_only=True)
    ids = [r[0] for r in con.execute("SELECT question_id FROM questions WHERE benchmark = 'demo' "
                                     "ORDER BY seq").fetchall()]
    con.close()
    f = tmp_path / "late.csv"
    pd.DataFrame({"question_id": ids, "model": "late-model-7b", "answer": ["A"] * len(ids)}).to_csv(f, index=False)
    import_predictions(f, benchmark="demo", db=db)
    s = version_scores("demo", db=db)
    late = s[s["model"] == "late-model-7b"]
    assert sorted(late["version"]) == ["1.0", "1.1", "1.2", "working"]
    for v in ("1.0", "1.1", "1.2"):
        keys = pq.read_table(exports / "demo" / v / "questions.parquet").to_pandas()
        inc = keys[keys["included"]]
        want = (inc["answer_key"] == "A").mean()
        assert late.set_index("version").loc[v, "accuracy"] == pytest.approx(want)
    # the CLI's JSON rows are the same table (the Interface other tools read)
    from typer.testing import CliRunner

    from audit.cli import app

    res = CliRunner().invoke(app, ["report", "scores", "--benchmark", "demo", "--format", "json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert set(rows[0]) == set(SCORE_COLUMNS)
    assert {(r["model"], r["version"]) for r in rows} == set(zip(s["model"], s["version"]))
