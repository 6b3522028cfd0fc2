"""analyze runs its DuckDB work (the lint, the score's items, writing the
tiers) in a second thread beside its NumPy work (the tiers' figures, the
key-error fit).  A failure on either side must still stop the
whole analysis with nothing written, and the next analysis must work."""
from __future__ import annotations

import duckdb
import pytest

import audit.analyze.tiers as tiers
from audit.analyze import analyze_benchmark, tier_counts
from tests.support.analyze_data import make_benchmark, random_benchmark
from tests.support.common import copy_db


def _bench(path, _folder):
    questions, families, preds = random_benchmark(7, n_questions=80, n_models=5, n_families=3)
    make_benchmark(path, "b", questions, families, preds)


@pytest.fixture
def db(tmp_path, db_template):
    return copy_db(db_template(_bench), tmp_path / "t.duckdb")


def _rows(db) -> tuple[int, int, int, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return tuple(con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]      # type: ignore[return-value]
                     for t in ("audit_runs", "audit_results", "audit_lint", "key_error_scores"))


def _boom(*_a, **_k):
    raise RuntimeError("boom")


@pytest.mark.parametrize("where, score", [
    ("_per_question", True),     # the tiers' figures, in this thread, while the second one runs the lint
    ("read_items", True),        # the score's items, in the second thread
    ("sampled_answers", True),   # the fit's sample, in this thread
    ("_per_question", False),    # no score
])
def test_a_failure_on_either_side_writes_nothing(db, monkeypatch, where, score):
    before = _rows(db)
    with monkeypatch.context() as m:
        m.setattr(tiers, where, _boom)
        with pytest.raises(RuntimeError, match="boom"):
            analyze_benchmark("b", db=db, score=score)
    assert _rows(db) == before
    s = analyze_benchmark("b", db=db, score=score)       # and the next analysis works
    assert sum(s.runs[0].counts.values()) == 80
    assert tier_counts("b", db=db)["n"].sum() == 80


def test_a_failing_lint_without_score_is_not_swallowed(db, monkeypatch):
    before = _rows(db)
    monkeypatch.setattr(tiers, "_LINT_SQL", "SELECT no_such_column FROM audit_lint")
    with pytest.raises(duckdb.Error, match="no_such_column"):      # the first error, not a later one
        analyze_benchmark("b", db=db, score=False)
    assert _rows(db) == before
