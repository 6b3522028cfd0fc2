"""Small statistical helpers shared by metrics, scenarios and comparisons.

Every interval and test here is delegated to statsmodels (or scipy); nothing
hand-codes a normal quantile.
"""
from __future__ import annotations

import warnings

import numpy as np


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion ``successes / n``.

    Computed by statsmodels ``proportion_confint(successes, n,
    alpha=1 - confidence, method="wilson")``, i.e. with
    z = ``scipy.stats.norm.ppf(1 - alpha / 2)`` (1.959964 for 95%)::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)

    Vectorised: ``successes`` and ``n`` may be scalars or array-likes of the
    same shape; returns ``(low, high)`` as floats or numpy arrays in [0, 1].
    Where ``n`` is 0 the interval is undefined and both bounds are NaN.

    Reference: E. B. Wilson (1927), "Probable inference, the law of
    succession, and statistical inference", JASA 22:209-212.

    >>> low, high = wilson_interval(447, 657)
    >>> f"{447/657:.2%} [{low:.2%}, {high:.2%}]"
    '68.04% [64.37%, 71.49%]'
    >>> wilson_interval([0, 0], [10, 0])[1].round(4).tolist()
    [0.2775, nan]
    """
    from statsmodels.stats.proportion import proportion_confint

    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    scalar = np.ndim(successes) == 0 and np.ndim(n) == 0
    k = np.asarray(successes, dtype=float)
    nn = np.asarray(n, dtype=float)
    k, nn = np.broadcast_arrays(k, nn)
    if np.any(k < 0) or np.any(k > nn):
        raise ValueError("successes must lie between 0 and n")
    empty = nn <= 0
    safe_n = np.where(empty, 1.0, nn)
    safe_k = np.where(empty, 0.0, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = proportion_confint(safe_k, safe_n, alpha=1.0 - confidence, method="wilson")
    low = np.where(empty, np.nan, np.clip(low, 0.0, 1.0))
    high = np.where(empty, np.nan, np.clip(high, 0.0, 1.0))
    if scalar:
        return float(low), float(high)
    return low, high


def significance_stars(p) -> str:
    """``'***'`` for p < 0.001, ``'**'`` for p < 0.01, ``'*'`` for p < 0.05,
    ``''`` otherwise (and for a missing p-value).

    >>> [significance_stars(p) for p in (0.0004, 0.004, 0.04, 0.4, float("nan"))]
    ['***', '**', '*', '', '']
    """
    if p is None or not np.isfinite(p):
        return ""
    if p < 0.001:
        return "***"
    if p < 0.01:
        return "**"
    if p < 0.05:
        return "*"
    return ""
