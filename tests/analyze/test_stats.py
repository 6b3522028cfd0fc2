"""audit.analyze._stats: the Wilson interval (against a hand computation of
Wilson's formula and scipy's normal quantile), its vectorised and empty-n
edges, and the significance stars' thresholds."""
import math

import numpy as np
import pytest
from scipy.stats import norm

from audit.analyze._stats import significance_stars, wilson_interval


def _wilson_by_hand(k, n, conf=0.95):
    z = norm.ppf(1 - (1 - conf) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("k,n", [(447, 657), (1, 10), (9, 10), (50, 100), (3, 3000)])
@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99])
def test_matches_wilsons_formula(k, n, conf):
    low, high = wilson_interval(k, n, confidence=conf)
    lo_ref, hi_ref = _wilson_by_hand(k, n, conf)
    assert low == pytest.approx(lo_ref, abs=1e-12)
    assert high == pytest.approx(hi_ref, abs=1e-12)
    assert isinstance(low, float) and isinstance(high, float)


def test_extremes_stay_in_unit_interval():
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and high == pytest.approx(_wilson_by_hand(0, 20)[1])
    low, high = wilson_interval(20, 20)
    assert high == 1.0 and low == pytest.approx(_wilson_by_hand(20, 20)[0])


def test_vectorised_with_empty_groups_as_nan():
    low, high = wilson_interval(np.array([5, 0, 2]), np.array([10, 0, 2]))
    assert isinstance(low, np.ndarray) and low.shape == (3,)
    assert low[0] == pytest.approx(_wilson_by_hand(5, 10)[0])
    assert math.isnan(low[1]) and math.isnan(high[1])
    assert high[2] == 1.0


def test_broadcasts_a_scalar_n():
    low, high = wilson_interval([1, 2, 3], 10)
    assert [round(x, 10) for x in high] == [round(_wilson_by_hand(k, 10)[1], 10) for k in (1, 2, 3)]


@pytest.mark.parametrize("k,n", [(-1, 5), (6, 5)])
def test_successes_outside_zero_to_n_are_refused(k, n):
    with pytest.raises(ValueError, match="between 0 and n"):
        wilson_interval(k, n)


@pytest.mark.parametrize("conf", [0.0, 1.0, 95])
def test_confidence_must_be_a_fraction(conf):
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, confidence=conf)


@pytest.mark.parametrize("p,stars", [(0.0, "***"), (0.000999, "***"), (0.001, "**"), (0.00999, "**"),
                                     (0.01, "*"), (0.0499, "*"), (0.05, ""), (1.0, ""), (None, ""),
                                     (float("nan"), ""), (float("inf"), "")])
def test_significance_stars_thresholds_are_strict(p, stars):
    assert significance_stars(p) == stars
