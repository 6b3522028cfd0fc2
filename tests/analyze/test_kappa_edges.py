"""Cohen's kappa edge cases: perfect agreement, a single category and fewer
than 5 items give a defined, explained result (never a CI from -1 to 1),
checked against closed forms computed here."""
from __future__ import annotations

import math
import random

import pandas as pd
import pytest
from scipy.stats import norm

from audit.analyze.kappa import MIN_ITEMS_FOR_CI, agreement_matrix, cohen_kappa
from tests.analyze.test_kappa import closed_form_cohen


def _pe(a, b):
    n = len(a)
    cats = set(a) | set(b)
    return sum((a.count(c) / n) * (b.count(c) / n) for c in cats)


@pytest.mark.parametrize("seed", range(40))
def test_perfect_agreement_interval_is_the_wilson_bound_in_closed_form(seed):
    rng = random.Random(seed)
    n = rng.randint(MIN_ITEMS_FOR_CI, 60)
    weights = [rng.random() for _ in "ABCD"]
    a = rng.choices("ABCD", weights=weights, k=n)
    if len(set(a)) < 2:
        a[0], a[1] = "A", "B"
    r = cohen_kappa(a, list(a))
    z = norm.ppf(0.975)
    pe = _pe(a, a)
    # Wilson (1927) lower bound for n agreements out of n, mapped with pe fixed
    low = (n / (n + z * z) - pe) / (1 - pe)
    assert r.kappa == 1.0 and r.agreement == 1.0 and r.n == n
    assert r.ci_low == pytest.approx(max(-1.0, low), rel=1e-12) and r.ci_high == 1.0
    assert r.ci_low > -1.0 and not math.isnan(r.ci_low)
    assert "perfect agreement" in r.note and "95% CI" in r.describe()


def test_nineteen_items_two_judges_never_print_minus_one_to_one():
    # the case from the issue: two judges that agree on all 19 items
    a = list("ABCDABCDABCDABCDABC")
    r = cohen_kappa(a, a)
    assert r.describe() != "kappa 1.00 (95% CI -1.00–1.00)"
    assert "-1.00" not in r.describe()
    z = norm.ppf(0.975)
    pe = (3 * 5 * 5 + 4 * 4) / 19 ** 2  # five A, B, C and four D for each judge
    assert r.ci_low == pytest.approx((19 / (19 + z * z) - pe) / (1 - pe), abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_fewer_than_five_items_give_kappa_without_interval(n):
    a = list("ABBA")[:n] if n > 1 else ["A"]
    b = list("ABAA")[:n] if n > 1 else ["B"]
    r = cohen_kappa(a, b)
    if len(set(a) | set(b)) >= 2 and _pe(a, b) < 1:
        k, _, po = closed_form_cohen(a, b)
        assert r.kappa == pytest.approx(k, abs=1e-12) and r.agreement == pytest.approx(po)
    assert math.isnan(r.ci_low) and math.isnan(r.ci_high) and math.isnan(r.se)
    assert r.n == n and ("too few" in r.note or "single label" in r.note)


def test_single_category_is_undefined_and_says_why():
    r = cohen_kappa(["B"] * 12, ["B"] * 12)
    assert math.isnan(r.kappa) and math.isnan(r.ci_low) and r.agreement == 1.0 and r.n == 12
    assert r.describe() == "kappa undefined (both raters gave every item the same single label: chance agreement is 1)"


def test_ordinary_case_unchanged_and_matrix_explains_each_pair():
    rng = random.Random(7)
    a = [rng.choice("ABC") for _ in range(40)]
    b = [x if rng.random() < 0.7 else rng.choice("ABC") for x in a]
    k, se, _ = closed_form_cohen(a, b)
    r = cohen_kappa(a, b)
    z = norm.ppf(0.975)
    assert r.note == "" and (r.ci_low, r.ci_high) == pytest.approx((max(-1, k - z * se), min(1, k + z * se)))
    df = pd.DataFrame({"item": list(range(40)) * 2 + [0, 1, 2], "rater": ["x"] * 40 + ["y"] * 40 + ["z"] * 3,
                       "label": a + b + a[:3]})
    out = agreement_matrix(df)
    described = dict(zip(zip(out["rater_a"], out["rater_b"]), out.attrs["describe"]))
    assert described[("x", "y")] == r.describe()
    assert "too few" in described[("x", "z")] and math.isnan(out.set_index("rater_b").loc["z", "ci_low"].iloc[0])
