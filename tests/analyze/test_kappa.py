"""Agreement statistics checked against an independent closed-form computation
(plain Python sums, no statsmodels): Cohen (1960) kappa with the Fleiss,
Cohen & Everitt (1969) asymptotic variance, and Fleiss (1971) kappa."""
from __future__ import annotations

import math
import random
from collections import Counter

import pandas as pd
import pytest
from scipy.stats import norm

from audit.analyze import agreement_matrix, cohen_kappa, fleiss_kappa


def closed_form_cohen(a, b):
    n = len(a)
    cats = sorted(set(a) | set(b))
    p = {(i, j): 0.0 for i in cats for j in cats}
    for x, y in zip(a, b):
        p[(x, y)] += 1 / n
    row = {i: sum(p[(i, j)] for j in cats) for i in cats}
    col = {j: sum(p[(i, j)] for i in cats) for j in cats}
    po = sum(p[(i, i)] for i in cats)
    pe = sum(row[i] * col[i] for i in cats)
    k = (po - pe) / (1 - pe)
    # Fleiss, Cohen & Everitt (1969), eq. for var(kappa-hat), not under H0
    t1 = sum(p[(i, i)] * (1 - (row[i] + col[i]) * (1 - k)) ** 2 for i in cats)
    t2 = (1 - k) ** 2 * sum(p[(i, j)] * (col[i] + row[j]) ** 2 for i in cats for j in cats if i != j)
    t3 = (k - pe * (1 - k)) ** 2
    var = (t1 + t2 - t3) / (n * (1 - pe) ** 2)
    return k, math.sqrt(var), po


def closed_form_fleiss(rows):
    """rows: list of per-item label lists (same length)."""
    n_items = len(rows)
    m = len(rows[0])
    cats = sorted({x for r in rows for x in r})
    counts = [Counter(r) for r in rows]
    p_j = {c: sum(cnt[c] for cnt in counts) / (n_items * m) for c in cats}
    P_i = [(sum(v * v for v in cnt.values()) - m) / (m * (m - 1)) for cnt in counts]
    P_bar = sum(P_i) / n_items
    Pe = sum(v * v for v in p_j.values())
    return (P_bar - Pe) / (1 - Pe)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_cohen_matches_closed_form(seed):
    rng = random.Random(seed)
    n = rng.randint(20, 300)
    a = [rng.choice("ABCD") for _ in range(n)]
    # correlated second rater
    b = [x if rng.random() < 0.6 else rng.choice("ABCD") for x in a]
    k, se, po = closed_form_cohen(a, b)
    r = cohen_kappa(a, b)
    assert r.n == n
    assert r.kappa == pytest.approx(k, abs=1e-12)
    assert r.se == pytest.approx(se, rel=1e-9)
    assert r.agreement == pytest.approx(po)
    z = norm.ppf(0.975)
    assert r.ci_low == pytest.approx(max(-1, k - z * se), rel=1e-9)
    assert r.ci_high == pytest.approx(min(1, k + z * se), rel=1e-9)


def test_cohen_textbook_table():
    # 2x2 table [[20, 5], [10, 15]]: po = .7, pe = .5, kappa = .4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    r = cohen_kappa(a, b)
    assert r.kappa == pytest.approx(0.4)
    assert r.agreement == pytest.approx(0.7)
    assert r.ci_low < 0.4 < r.ci_high


def test_cohen_missing_pairs_dropped_and_degenerate():
    r = cohen_kappa(["A", None, "B", "A"], ["A", "B", float("nan"), "B"])
    assert r.n == 2
    assert r.agreement == 0.5
    same = cohen_kappa(["A"] * 5, ["A"] * 5)
    assert same.n == 5 and math.isnan(same.kappa) and same.agreement == 1.0
    assert math.isnan(cohen_kappa([], []).kappa)
    with pytest.raises(ValueError):
        cohen_kappa(["A"], ["A", "B"])
    with pytest.raises(ValueError):
        cohen_kappa(["A", "E"], ["A", "B"], labels=["A", "B"])


def test_cohen_perfect_and_opposite():
    assert cohen_kappa(list("ABAB"), list("ABAB")).kappa == pytest.approx(1.0)
    assert cohen_kappa(list("ABAB"), list("BABA")).kappa == pytest.approx(-1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fleiss_matches_closed_form(seed):
    rng = random.Random(seed)
    raters = ["r1", "r2", "r3", "r4"]
    rows = []
    recs = []
    for item in range(rng.randint(15, 80)):
        truth = rng.choice("ABC")
        labels = [truth if rng.random() < 0.7 else rng.choice("ABC") for _ in raters]
        rows.append(labels)
        recs += [{"item": item, "rater": r, "label": l} for r, l in zip(raters, labels)]
    df = pd.DataFrame(recs)
    # an item rated by only two raters must be left out
    df = pd.concat([df, pd.DataFrame([{"item": "partial", "rater": "r1", "label": "A"},
                                      {"item": "partial", "rater": "r2", "label": "B"}])])
    res = fleiss_kappa(df)
    assert res.n_items == len(rows)
    assert res.n_raters == 4
    assert res.kappa == pytest.approx(closed_form_fleiss(rows), abs=1e-12)


def test_fleiss_rejects_duplicate_ratings():
    df = pd.DataFrame({"item": [1, 1, 1], "rater": ["x", "x", "y"], "label": ["A", "B", "A"]})
    with pytest.raises(ValueError, match="more than one label"):
        fleiss_kappa(df)


def test_agreement_matrix_uses_common_items():
    rng = random.Random(7)
    recs = []
    by = {}
    for rater, items in (("x", range(0, 60)), ("y", range(20, 90)), ("z", range(0, 90, 2))):
        by[rater] = {}
        for i in items:
            lab = rng.choice("AB") if rng.random() < 0.5 else ("A" if i % 3 else "B")
            by[rater][i] = lab
            recs.append({"item": i, "rater": rater, "label": lab})
    df = pd.DataFrame(recs).sample(frac=1, random_state=1)
    out = agreement_matrix(df)
    assert list(out.columns) == ["rater_a", "rater_b", "n", "agreement", "kappa", "se", "ci_low", "ci_high"]
    assert [tuple(r) for r in out[["rater_a", "rater_b"]].values] == [("x", "y"), ("x", "z"), ("y", "z")]
    for _, row in out.iterrows():
        common = sorted(set(by[row.rater_a]) & set(by[row.rater_b]))
        k, se, po = closed_form_cohen([by[row.rater_a][i] for i in common], [by[row.rater_b][i] for i in common])
        assert row.n == len(common)
        assert row.kappa == pytest.approx(k, abs=1e-12)
        assert row.se == pytest.approx(se, rel=1e-9)
    sq = agreement_matrix(df, square=True)
    assert sq.loc["x", "x"] == 1.0
    assert sq.loc["y", "x"] == sq.loc["x", "y"] == pytest.approx(out.kappa.iloc[0])
