"""``analyze`` gives the same results as the golden file: tiers, lint,
key-error scores (to 1e-9) and the JSON report, on seeded synthetic data
(planted wrong keys and shared misconceptions, every edge case listed in
tests/support/analyze_golden.py, presets shares / tlue4 / tlue8, a one-model
benchmark, items without predictions, the fit's sampled path) and on the real
MMLU-Redux dev set when ../shared/data has it.  A change of speed or layout
must leave every figure as it is.

The golden file was written with the key-error model whose split depends on
the model set; write it again only when the model changes on purpose::

    python3 tests/support/analyze_golden.py --write tests/data/analyze_golden.json.gz
"""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

import tests.support.analyze_golden as golden

HERE = Path(__file__).resolve().parents[1]

GOLDEN = HERE / "data" / "analyze_golden.json.gz"
TOL = 1e-9


def _diff(a, b, path: str, out: list[str]) -> None:
    """Append to ``out`` where ``a`` (new) differs from ``b`` (golden):
    numbers within TOL (absolute, or relative for large values), everything
    else exactly."""
    if len(out) > 20:
        return
    if isinstance(b, bool) or b is None or isinstance(b, str):
        if a != b:
            out.append(f"{path}: {a!r} != golden {b!r}")
    elif isinstance(b, (int, float)):
        if not isinstance(a, (int, float)) or isinstance(a, bool):
            out.append(f"{path}: {a!r} != golden {b!r}")
        elif math.isnan(b) or math.isnan(a):
            if not (math.isnan(b) and math.isnan(a)):
                out.append(f"{path}: {a!r} != golden {b!r}")
        elif abs(a - b) > TOL * max(1.0, abs(b)):
            out.append(f"{path}: {a!r} != golden {b!r} (difference {a - b:.3g})")
    elif isinstance(b, dict):
        # (a later release may add fields: the golden ones must all be there, with the same values)
        if not isinstance(a, dict) or not set(b) <= set(a):
            out.append(f"{path}: keys {sorted(a) if isinstance(a, dict) else a!r} lack golden {sorted(b)}")
            return
        for k in b:
            _diff(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            out.append(f"{path}: {len(a) if isinstance(a, list) else a!r} items != golden {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _diff(x, y, f"{path}[{i}]", out)
    else:
        out.append(f"{path}: unexpected golden value {b!r}")


def test_diff_catches_changes():
    out: list[str] = []
    _diff({"s": [0.5, 1.0], "t": "tier1"}, {"s": [0.5 + 1e-12, 1.0], "t": "tier1"}, "x", out)
    assert out == []
    _diff({"s": [0.5 + 1e-6], "t": "tier2", "n": None}, {"s": [0.5], "t": "tier1", "n": 3}, "x", out)
    assert len(out) == 3


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    want = json.load(gzip.open(GOLDEN, "rt", encoding="utf-8"))
    db = tmp_path_factory.mktemp("identical") / "g.duckdb"
    names = golden.build(db)
    if "mmlu-redux" in want["benchmarks"] and "mmlu-redux" not in names:
        names_note = "the MMLU-Redux part is skipped: ../shared/data/mmlu_redux_dev is absent"
    else:
        names_note = ""
    # round-trip through JSON as the golden file did (tuples → lists, dates → str)
    got = json.loads(json.dumps(golden.figures(db, names), default=str, sort_keys=True))
    return got, want["figures"], names_note


@pytest.mark.slow
@pytest.mark.parametrize("label", [c[0] for c in golden.CONFIGS])
def test_identical_to_golden(figures, label):
    got, want, note = figures
    if label not in got:
        pytest.skip(note or f"{label}: benchmark not built")
    g, w = got[label], want[label]
    problems: list[str] = []
    for part in ("counts", "n_lint", "t", "results", "lint", "scores", "params", "report"):
        _diff(g[part], w[part], f"{label}.{part}", problems)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_golden_covers_the_cases(figures):
    """The golden data holds what the comparison is meant to cover (so the
    test cannot pass vacuously)."""
    _, want, _ = figures
    syn = want["syn-shares"]["counts"]
    assert syn["no_prediction"] == 20 and syn["multi_answer"] == 3 and syn["tier1"] > 0 and syn["tier3"] > 0
    assert want["one"]["counts"]["needs_two_models"] > 0
    assert len(want["big-shares"]["scores"]["score"]) > 10_000   # the fit's sampled path
    assert {"constant_predictor", "duplicate_options", "key_not_in_options"} <= set(want["syn-shares"]["lint"]["kind"])
    assert any(x is not None and x > 0.5 for x in want["syn-shares"]["scores"]["score"])
