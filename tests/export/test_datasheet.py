"""audit.export._datasheet: the DATASHEET.md text from hand-built tables —
counts, the what-changed table grouped by action and cause, examples in
import order, reviewer and kappa tables, model accuracy with Δ points, the
impact section, and escaping of every untrusted string (HTML, table pipes,
backticks, Markdown emphasis and links)."""
from __future__ import annotations

import pandas as pd
import pytest

from audit.export._datasheet import EXAMPLES, METRIC_COLUMNS, md, render_datasheet
from audit.export.policy import get_policy

COUNTS = {"items": 8, "corrected": 2, "excluded": 1, "unchanged": 5, "reviewed": 3}


def _items(n_corrected=2):
    rows = []
    for i in range(8):
        action = "corrected" if i < n_corrected else ("excluded" if i == n_corrected else "unchanged")
        rows.append({"seq": 8 - i, "question_id": f"q{i}", "action": action, "original_key": "A",
                     "answer_key": "B" if action == "corrected" else "A",
                     "exclusion_list": "ambiguous" if action == "excluded" else None,
                     "verdict": {"corrected": "key_wrong", "excluded": "ambiguous"}.get(action),
                     "cause": "key_slip" if action == "corrected" else None, "adjudicated": i == 0,
                     "rationale": "<script>alert(1)</script> | `rm` *bold* [link](x)" if i == 0 else None})
    return pd.DataFrame(rows)


def _render(**kw):
    args = dict(benchmark="toy", version="1.1", parent="1.0", policy=get_policy("default"), counts=COUNTS,
                items=_items(), kappa=None, reviewer_counts=None, metrics=None)
    args.update(kw)
    return render_datasheet(**args)


def test_md_escapes_collapses_and_truncates():
    assert md(None) == "" and md(float("nan")) == ""
    assert md("a\n\tb   c") == "a b c"
    assert md("<b>x</b> | `y` *z* _w_ [l](u) \\") == (
        "&lt;b&gt;x&lt;/b&gt; \\| \\`y\\` \\*z\\* \\_w\\_ \\[l\\](u) \\\\")
    cut = md("abcdefghij", limit=5)
    assert cut == "abcd…" and md("abcde", limit=5) == "abcde"
    assert md(3) == "3" and md("བོད་ཡིག ئۇيغۇر") == "བོད་ཡིག ئۇيغۇر"


def test_header_counts_and_changed_table():
    text = _render()
    assert text.startswith("# toy — answer-key version 1.1\n")
    assert "- Parent version: 1.0" in text
    assert "- Items: 8; corrected: 2; excluded: 1; unchanged: 5; reviewed: 3" in text
    assert "| corrected | Answer-key slip | 2 |" in text and "| excluded | (none) | 1 |" in text
    assert "Exclusion lists: Ambiguous (`excluded-ambiguous.txt`): 1" in text
    assert text.endswith("\n") and "\n\n\n" not in text


def test_no_parent_and_nothing_changed():
    text = _render(parent=None, items=_items(0).assign(action="unchanged"))
    assert "- Parent version: none (original keys)" in text
    assert "No key was corrected and no item was excluded." in text
    assert "No expert reviews were recorded." in text
    assert "No model predictions are stored for this benchmark." in text


def test_examples_are_the_first_in_import_order_and_escaped():
    items = _items(7)
    text = _render(items=items, stems={"q0": "=cmd()" + "x" * 200, "q6": "<img src=x>"})
    block = text.split("### Examples of corrected keys")[1].split("###")[0]
    assert f"(first {EXAMPLES} in benchmark order)" in block
    rows = [line for line in block.splitlines() if line.startswith("| q")]
    # seq runs 8..1 for q0..q7: the lowest seq first
    assert [r.split(" | ")[0][2:] for r in rows] == ["q6", "q5", "q4", "q3", "q2"]
    assert "&lt;img src=x&gt;" in rows[0] and "<img" not in text
    assert "| A → B |" in rows[0]
    text = _render(stems={"q0": "=cmd()" + "x" * 200})
    row0 = next(line for line in text.splitlines() if line.startswith("| q0 |"))
    assert "key\\_wrong (adjudicated)" in row0 and "&lt;script&gt;" in row0 and "<script>" not in text
    assert "\\| \\`rm\\` \\*bold\\* \\[link\\](x)" in row0
    cells = row0.split(" | ")
    assert cells[1].endswith("…") and len(cells[1]) <= 80


def test_reviewers_and_kappa_table():
    reviewers = pd.DataFrame({"reviewer": ["al|ice", "bob"], "n_items": [3, 1]})
    text = _render(reviewer_counts=reviewers)
    assert "| al\\|ice | 3 |" in text
    assert "Inter-reviewer agreement: no two reviewers reviewed the same item." in text
    kappa = pd.DataFrame({"rater_a": ["al|ice"], "rater_b": ["bob"], "n": [4], "kappa": [0.5], "ci_low": [-0.1234],
                          "ci_high": [1.0]})
    text = _render(reviewer_counts=reviewers, kappa=kappa, kappa_overall="pooled <b>0.5</b>")
    assert "| al\\|ice | bob | 4 | 0.50 | [-0.12, 1.00] |" in text
    assert "pooled &lt;b&gt;0.5&lt;/b&gt;" in text
    kappa = kappa.assign(kappa=[float("nan")], ci_low=[float("nan")])
    assert "| al\\|ice | bob | 4 | – | – |" in _render(reviewer_counts=reviewers, kappa=kappa)


def test_model_table_sorted_with_percentages_and_signed_delta():
    m = pd.DataFrame([
        ["zeta", 10, 0.5, 0.2366, 0.7634, 9, 0.6667, 0.3542, 0.8794, 16.67],
        ["<alpha>", 10, 0.3, 0.1078, 0.6032, 9, 0.2222, 0.0632, 0.5474, -7.78],
        ["nan-model", 0, float("nan"), float("nan"), float("nan"), 0, float("nan"), float("nan"), float("nan"),
         float("nan")],
    ], columns=METRIC_COLUMNS)
    text = _render(metrics=m, model_note="2 models left out")
    section = text.split("## Model accuracy")[1]
    lines = [x for x in section.splitlines() if x.startswith("| ") and "Model" not in x]
    assert lines[0] == "| &lt;alpha&gt; | 10 | 30.0 [10.8, 60.3] | 9 | 22.2 [6.3, 54.7] | -7.8 |"
    assert lines[1] == "| nan-model | 0 | – [–, –] | 0 | – [–, –] | – |"
    assert lines[2] == "| zeta | 10 | 50.0 [23.7, 76.3] | 9 | 66.7 [35.4, 87.9] | +16.7 |"
    assert "2 models left out" in text


def test_impact_section_scored_and_one_model():
    cost = pd.DataFrame({"model": ["m"], "accuracy": [0.5], "accuracy_right_keys": [0.55],
                         "accuracy_right_keys_low": [0.5], "accuracy_right_keys_high": [0.6],
                         "accuracy_corrected": [0.52], "cost_points": [-2.3449]})
    impact = {"scored": True, "level": 0.9, "wrong_key_cost": cost,
              "expected_wrong_keys": {"estimate": 12.4, "low": 8.0, "high": 17.6, "n_items": 300}}
    text = _render(impact=impact)
    assert "About 12 of the 300 keys are probably wrong (90% posterior interval 8–18" in text
    assert "| m | 50.0 | 55.0 [50.0, 60.0] | 52.0 | -2.34 |" in text
    assert text.index("What wrong keys cost") < text.index("What changed and why")
    text = _render(impact={"scored": False})
    assert "this audit has one." in text


def test_scores_section_only_with_scores():
    assert "Scores under every key version" not in _render(scores=pd.DataFrame())
    scores = pd.DataFrame([{"model": "m|x", "version": "1.0", "accuracy": 0.5, "accuracy_low": 0.3,
                            "accuracy_high": 0.7, "conditional_accuracy": 0.5, "n_valid": 10, "n_items": 10,
                            "change_points": None, "superseded": True}])
    text = _render(scores=scores)
    assert "## Scores under every key version" in text and "| m\\|x | 1.0 (superseded) |" in text


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_percent_bounds(value):
    m = pd.DataFrame([["m", 4, value, value, value, 4, value, value, value, 0.0]], columns=METRIC_COLUMNS)
    text = _render(metrics=m)
    pct = f"{100 * value:.1f}"
    assert f"| m | 4 | {pct} [{pct}, {pct}] | 4 | {pct} [{pct}, {pct}] | +0.0 |" in text
