"""audit.report.scores: the scores table rendered as a table, JSON rows,
CSV (formula cells neutralised) and Markdown (names escaped), on a
hand-built frame; ``scores_report`` on the toy benchmark's working keys
(accuracy counted by hand) and written to a file."""
from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest

from audit.errors import InputError
from audit.export.scores import SCORE_COLUMNS
from audit.report.scores import FORMATS, md, render_scores, scores_report
from tests.support.toy_release import BENCH, EXPECTED_DEFAULT, MODELS, hand_accuracy, toy_db

FRAME = pd.DataFrame([
    {"model": "=HYPERLINK(1)", "version": "1.0", "accuracy": 0.6, "accuracy_low": 0.3127, "accuracy_high": 0.8318,
     "conditional_accuracy": 0.6, "n_valid": 10, "n_items": 10, "change_points": None, "superseded": True},
    {"model": "=HYPERLINK(1)", "version": "1.1", "accuracy": 1.0, "accuracy_low": 0.6756, "accuracy_high": 1.0,
     "conditional_accuracy": 1.0, "n_valid": 8, "n_items": 8, "change_points": 40.0, "superseded": False},
    {"model": "<b>བོད</b>|x", "version": "1.1", "accuracy": float("nan"), "accuracy_low": float("nan"),
     "accuracy_high": float("nan"), "conditional_accuracy": float("nan"), "n_valid": 0, "n_items": 8,
     "change_points": -2.5, "superseded": False},
], columns=SCORE_COLUMNS)


def test_md_escapes_untrusted_text():
    assert md("a\n b") == "a b"
    assert md("<i>x</i> | `y` *z*") == "&lt;i&gt;x&lt;/i&gt; \\| \\`y\\` \\*z\\*"


def test_json_rows_are_the_frame():
    rows = json.loads(render_scores(FRAME, "json"))
    assert [r["version"] for r in rows] == ["1.0", "1.1", "1.1"]
    assert rows[0]["change_points"] is None and rows[1]["change_points"] == 40.0
    assert rows[2]["accuracy"] is None and rows[0]["superseded"] is True


def test_csv_neutralises_formula_cells_and_keeps_numbers():
    rows = list(csv.reader(io.StringIO(render_scores(FRAME, "csv"))))
    assert rows[0] == SCORE_COLUMNS
    assert rows[1][0] == "'=HYPERLINK(1)" and rows[1][2] == "0.6" and rows[3][8] == "-2.5"


def test_markdown_escapes_names_and_the_benchmark():
    text = render_scores(FRAME, "markdown", "b|<x>")
    assert text.startswith("# Scores under every key version: b\\|&lt;x&gt;\n")
    assert "| &lt;b&gt;བོད&lt;/b&gt;\\|x | 1.1 | – [–, –] | – | 0 / 8 | -2.5 |" in text
    assert "| =HYPERLINK(1) | 1.0 (superseded) | 60.0 [31.3, 83.2] | 60.0 | 10 / 10 | – |" in text


def test_the_table_says_the_change_is_a_key_correction():
    text = render_scores(FRAME, "table")
    assert "60.0 [31.3, 83.2]" in text and "+40.0" in text and "superseded" in text
    assert "The change from the previous version is a key correction" in text
    assert render_scores(FRAME.iloc[0:0], "table") == "(no model predictions)\n"


def test_unknown_format():
    assert FORMATS == ("table", "json", "csv", "markdown")
    with pytest.raises(InputError, match="unknown format 'html'"):
        render_scores(FRAME, "html")


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    return toy_db(tmp_path_factory.mktemp("report-scores"), migrated_template)


def test_scores_report_on_the_working_keys(toy, tmp_path):
    rows = json.loads(scores_report(BENCH, fmt="json", db=toy))
    assert [r["version"] for r in rows] == ["working"] * 3 and [r["model"] for r in rows] == MODELS
    keys = {q: k for q, (_, k) in EXPECTED_DEFAULT.items()}
    included = {q for q, (a, _) in EXPECTED_DEFAULT.items() if a != "excluded"}
    for r in rows:
        k, n = hand_accuracy(keys, included, r["model"])
        assert (r["n_items"], r["accuracy"]) == (n, pytest.approx(k / n))
    out = tmp_path / "s.md"
    assert scores_report(BENCH, fmt="markdown", output=out, db=toy) is None
    assert out.read_text(encoding="utf-8").startswith("# Scores under every key version: toy\n")
    with pytest.raises(InputError):
        scores_report(BENCH, fmt="xml", db=toy)
