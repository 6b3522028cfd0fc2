"""audit.review.rescoring: ``audit rescore`` — the number of settled items
the refit learnt from (the toy benchmark's, by hand), the calibration table
on request, and the summary lines (formatting on a hand-built table)."""
from __future__ import annotations

import pandas as pd
import pytest

from audit.analyze import analyze_benchmark
from audit.review import settled_verdicts
from audit.review.rescoring import RescoreSummary, rescore_benchmark
from tests.support.toy_release import BENCH, toy_db


@pytest.fixture(scope="module")
def toy(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("rescore"), migrated_template)
    analyze_benchmark(BENCH, db=db)
    return db


def test_refit_learns_from_the_settled_items(toy):
    s = rescore_benchmark(BENCH, db=toy)
    # settled after the analysis: t02 and t04 key_wrong, t05 ambiguous, t06 defective, t07 key_correct
    assert s.n_settled == 5 == len(settled_verdicts(BENCH, db=toy))
    assert s.calibration is None
    assert s.lines() == ["toy: key-error score refitted with 5 settled item(s)"]


def test_with_calibration(toy):
    s = rescore_benchmark(None, calibration=True, db=toy)
    tab = s.calibration
    assert {"band", "n", "predicted", "observed", "low", "high", "note"} <= set(tab.columns)
    assert tab["n"].sum() == tab.attrs["n"] == 5
    assert tab.attrs["observed"] == 2                       # t02 and t04 were found wrong
    lines = s.lines()
    assert lines[1].startswith("reliability per score band on settled items")
    assert lines[-1].startswith("Brier score ") and lines[-1].endswith("found 2")


def test_lines_of_a_hand_built_table():
    tab = pd.DataFrame({"band": ["0.00–0.10", "0.90–1.00"], "n": [40, 10], "predicted": [0.02, 0.95],
                        "observed": [0.025, 0.9], "low": [0.004, 0.596], "high": [0.129, 0.982],
                        "note": ["", "too few items"]})
    tab.attrs = {"brier": 0.01234, "n": 50, "expected": 10.3, "observed": 10}
    lines = RescoreSummary("b", 50, tab, reference="mmlu_redux_error_type").lines()
    assert lines == [
        "b: key-error score refitted with 50 settled item(s)",
        "reliability per score band on reference labels 'mmlu_redux_error_type' (items, mean score, share found "
        "wrong, Wilson 95%):",
        "  0.00–0.10  n=40    mean score 0.020  found wrong 0.025 [0.004, 0.129]",
        "  0.90–1.00  n=10    mean score 0.950  found wrong 0.900 [0.596, 0.982]  too few items",
        "Brier score 0.0123 over 50 items; expected wrong keys 10.3, found 10",
    ]
    empty = RescoreSummary("b", 0, tab.iloc[0:0]).lines()
    assert empty == ["b: key-error score refitted with 0 settled item(s)", "no settled items yet"]
