"""The report dict and its renderers (table, json, csv, markdown), and the
`audit report` command."""
from __future__ import annotations

import csv
import io
import json

import pytest

from audit.analyze import analyze_benchmark, model_metrics, scenario_table, tier_counts
from audit.analyze.reporting import render_report
from audit.report import build_report as report
from tests.support.analyze_data import make_benchmark, random_benchmark, run_cli
from tests.support.common import copy_db


def _analysed(path, _folder):
    questions, families, preds = random_benchmark(4, n_questions=60, n_models=4, n_families=2)
    # hostile model names: a spreadsheet formula and HTML
    rename = {"m00": "=HYPERLINK(\"http://x\")", "m01": "<script>alert(1)</script>|x"}
    families = {rename.get(m, m): f for m, f in families.items()}
    preds = {(q, rename.get(m, m)): a for (q, m), a in preds.items()}
    make_benchmark(path, "rep", questions, families, preds,
                   option_texts={"q005": ["same", "same", "c", "d"]})
    analyze_benchmark("rep", db=path)


@pytest.fixture
def db(tmp_path, db_template):
    return copy_db(db_template(_analysed), tmp_path / "r.duckdb")


def test_report_contents(db):
    rep = report("rep", db=db)
    tc = tier_counts("rep", db=db)
    assert rep["tiers"] == {str(int(t)): int(n) for t, n in zip(tc["tier"], tc["n"])}
    assert sum(rep["tiers"].values()) == 60
    mm = model_metrics("rep", db=db)
    assert [m["model"] for m in rep["metrics"]] == mm["model"].tolist()
    assert [m["n_correct"] for m in rep["metrics"]] == mm["n_correct"].tolist()
    assert len(rep["scenarios"]) == len(scenario_table("rep", db=db)) == 5 * 4
    assert len(rep["comparisons"]) == 5 * 6
    assert sum(rep["difficulty"].values()) == 60
    assert any(l["kind"] == "duplicate_options" and l["question_id"] == "q005" for l in rep["lint"])
    assert rep["run"]["config"]["n_models"] == 4 and len(rep["run"]["models"]) == 4
    # JSON-safe: no NaN, round-trips
    text = render_report(rep, "json")
    assert "NaN" not in text
    assert json.loads(text)["tiers"] == rep["tiers"]


def test_csv_is_neutralised_and_parses(db):
    rep = report("rep", db=db)
    text = render_report(rep, "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    sections = {r["section"] for r in rows}
    # sections added through report hooks (the judge stage's agreement statistics) are titled "Agreement: …"
    assert {s for s in sections if not s.startswith("Agreement:")} == {
        "tiers", "metrics", "difficulty", "scenarios", "comparisons", "lint",
        # what wrong keys cost
        "wrong_key_cost", "expected_wrong_keys", "expected_wrong_keys_by_subject", "expected_wrong_keys_by_tier",
        # the random audit sample's count (none drawn: its reason) and the plain-word notes
        "expected_wrong_keys_sampled", "notes"}
    assert "Agreement: model vs model (Cohen's kappa on answers)" in sections
    models = {r["model"] for r in rows if r["section"] == "metrics"}
    assert "'=HYPERLINK(\"http://x\")" in models
    assert not any(v.startswith(("=", "+", "@")) for r in rows for v in r.values() if v)
    tiers = {r["tier"]: int(r["n"]) for r in rows if r["section"] == "tiers"}
    assert tiers == {k: v for k, v in rep["tiers"].items()}


def test_markdown_and_table_escape_and_show_everything(db):
    rep = report("rep", db=db)
    md = render_report(rep, "markdown")
    assert "<script>" not in md and "&lt;script&gt;alert(1)&lt;/script&gt;\\|x" in md
    for title in ("## Agreement tiers", "## Models", "## Filtering scenarios", "## Pairwise comparisons", "## Lint"):
        assert title in md
    table = render_report(rep, "table")
    assert "Agreement tiers" in table and "key consensus" in table
    first = rep["metrics"][0]
    assert f"{100 * first['conditional_accuracy']:.2f}%" in table


@pytest.mark.slow
def test_cli_report_formats_and_output_file(db, tmp_path):
    r = run_cli("report", "--benchmark", "rep", "--format", "json", db=db)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["benchmark"] == "rep"
    out = tmp_path / "rep.md"
    r = run_cli("report", "--benchmark", "rep", "--format", "markdown", "--output", out, db=db)
    assert r.returncode == 0 and out.read_text(encoding="utf-8").startswith("# Audit report: rep")
    out_csv = tmp_path / "rep.csv"
    r = run_cli("report", "-b", "rep", "-f", "csv", "-o", out_csv, db=db)
    assert r.returncode == 0 and out_csv.read_bytes().startswith(b"\xef\xbb\xbf\"benchmark\"")
    r = run_cli("report", "-b", "rep", "-f", "xml", db=db)
    assert (
        r.returncode == 1
        and r.stderr.strip() == "error: unknown format 'xml' (choose one of table, json, csv, markdown)"
    )
    r = run_cli("report", "-b", "nope", db=db)
    assert r.returncode == 1 and r.stderr.startswith("error: no benchmark named 'nope'")


@pytest.mark.slow
@pytest.mark.shared_data
def test_report_on_mmlu_redux(mmlu_redux_dir, tmp_path):
    from audit.ingest import import_mmlu_redux

    path = tmp_path / "redux.duckdb"
    import_mmlu_redux(mmlu_redux_dir, db=path)
    r = run_cli("analyze", "--preset", "tlue4", db=path)
    assert r.returncode == 0 and "Tier 3        488" in r.stdout
    rep = report(db=path)
    assert rep["tiers"] == {"0": 813, "1": 27, "2": 22, "3": 488, "4": 47, "5": 103}
    assert len(rep["metrics"]) == 14 and len(rep["comparisons"]) == 5 * 91
