"""The random audit sample on a real DuckDB file: ``audit review sample``
draws items with their inclusion probabilities, the drawn items enter every
reviewer's queue, and nothing a reviewer sees — the queue's rows, the item
page — tells a drawn item apart from any other."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from audit.demo import build_demo
from audit.report import build_report
from audit.review import add_reviews, draw_sample, review_queue, set_required_reviews
from audit.review.item import item_view
from audit.review.sample import sampled_counts
from tests.support.common import wrong_answer


@pytest.fixture()
def demo(tmp_path):
    db = tmp_path / "d.duckdb"
    build_demo(db)
    return db


def _cli(*args, db):
    import contextlib
    import io
    import sys

    from audit.cli import main

    out, err, old = io.StringIO(), io.StringIO(), sys.argv
    sys.argv = ["audit", *map(str, args), "--db", str(db)]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
    except SystemExit as e:
        code = e.code or 0
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


def _all_items(db) -> list[str]:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return [r[0] for r in con.execute("SELECT question_id FROM questions WHERE benchmark = 'demo'").fetchall()]


def test_cli_draws_a_sample_as_json_with_inclusion_probabilities(demo):
    code, out, err = _cli("review", "sample", "--benchmark", "demo", "--size", "20", "--seed", "3",
                          "--format", "json", db=demo)
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 20 and all(sorted(r) == ["inclusion_probability", "question_id"] for r in rows)
    assert all(0 < r["inclusion_probability"] <= 1 for r in rows)
    # the same seed draws the same items (the draw is stored, the last one counts)
    again = draw_sample("demo", 20, seed=3, db=demo)
    assert [r["question_id"] for r in again] == [r["question_id"] for r in rows]
    code, _, err = _cli("review", "sample", "--benchmark", "demo", "--size", "0", db=demo)
    assert code == 1 and err.startswith("error:") and len(err.strip().splitlines()) == 1


def test_inclusion_probabilities_add_up_to_the_benchmark(demo):
    """Σ 1/π_i over the drawn items = N (Horvitz–Thompson's weights), for every design."""
    n_items = len(_all_items(demo))
    for by in ("band", "subject", "none"):
        rows = draw_sample("demo", 30, seed=1, by=by, db=demo)
        assert sum(1 / r["inclusion_probability"] for r in rows) == pytest.approx(n_items, rel=1e-9), by


@pytest.mark.slow
def test_drawn_items_look_like_any_other_in_the_queue_and_on_the_item_page(demo):
    everyone = review_queue("demo", tiers=None, limit=None, db=demo)
    assert len(everyone) == len(_all_items(demo))
    narrow_before = review_queue("demo", tiers=[1], limit=None, db=demo)
    # which items the seed draws (on a copy), to read their item pages before the draw
    import shutil

    copy = demo.with_name("copy.duckdb")
    shutil.copy(demo, copy)
    will = [r["question_id"] for r in draw_sample("demo", 15, seed=2, by="none", db=copy)]
    others = [q for q in everyone["question_id"] if q not in set(will)][:5]
    views_before = {q: item_view("demo", q, db=demo) for q in will + others}
    drawn = [r["question_id"] for r in draw_sample("demo", 15, seed=2, by="none", db=demo)]
    assert drawn == will
    assert not set(drawn) <= set(narrow_before["question_id"])      # some are outside Tier 1
    narrow_after = review_queue("demo", tiers=[1], limit=None, db=demo)
    # drawn items enter the queue whatever its filter
    assert set(drawn) <= set(narrow_after["question_id"])
    assert set(narrow_after["question_id"]) == set(narrow_before["question_id"]) | set(drawn)
    # the same columns, the same rows for the items that were there before, no word of the sample
    assert list(narrow_after.columns) == list(narrow_before.columns)
    # (their positions shift by the drawn items placed among them; scores may move in the last digits)
    both = narrow_before.set_index("question_id").drop(columns="position")
    after = narrow_after.set_index("question_id").loc[both.index].drop(columns="position")
    np.testing.assert_allclose(after["key_error"].astype(float), both["key_error"].astype(float), atol=1e-6)
    rest = [c for c in both.columns if c != "key_error"]
    assert after[rest].astype(str).equals(both[rest].astype(str))
    text = narrow_after.astype(str).to_string().lower()
    assert "sample" not in text and "inclusion" not in text
    # the item page of every item reads exactly as before the draw
    for q, before in views_before.items():
        assert dataclasses.asdict(item_view("demo", q, db=demo)) == dataclasses.asdict(before), q


@pytest.mark.slow
def test_settled_sample_items_give_the_reports_sampled_count(demo):
    rep = build_report("demo", db=demo)
    assert rep["expected_wrong_keys_sampled"]["estimate"] is None
    assert rep["expected_wrong_keys_sampled"]["reason"]
    drawn = [r["question_id"] for r in draw_sample("demo", 40, seed=5, db=demo)]
    set_required_reviews(flagged=1, other=1, db=demo)
    settle = drawn[:30]
    add_reviews("demo", [{"question_id": q, "reviewer": "sim", "verdict": "key_wrong" if i % 10 == 0 else
                          "key_correct", "corrected_answer": wrong_answer(demo, q) if i % 10 == 0 else None}
                         for i, q in enumerate(settle)], db=demo)
    sc = sampled_counts("demo", db=demo)
    b = sc["benchmark"]
    assert b["n_sampled"] == 40 and b["n_settled"] == 30
    assert b["low"] <= b["estimate"] <= b["high"] and b["low"] >= 3      # the three found are a floor
    rep = build_report("demo", db=demo)
    assert rep["expected_wrong_keys_sampled"] == {k: b[k] for k in rep["expected_wrong_keys_sampled"]}
    assert set(rep["expected_wrong_keys_sampled"]) >= {"estimate", "low", "high", "n_sampled", "n_settled"}
    subj = rep["expected_wrong_keys_sampled_by_subject"]
    assert subj and all("subject" in r for r in subj)
    assert sum(r["n_settled"] for r in subj) == 30
    assert "model_set_warning" in rep
    code, out, err = _cli("report", "--benchmark", "demo", "--format", "json", db=demo)
    assert code == 0, err
    j = json.loads(out)
    assert j["expected_wrong_keys_sampled"]["n_settled"] == 30 and "model_set_warning" in j
    code, out, err = _cli("report", "--benchmark", "demo", db=demo)
    assert code == 0 and "random audit sample" in out.lower()
    assert np.isfinite(j["expected_wrong_keys"]["estimate"])


def test_once_accounts_exist_only_an_admin_draws(demo):
    from audit.errors import AuditError
    from tests.support.accounts import ADMIN, ensure_account

    ensure_account("ann", "reviewer", db=demo)          # the first account is the admin
    with pytest.raises(AuditError):
        draw_sample("demo", 10, seed=1, actor="ann", db=demo)
    with pytest.raises(AuditError):
        draw_sample("demo", 10, seed=1, db=demo)                 # nobody named
    assert len(draw_sample("demo", 10, seed=1, actor=ADMIN, db=demo)) == 10
