"""Agreement between raters: Cohen's kappa (two raters), Fleiss' kappa (three
or more), and pairwise agreement matrices.

A *rater* is anything that puts one label on an item: an expert reviewer, an
LLM judge, a model answering the question.  All functions work on label
sequences or on a long DataFrame ``[item, rater, label]`` and never touch the
database, so every stage (review, judge, analyze, the workbench) can use them.

Methods
-------
* Cohen's kappa: ``statsmodels.stats.inter_rater.cohens_kappa`` on the
  two-way contingency table (Cohen 1960).  The standard error reported is the
  *asymptotic standard error of kappa itself* (statsmodels ``std_kappa``,
  Fleiss, Cohen & Everitt 1969) — the one used for a confidence interval —
  not the standard error under H0 (kappa = 0) that the z-test uses.  The CI
  is the Wald interval ``kappa ± z(1-alpha/2) · se``, clipped to [-1, 1].
* Fleiss' kappa: ``statsmodels.stats.inter_rater.fleiss_kappa``
  (``method="fleiss"``) on the item × category count table made by
  ``aggregate_raters``.  Fleiss' kappa needs the same number of ratings per
  item, so only items rated by *every* rater are used; ``n_items`` says how
  many.

Missing labels (None / NaN) are dropped pairwise.

Edge cases of Cohen's kappa (each result carries a plain-words ``note``):

* no common items: kappa is NaN;
* both raters use one single category on every item: chance agreement is 1
  and kappa is undefined — NaN rather than a number that means nothing;
* fewer than :data:`MIN_ITEMS_FOR_CI` (5) items: kappa is given, the
  interval is not (NaN): too few items for it to mean anything;
* perfect agreement (every item the same label, at least two categories):
  kappa is 1 and its asymptotic SE is 0, so the Wald interval would have
  zero width.  The interval reported instead is the Wilson interval of the
  observed agreement (``n/(n + z²)`` to 1 when all n agree; Wilson 1927)
  mapped to kappa with the chance agreement ``pe`` held fixed,
  ``[(po_low − pe)/(1 − pe), 1]`` (Cohen 1960 treats ``pe`` as fixed too).
  A standard error that rounding makes undefined near perfect agreement is
  never turned into a ``[-1, 1]`` interval.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "MIN_ITEMS_FOR_CI",
    "KappaResult",
    "FleissResult",
    "cohen_kappa",
    "fleiss_kappa",
    "agreement_matrix",
]

_LONG_COLUMNS = ("item", "rater", "label")

#: Below this many items Cohen's kappa gets no confidence interval.
MIN_ITEMS_FOR_CI = 5


@dataclass(frozen=True)
class KappaResult:
    """Cohen's kappa between two raters on ``n`` common items.

    ``se`` is the asymptotic standard error of kappa (used for the CI);
    ``agreement`` is the observed proportion of identical labels; ``note``
    explains an edge case in plain words (empty when there is none)."""

    kappa: float
    se: float
    ci_low: float
    ci_high: float
    n: int
    agreement: float = math.nan
    note: str = ""

    def describe(self) -> str:
        """One line for people: ``kappa 0.62 (95% CI 0.31–0.93)``, or what
        is missing and why.

        >>> cohen_kappa(list("AB"), list("AB")).describe()
        'kappa 1.00 (no interval: 2 items, too few for an interval)'
        """
        if math.isnan(self.kappa):
            return f"kappa undefined ({self.note or 'no items'})"
        if math.isnan(self.ci_low):
            return f"kappa {self.kappa:.2f} (no interval: {self.note})"
        ci = f"kappa {self.kappa:.2f} (95% CI {self.ci_low:.2f}–{self.ci_high:.2f})"
        return f"{ci}; {self.note}" if self.note else ci

    def as_dict(self) -> dict:
        return {
            "kappa": self.kappa, "se": self.se, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "n": self.n, "agreement": self.agreement,
        }


@dataclass(frozen=True)
class FleissResult:
    """Fleiss' kappa over ``n_items`` items each rated by all ``n_raters`` raters."""

    kappa: float
    n_items: int
    n_raters: int


def _nan_result(n: int, agreement: float = math.nan, note: str = "") -> KappaResult:
    return KappaResult(math.nan, math.nan, math.nan, math.nan, n, agreement, note)


def cohen_kappa(
    a: Sequence | Iterable,
    b: Sequence | Iterable,
    *,
    labels: Sequence | None = None,
    confidence: float = 0.95,
) -> KappaResult:
    """Cohen's kappa between two aligned label sequences.

    ``a[i]`` and ``b[i]`` are the two raters' labels for item ``i``; pairs
    where either label is missing are dropped (``n`` counts the pairs used).
    ``labels`` fixes the category set (labels outside it raise ValueError);
    by default it is the union of the observed labels.

    Computed with ``statsmodels.stats.inter_rater.cohens_kappa`` on the
    contingency table.  ``se`` is the asymptotic SE of kappa (Fleiss, Cohen &
    Everitt 1969; statsmodels ``std_kappa``), and the CI is
    ``kappa ± z·se`` clipped to [-1, 1].  Returns NaN kappa when there are
    no pairs or when chance agreement is 1 (a single category throughout);
    no interval below :data:`MIN_ITEMS_FOR_CI` items; under perfect
    agreement the Wilson-based interval of the module docstring.

    >>> r = cohen_kappa(list("AABBA"), list("AABBB"))
    >>> round(r.kappa, 3), r.n
    (0.615, 5)
    >>> cohen_kappa(list("AAAAA"), list("AAAAA")).describe()
    'kappa undefined (both raters gave every item the same single label: chance agreement is 1)'
    >>> print(cohen_kappa(list("AABBABABAB"), list("AABBABABAB")).describe())  # doctest: +NORMALIZE_WHITESPACE
    kappa 1.00 (95% CI 0.44–1.00); perfect agreement on 10 items:
    interval from the Wilson interval of the observed agreement
    """
    sa = pd.Series(list(a), dtype=object)
    sb = pd.Series(list(b), dtype=object)
    if len(sa) != len(sb):
        raise ValueError(f"cohen_kappa: the sequences differ in length ({len(sa)} vs {len(sb)})")
    keep = ~(sa.isna().to_numpy() | sb.isna().to_numpy())
    sa, sb = sa[keep], sb[keep]
    n = len(sa)
    if n == 0:
        return _nan_result(0, note="no items rated by both")
    seen = set(sa.unique()) | set(sb.unique())
    if labels is None:
        cats = sorted(seen, key=str)
    else:
        cats = list(dict.fromkeys(labels))
        unknown = seen - set(cats)
        if unknown:
            raise ValueError(f"cohen_kappa: labels {sorted(map(str, unknown))} are not in labels={cats}")
    k = len(cats)
    ia = pd.Categorical(sa, categories=cats).codes.astype(np.int64)
    ib = pd.Categorical(sb, categories=cats).codes.astype(np.int64)
    table = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k).astype(float)
    agreement = float(np.trace(table) / n)
    p = table / n
    pe = float(p.sum(axis=1) @ p.sum(axis=0))
    if pe >= 1.0 - 1e-12:
        return _nan_result(n, agreement, "both raters gave every item the same single label: chance agreement is 1")
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2.0))
    if n < MIN_ITEMS_FOR_CI:
        kappa = (agreement - pe) / (1.0 - pe)
        return KappaResult(kappa, math.nan, math.nan, math.nan, n, agreement,
                           f"{n} items, too few for an interval")
    if agreement == 1.0:
        po_low = n / (n + z * z)  # Wilson lower bound for n successes in n
        return KappaResult(
            1.0,
            0.0,
            max(-1.0, (po_low - pe) / (1.0 - pe)),
            1.0,
            n,
            agreement,
            f"perfect agreement on {n} items: interval from the Wilson interval of the observed agreement",
        )
    with np.errstate(divide="ignore", invalid="ignore"):  # z-test fields we do not use
        from statsmodels.stats import inter_rater  # heavy: imported when used

        res = inter_rater.cohens_kappa(table)
    kappa = float(res["kappa"])
    se = float(res["std_kappa"])
    if math.isnan(se):  # rounding made the variance negative: no interval rather than [-1, 1]
        return KappaResult(kappa, math.nan, math.nan, math.nan, n, agreement, "standard error undefined")
    low = max(-1.0, kappa - z * se)
    high = min(1.0, kappa + z * se)
    return KappaResult(kappa, se, low, high, n, agreement)


def _check_long(ratings: pd.DataFrame, where: str) -> pd.DataFrame:
    missing = [c for c in _LONG_COLUMNS if c not in ratings.columns]
    if missing:
        raise ValueError(f"{where}: missing columns {missing}; expected [item, rater, label]")
    df = ratings.loc[:, list(_LONG_COLUMNS)]
    df = df[~df["label"].isna()]
    dup = df.duplicated(subset=["item", "rater"], keep=False)
    if dup.any():
        first = df[dup].iloc[0]
        raise ValueError(
            f"{where}: rater {first['rater']!r} has more than one label for item {first['item']!r}; "
            "pass one label per (item, rater)"
        )
    return df


def fleiss_kappa(ratings: pd.DataFrame) -> FleissResult:
    """Fleiss' kappa for three or more raters.

    ``ratings`` is long: one row per (item, rater) with columns
    ``item, rater, label``.  Only items rated by every rater are used (Fleiss'
    kappa needs a constant number of ratings per item); ``n_items`` reports
    how many.  Computed with statsmodels ``aggregate_raters`` and
    ``fleiss_kappa(method="fleiss")``.  NaN when no item is complete or all
    ratings fall in one category.

    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...                    "rater": ["x", "y", "z"] * 3,
    ...                    "label": list("AAABBBABA")})
    >>> r = fleiss_kappa(df)
    >>> round(r.kappa, 3), r.n_items, r.n_raters
    (0.55, 3, 3)
    """
    df = _check_long(ratings, "fleiss_kappa")
    raters = sorted(df["rater"].unique(), key=str)
    wide = df.pivot(index="item", columns="rater", values="label").reindex(columns=raters)
    complete = wide.dropna(how="any")
    n_items = len(complete)
    if n_items == 0 or len(raters) < 2:
        return FleissResult(math.nan, n_items, len(raters))
    values = complete.to_numpy(dtype=object).astype(str)
    from statsmodels.stats import inter_rater

    counts, _cats = inter_rater.aggregate_raters(values)
    if counts.shape[1] < 2:
        return FleissResult(math.nan, n_items, len(raters))
    kappa = float(inter_rater.fleiss_kappa(counts, method="fleiss"))
    return FleissResult(kappa, n_items, len(raters))


def agreement_matrix(ratings: pd.DataFrame, *, labels: Sequence | None = None, square: bool = False) -> pd.DataFrame:
    """Pairwise Cohen's kappa between every two raters on their common items.

    ``ratings`` is long ``[item, rater, label]``.  Returns one row per
    unordered pair of raters (sorted by name) with columns
    ``rater_a, rater_b, n, agreement, kappa, se, ci_low, ci_high`` — ``n`` is
    the number of items both raters labelled.  With ``square=True`` returns
    the symmetric rater × rater matrix of kappa instead (diagonal 1.0).
    ``df.attrs["describe"]`` lists :meth:`KappaResult.describe` for each row,
    in row order (edge cases explained in words).

    >>> df = pd.DataFrame({"item": [1, 2, 3, 1, 2, 3],
    ...                    "rater": ["x"] * 3 + ["y"] * 3,
    ...                    "label": list("ABAABB")})
    >>> agreement_matrix(df)[["rater_a", "rater_b", "n"]].values.tolist()
    [['x', 'y', 3]]
    """
    df = _check_long(ratings, "agreement_matrix")
    raters = sorted(df["rater"].unique(), key=str)
    by_rater = {r: g.set_index("item")["label"] for r, g in df.groupby("rater", sort=False)}
    rows = []
    described: list[str] = []
    for ra, rb in combinations(raters, 2):
        common = by_rater[ra].index.intersection(by_rater[rb].index)
        res = cohen_kappa(by_rater[ra].loc[common].tolist(), by_rater[rb].loc[common].tolist(), labels=labels)
        rows.append({"rater_a": ra, "rater_b": rb, **res.as_dict()})
        described.append(res.describe())
    cols = ["rater_a", "rater_b", "n", "agreement", "kappa", "se", "ci_low", "ci_high"]
    out = pd.DataFrame(rows, columns=cols)
    out["n"] = out["n"].astype("int64")
    out.attrs["describe"] = described
    if not square:
        return out
    mat = pd.DataFrame(np.eye(len(raters)), index=raters, columns=raters)
    for r in rows:
        mat.loc[r["rater_a"], r["rater_b"]] = r["kappa"]
        mat.loc[r["rater_b"], r["rater_a"]] = r["kappa"]
    mat.index.name = "rater"
    return mat
