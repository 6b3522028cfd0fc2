"""audit.analyze.reporting: the analysis sections of a benchmark's report on
a small real database whose model names are hostile text — the numbers
(accuracy and its Wilson interval against statsmodels, tiers summing to the
items), every renderer (table, JSON round trip, CSV with formula cells
neutralised, Markdown with HTML and pipes escaped), writing to a file, and
the plain-words notes."""
import csv
import io
import json
import math
import shutil

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from audit.analyze.reporting import (
    FORMATS,
    analysis_report,
    key_error_note,
    records,
    render_report,
    report_frame,
    scenario_note,
    write_report,
)
from audit.errors import InputError
from tests.support.tiny import tiny_benchmark

HOSTILE = "<b>m|1</b>"
FORMULA = "=cmd()"
ANSWERS = {HOSTILE: "ABCDABCDBBCD", FORMULA: "ABCDABCDBBCA", "qwen-2": "ABCDABCABBCA"}


@pytest.fixture(scope="module")
def rep(migrated_template, tmp_path_factory):
    from audit.analyze import analyze_benchmark

    work = tmp_path_factory.mktemp("reporting")
    db = work / "r.duckdb"
    shutil.copyfile(migrated_template, db)
    tiny_benchmark(db, work, n=12, answers=ANSWERS)
    analyze_benchmark("tiny", db=db)
    return analysis_report("tiny", db=db)


def test_sections_and_numbers(rep):
    assert rep["benchmark"] == "tiny" and sorted(rep["run"]["models"]) == sorted(ANSWERS)
    assert sum(rep["tiers"].values()) == 12 and set(rep["tier_names"]) >= {"0", "1", "5"}
    assert sum(rep["difficulty"].values()) == 12
    keys = "ABCD" * 3
    for m in rep["metrics"]:
        k = sum(a == b for a, b in zip(ANSWERS[m["model"]], keys))
        lo, hi = proportion_confint(k, 12, alpha=0.05, method="wilson")
        assert (m["n_correct"], m["n_questions"]) == (k, 12)
        assert m["accuracy"] == pytest.approx(k / 12)
        assert m["accuracy_low"] == pytest.approx(lo) and m["accuracy_high"] == pytest.approx(min(hi, 1.0))
    assert {r["scenario"] for r in rep["scenarios"]} >= {"baseline"}
    assert len([c for c in rep["comparisons"] if c["scenario"] == "baseline"]) == 3       # 3 pairs
    assert rep["expected_wrong_keys"]["n_items"] == 12 and rep["interval_level"] == 0.9
    assert rep["key_error_note"].startswith("About ")


def test_json_round_trip(rep):
    back = json.loads(render_report(rep, "json"))
    assert back["metrics"] == json.loads(json.dumps(rep["metrics"]))
    assert HOSTILE in {m["model"] for m in back["metrics"]}


def test_table_has_every_section(rep):
    text = render_report(rep, "table")
    assert text.startswith("benchmark tiny — audit run ")
    for title in ("What wrong keys cost each model", "Agreement tiers", "Models", "Filtering scenarios",
                  "Pairwise comparisons (baseline", "Lint"):
        assert f"\n{title}" in text
    assert "(none)" in text           # no lint findings


def test_markdown_escapes_model_names(rep):
    md = render_report(rep, "markdown")
    assert md.startswith("# Audit report: tiny")
    assert "<b>" not in md and "&lt;b&gt;m\\|1&lt;/b&gt;" in md
    for line in md.splitlines():
        if line.startswith("| ") and "m\\|1" in line:
            assert line.count(" | ") == line.replace("\\|", "").count(" | ")


def test_csv_neutralises_formula_cells(rep):
    text = render_report(rep, "csv")
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert FORMULA not in cells and "'" + FORMULA in cells
    df = pd.read_csv(io.StringIO(text))
    assert list(df.columns[:3]) == ["benchmark", "run_id", "section"]
    assert set(df["section"]) >= {"tiers", "metrics", "difficulty", "scenarios", "comparisons", "wrong_key_cost"}


def test_report_frame_keeps_numbers_unformatted(rep):
    df = report_frame(rep)
    m = df[df["section"] == "metrics"]
    assert sorted(m["accuracy"].astype(float)) == pytest.approx(sorted(r["accuracy"] for r in rep["metrics"]))
    assert (df["benchmark"] == "tiny").all()


def test_write_report(rep, tmp_path):
    for fmt in FORMATS:
        out = tmp_path / f"r.{fmt}"
        assert write_report(rep, fmt, out) is None
        assert out.stat().st_size > 100
    assert (tmp_path / "r.csv").read_bytes().startswith(b"\xef\xbb\xbf")            # Excel reads UTF-8
    assert (tmp_path / "r.markdown").read_text(encoding="utf-8") == render_report(rep, "markdown")
    assert write_report(rep, "json") == render_report(rep, "json")


def test_unknown_format(rep):
    with pytest.raises(InputError, match="unknown format 'html'"):
        render_report(rep, "html")


def test_records_make_json_safe_values():
    df = pd.DataFrame({"a": [1, 2], "b": [float("nan"), 0.5], "c": pd.array([pd.NA, "x"], dtype="string")})
    assert records(df) == [{"a": 1, "b": None, "c": None}, {"a": 2, "b": 0.5, "c": "x"}]
    assert type(records(df)[0]["a"]) is int


def test_notes():
    assert "at least two models; this run has 1" in key_error_note({"scored": False}, 1)
    imp = {"scored": True, "level": 0.9, "expected_wrong_keys": {"estimate": 7.6, "n_items": 300, "low": 3.2,
                                                                 "high": 12.9}}
    assert key_error_note(imp, 8) == "About 8 of the 300 keys are probably wrong (90% interval 3–13)."
    assert scenario_note(pd.DataFrame()) == ""
    scen = pd.DataFrame({"scenario": ["baseline", "excl_tier1", "excl_tier1"], "delta_points": [0.0, 4.0, 2.0],
                         "control_delta_points": [0.0, 1.0, 1.0]})
    note = scenario_note(scen)
    assert "+3.00 points, of which key errors explain about +2.00" in note and "gives +1.00" in note
    scen["control_delta_points"] = math.nan
    assert scenario_note(scen) == ""
