"""audit.ingest.extract._tlue_rules: TLUE's Direct Answer and Concern All
Answer decisions on a list of letters — the full-run removal (any order,
non-overlapping, left to right) and the one-distinct-letter rule."""
import pytest

from audit.ingest.extract._tlue_rules import _remove_full_runs, decide


@pytest.mark.parametrize("letters,n,kept", [
    (["A", "B", "C", "D"], 4, []),
    (["D", "C", "B", "A", "C"], 4, ["C"]),
    (["A", "B", "C", "D", "A", "B", "C", "D", "B"], 4, ["B"]),
    (["A", "A", "B", "C", "D"], 4, ["A"]),          # the window at 0 is not a permutation; the one at 1 is
    (["A", "B", "C"], 4, ["A", "B", "C"]),          # shorter than a run
    (["A", "B", "B", "A"], 2, []),                  # two runs of AB / BA
    (["A", "B", "C", "D", "E", "F"], 6, []),
])
def test_remove_full_runs(letters, n, kept):
    assert _remove_full_runs(letters, n) == kept


@pytest.mark.parametrize("letters,n,method,answer", [
    ([], 4, "da", None),
    ([], 4, "caa", None),
    (["B"], 4, "da", "B"),
    (["B", "B", "B"], 4, "da", "B"),
    (["B", "C"], 4, "da", None),
    (["A", "B", "C", "D", "C"], 4, "caa", "C"),
    (["A", "B", "C", "D", "C"], 4, "da", None),
    (["A", "B", "C", "D"], 4, "caa", None),          # only the echoed list: no answer
    (["C", "A", "B", "C", "D"], 4, "caa", "C"),      # C then the list
    (["A", "B", "C", "D", "C", "D"], 4, "caa", None),
])
def test_decide(letters, n, method, answer):
    assert decide(letters, n, method) == answer


def test_decide_does_not_change_its_input():
    letters = ["A", "B", "C", "D", "C"]
    decide(letters, 4, "caa")
    assert letters == ["A", "B", "C", "D", "C"]
