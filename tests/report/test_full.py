"""audit.report.full: the full report of the analysed toy benchmark — the
analysis keys plus the later stages' titled tables (the corrected-key
accuracy checked by hand), and ``benchmark_report`` writing each format
(unknown formats refused before the database is read)."""
from __future__ import annotations

import json

import pytest

from audit.analyze import analyze_benchmark
from audit.errors import InputError
from audit.report.full import benchmark_report, build_report
from audit.store import connect
from tests.support.toy_release import BENCH, EXPECTED_DEFAULT, ITEMS, MODELS, hand_accuracy, toy_db

pytestmark = pytest.mark.slow  # analyses and full reports: well over 5 s

CORRECTED_TITLE = "Accuracy: original keys vs the expert-corrected keys (policy default)"


@pytest.fixture(scope="module")
def report(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("full"), migrated_template)
    analyze_benchmark(BENCH, db=db)
    return db, build_report(BENCH, db=db)


def test_the_analysis_keys_and_the_later_stages_sections(report):
    _, rep = report
    assert rep["benchmark"] == BENCH and sorted(rep["run"]["models"]) == MODELS
    assert {"metrics", "tiers", "expected_wrong_keys", "wrong_key_cost", "extra"} <= set(rep)
    assert CORRECTED_TITLE in rep["extra"]
    assert "Agreement: reviewer vs reviewer (Cohen's kappa)" in rep["extra"]
    json.dumps(rep["extra"], allow_nan=False)           # records, JSON-safe


def test_corrected_key_accuracy_matches_a_hand_count(report):
    db, rep = report
    with connect(db, read_only=True) as con:
        tier = con.execute("SELECT tier FROM current_audit WHERE benchmark = ? AND question_id = 't08'",
                           [BENCH]).fetchone()[0]
    # once analysed, t08 is flagged (Tier 1-2): its one review no longer settles it, so it keeps its key A
    assert tier in (1, 2)
    rows = {r["model"]: r for r in rep["extra"][CORRECTED_TITLE]}
    assert set(rows) == set(MODELS)
    original = {q: v[3] for q, v in ITEMS.items()}
    corrected = {**{q: k for q, (_, k) in EXPECTED_DEFAULT.items()}, "t08": "A"}
    included = {q for q, (a, _) in EXPECTED_DEFAULT.items() if a != "excluded"}
    for m, r in rows.items():
        k0, n0 = hand_accuracy(original, set(ITEMS), m)
        k1, n1 = hand_accuracy(corrected, included, m)
        assert (r["n_valid_original"], r["n_correct_original"]) == (n0, k0)
        assert r["accuracy_original"] == pytest.approx(k0 / n0)
        assert r["accuracy_corrected"] == pytest.approx(k1 / n1), (m, r)


def test_json_to_a_file_and_the_only_benchmark_by_default(report, tmp_path):
    db, rep = report
    out = tmp_path / "r.json"
    assert benchmark_report(None, fmt="json", output=out, db=db) is None
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["benchmark"] == BENCH and set(got["extra"]) == set(rep["extra"])
    assert got["run"]["run_id"] == rep["run"]["run_id"]


def test_an_unknown_format_is_refused_before_reading(tmp_path):
    with pytest.raises(InputError, match="unknown format 'xlsx'"):
        benchmark_report(BENCH, fmt="xlsx", db=tmp_path / "never-created.duckdb")
    assert not (tmp_path / "never-created.duckdb").exists()
