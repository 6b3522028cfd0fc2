"""Reviewer agreement (Cohen's kappa) and accuracy on expert-corrected keys,
each checked against an independent closed-form computation; dashboard data."""
from __future__ import annotations

import math
from collections import Counter

import pytest

from audit.export import corrected_key_accuracy
from audit.review import add_review, reviewer_agreement
from audit.review.dashboard import progress_by_reviewer, tier_by_subject
from audit.store import connect
from tests.support.review_bench import bench_copy


def closed_form_kappa(a, b):
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / n ** 2
    return (po - pe) / (1 - pe), po


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    return bench_copy(tmp_path)


def _v(v):
    return ("key_wrong", v[1]) if v.startswith("W") else (v, None)


def test_kappa_matches_closed_form(db):
    # ann and bo on 8 items; cy overlaps ann on 3; W:x = key_wrong with answer x
    ann = ["key_correct", "WB", "WB", "ambiguous", "key_correct", "defective", "WC", "key_correct"]
    bo = ["key_correct", "WB", "WC", "ambiguous", "WB", "defective", "WC", "key_correct"]
    cy = ["key_correct", "WB", "key_correct"]
    items = [f"q{i:02d}" for i in range(1, 9)]
    for who, labels in (("ann", ann), ("bo", bo), ("cy", cy)):
        for q, lab in zip(items, labels):
            verdict, answer = _v(lab)
            add_review("bench", q, who, verdict, corrected_answer=answer, db=db)
    add_review("bench", "q01", "bo", "skip", db=db)           # a later skip keeps bo's verdict
    add_review("bench", "q09", "ann", "key_correct", db=db)   # single-reviewed: not in any pair

    r = reviewer_agreement("bench", db=db)
    pairs = r.pairs.set_index(["rater_a", "rater_b"])
    k_ab, po_ab = closed_form_kappa(ann, bo)
    assert pairs.loc[("ann", "bo"), "n"] == 8
    assert pairs.loc[("ann", "bo"), "kappa"] == pytest.approx(k_ab, abs=1e-12)
    assert pairs.loc[("ann", "bo"), "agreement"] == pytest.approx(po_ab)
    k_ac, _ = closed_form_kappa(ann[:3], cy)
    assert pairs.loc[("ann", "cy"), "n"] == 3 and pairs.loc[("ann", "cy"), "kappa"] == pytest.approx(k_ac)
    assert pairs.loc[("ann", "bo"), "ci_low"] < k_ab < pairs.loc[("ann", "bo"), "ci_high"]
    # pooled: every (item, pair) once, names in alphabetical order
    a = ann + ann[:3] + bo[:3]
    b = bo + cy + cy
    k_all, _ = closed_form_kappa(a, b)
    assert r.overall.n == 14 and r.overall.kappa == pytest.approx(k_all)
    assert r.n_items == 8 and r.n_reviewers == 3
    # 8 items reviewed twice is too few for kappa to mean anything: the label says so
    assert not r.enough and r.label.startswith("too few items for kappa: 8 reviewed twice")
    assert f"{k_all:.2f}" not in r.label

    # by verdict category only, W:B vs W:C agree
    rv = reviewer_agreement("bench", compare="verdict", db=db).pairs.set_index(["rater_a", "rater_b"])
    strip = lambda xs: ["key_wrong" if x.startswith("W") else x for x in xs]
    assert rv.loc[("ann", "bo"), "kappa"] == pytest.approx(closed_form_kappa(strip(ann), strip(bo))[0])


@pytest.mark.slow
def test_kappa_label_on_enough_items(db):
    from audit.review.agreement import MIN_KAPPA_ITEMS

    ann = ["key_correct", "key_correct", "ambiguous", "key_correct", "defective", "key_correct",
           "ambiguous", "key_correct", "key_correct", "defective", "key_correct"]
    bo = ["key_correct", "ambiguous", "ambiguous", "key_correct", "defective", "key_correct",
          "key_correct", "key_correct", "key_correct", "defective", "key_correct"]
    assert len(ann) > MIN_KAPPA_ITEMS
    for i, (a, b) in enumerate(zip(ann, bo), start=1):
        add_review("bench", f"q{i:02d}", "ann", a, db=db)
        add_review("bench", f"q{i:02d}", "bo", b, db=db)
    r = reviewer_agreement("bench", db=db)
    k, _ = closed_form_kappa(ann, bo)
    assert r.enough and r.n_items == len(ann)
    assert r.label.startswith(f"kappa {k:.2f} (95% CI") and r.label.endswith(f"{len(ann)} items")


def test_agreement_without_double_reviews(db):
    add_review("bench", "q01", "ann", "key_correct", db=db)
    r = reviewer_agreement("bench", db=db)
    assert r.pairs.empty and r.n_items == 0 and r.overall.n == 0 and math.isnan(r.overall.kappa)
    assert r.label.startswith("kappa not available")


def wilson(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_corrected_key_accuracy_matches_independent_count(db):
    # vary the answers so models differ
    with connect(db) as con:
        con.execute("UPDATE predictions SET answer = 'C' WHERE model = 'gpt-z' AND question_id IN ('q01', 'q07')")
        con.execute(
            "UPDATE predictions SET answer = NULL, valid = false WHERE model = 'gemini-y' AND question_id = 'q08'"
        )
    for who in ("ann", "bo"):
        add_review("bench", "q01", who, "key_wrong", corrected_answer="B", db=db)   # settled: key → B
        add_review("bench", "q02", who, "defective", db=db)                        # settled: excluded
    add_review("bench", "q03", "ann", "key_wrong", corrected_answer="B", db=db)    # one review only: keeps key A
    add_review("bench", "q07", "ann", "ambiguous", db=db)                          # tier 5, settled by one: excluded
    add_review("bench", "q04", "ann", "key_wrong", corrected_answer="B", db=db)
    add_review("bench", "q04", "bo", "key_wrong", corrected_answer="C", db=db)     # disputed: keeps key A

    with connect(db, read_only=True) as con:
        preds = con.execute("SELECT model, question_id, answer, valid FROM predictions").fetchall()
        keys = dict(con.execute("SELECT question_id, answer_key FROM questions").fetchall())
    corrected = dict(keys, q01="B")
    excluded = {"q02", "q07"}
    df = corrected_key_accuracy("bench", db=db).set_index("model")
    assert df.attrs == {"n_corrected": 1, "n_excluded": 2}
    for model in ("claude-x", "gemini-y", "gpt-z"):
        mine = [(q, a, v) for m, q, a, v in preds if m == model]
        n0 = sum(v for _, _, v in mine)
        k0 = sum(v and a == keys[q] for q, a, v in mine)
        n1 = sum(v for q, _, v in mine if q not in excluded)
        k1 = sum(v and a == corrected[q] for q, a, v in mine if q not in excluded)
        row = df.loc[model]
        assert (row["n_valid_original"], row["n_correct_original"]) == (n0, k0)
        assert (row["n_valid_corrected"], row["n_correct_corrected"]) == (n1, k1)
        assert row["accuracy_original"] == pytest.approx(k0 / n0)
        assert row["accuracy_corrected"] == pytest.approx(k1 / n1)
        assert (row["accuracy_corrected_low"], row["accuracy_corrected_high"]) == pytest.approx(wilson(k1, n1))
        assert (row["accuracy_original_low"], row["accuracy_original_high"]) == pytest.approx(wilson(k0, n0))
        assert row["difference_points"] == pytest.approx(100 * (k1 / n1 - k0 / n0))
    assert df.loc["claude-x", "difference_points"] > 0


def test_dashboard_data(db):
    t = tier_by_subject("bench", db=db)
    assert t["n"].sum() == 12
    wide = tier_by_subject("bench", pivot=True, db=db)
    assert list(wide.columns) == ["tier1", "tier2", "tier5"]
    assert wide.loc["history"].tolist() == [2, 0, 2] and wide.values.sum() == 12
    add_review("bench", "q01", "ann", "key_correct", db=db)
    add_review("bench", "q01", "ann", "key_wrong", corrected_answer="B", revision=True, db=db)
    add_review("bench", "q02", "ann", "skip", db=db)
    add_review("bench", "q01", "bo", "ambiguous", is_adjudication=True, db=db)
    p = progress_by_reviewer("bench", db=db).set_index("reviewer")
    assert p.loc["ann", ["n_items", "n_reviews", "key_correct", "key_wrong", "skip", "adjudications"]].tolist() == [
        1, 3, 1, 1, 1, 0]
    assert p.loc["bo", ["n_items", "ambiguous", "adjudications"]].tolist() == [1, 1, 1]
