"""Settlement that weighs reviewers, and what one more review is worth.

**The posterior of an opinion.**  An item's current verdicts agree on one
opinion *o* (``key_correct``, ``key_wrong`` with its corrected answer,
``ambiguous`` or ``defective``).  Before the verdicts, the evidence gives
*o* the probability ``prior``: ``1 − p`` for ``key_correct`` and ``p`` for
``key_wrong``, where ``p`` is the item's key-error score (the models, the
judges, the parallel source: :mod:`audit.analyze.keyerror`); ``0.5`` for
``ambiguous`` and ``defective``, which the score says nothing about, and
for an item without a score.  The score is the audit fit's, not the one
refreshed as verdicts arrive (:mod:`audit.review.evidence`): the refresh
learns the subjects' rates and the misconception share from the settled
items, and the items a weighted campaign settles first are those whose
verdict agrees with the evidence, so the refreshed score would learn that
the evidence is right and feed it back into the next settlements (on
MMLU-Redux it drove the Tier 1–2 scores from about 0.3 to 0.02 within one
campaign).  Each reviewer *r* who gave *o* is right with
probability ``a_r`` and otherwise says something else (the "one-coin"
reviewer of Dawid & Skene 1979 reduced to two outcomes: *o* right or not),
independently of the other reviewers given the truth.  By Bayes' rule the
log-odds of *o* are the prior's plus ``log(a_r / (1 − a_r))`` per verdict::

    logit P(o | verdicts) = logit(prior) + Σ_r logit(a_r)

``a_r`` is the reviewer's accuracy on known-answer items, as the posterior
mean under a Beta(4, 1) prior (:data:`PRIOR_RIGHT`, :data:`PRIOR_WRONG`:
a reviewer of whom nothing is known yet counts as right 4 times in 5),
clipped to [0.5, 0.99] so that no verdict counts against its own opinion
or settles an item by itself beyond doubt.

**The weighted rule** (:func:`settled_by`): agreeing verdicts of two or more
reviewers settle the item when the posterior reaches ``threshold``
(``weighted_agreement``); one verdict settles alone only when the admin
allows it, the reviewer is careful (estimated accuracy at least
``careful``, not flagged), the evidence leans the same way
(``prior > 0.5``) and the posterior reaches ``lone_threshold``
(``weighted_evidence``).  Disagreeing verdicts are disputed, as under the
count rule, and an adjudication always settles.

**What one more review is worth** (:func:`information_gain`): the expected
reduction of the entropy of "*o* is right" from one more verdict by a
reviewer of accuracy ``a`` — Lindley's (1956) expected information of an
experiment, the criterion of uncertainty sampling in active learning
(Settles 2009, "Active Learning Literature Survey", §3.1 and §3.4).  The
queue asks for second reviews where it is largest.

References: A. P. Dawid and A. M. Skene (1979), "Maximum likelihood
estimation of observer error-rates using the EM algorithm", Applied
Statistics 28(1):20-28.  D. V. Lindley (1956), "On a measure of the
information provided by an experiment", Annals of Mathematical Statistics
27(4):986-1005.  B. Settles (2009), "Active Learning Literature Survey",
Computer Sciences Technical Report 1648, University of Wisconsin–Madison.

The functions are pure (NumPy); :func:`posterior_sql` and
:func:`information_gain_sql` are the same formulas as SQL for the queue and
the settlement rule, and a test checks that both agree.

>>> round(opinion_posterior(0.5, [0.95, 0.95]), 4)     # two careful reviewers, no evidence either way
0.9972
>>> round(opinion_posterior(0.5, [0.55]), 4)            # one careless reviewer
0.55
>>> round(information_gain(0.5, 0.9), 3), round(information_gain(0.99, 0.9), 3)
(0.531, 0.025)
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

#: The Beta prior of a reviewer's accuracy: ``PRIOR_RIGHT`` right and
#: ``PRIOR_WRONG`` wrong answers before any known-answer item (mean 0.8).
PRIOR_RIGHT = 4.0
PRIOR_WRONG = 1.0
#: The accuracy a verdict is counted with is clipped to this range.
ACCURACY_FLOOR = 0.5
ACCURACY_CEILING = 0.99
#: A key-error score is clipped to this range before it becomes a prior.
PRIOR_CLIP = (0.001, 0.999)


def reviewer_accuracy(n_right, n_gold):
    """The accuracy a reviewer's verdicts are weighed with: the posterior
    mean of their accuracy on known-answer items under the Beta prior.

    >>> reviewer_accuracy(0, 0), round(reviewer_accuracy(18, 20), 3)
    (0.8, 0.88)
    """
    k = np.asarray(n_right, dtype=float)
    n = np.asarray(n_gold, dtype=float)
    out = (k + PRIOR_RIGHT) / (n + PRIOR_RIGHT + PRIOR_WRONG)
    return float(out) if out.ndim == 0 else out


def _logit(x):
    return np.log(x) - np.log1p(-x)


def opinion_prior(verdict, p_wrong):
    """The evidence's probability that an opinion is right: ``1 − p`` for
    ``key_correct``, ``p`` for ``key_wrong``, 0.5 otherwise or without a
    score (``p`` NaN / None).

    >>> opinion_prior("key_wrong", 0.3), opinion_prior("key_correct", 0.3), opinion_prior("ambiguous", 0.3)
    (0.3, 0.7, 0.5)
    """
    v = np.asarray(verdict, dtype=object)
    p = np.asarray(np.where(np.equal(p_wrong, None), np.nan, p_wrong), dtype=float)
    p = np.clip(p, *PRIOR_CLIP)
    out = np.where(np.isnan(p), 0.5, np.where(v == "key_wrong", p, np.where(v == "key_correct", 1 - p, 0.5)))
    return float(out) if out.ndim == 0 else out


def opinion_posterior(prior: float, accuracies: Iterable[float]) -> float:
    """P(the agreed opinion is right | evidence, verdicts): see the module
    docstring.  ``accuracies``: each agreeing reviewer's accuracy (clipped
    to [:data:`ACCURACY_FLOOR`, :data:`ACCURACY_CEILING`])."""
    a = np.clip(np.asarray(list(accuracies), dtype=float), ACCURACY_FLOOR, ACCURACY_CEILING)
    z = float(_logit(np.clip(prior, *PRIOR_CLIP))) + float(_logit(a).sum())
    return 1.0 / (1.0 + math.exp(-z))


def settled_by(prior: float, accuracies: Iterable[float], careful: Iterable[bool], *, threshold: float,
               lone_threshold: float, allow_lone: bool) -> str | None:
    """The weighted rule for agreeing verdicts: ``weighted_agreement``,
    ``weighted_evidence`` or None (not settled yet).

    >>> kw = dict(threshold=0.9, lone_threshold=0.95, allow_lone=True)
    >>> settled_by(0.5, [0.95, 0.95], [True, True], **kw)          # two careful reviewers agree
    'weighted_agreement'
    >>> settled_by(0.5, [0.6], [False], **kw) is None               # a careless one alone
    True
    >>> settled_by(0.9, [0.95], [True], **kw)                      # a careful one with the evidence
    'weighted_evidence'
    >>> settled_by(0.9, [0.95], [True], **{**kw, "allow_lone": False}) is None
    True
    """
    acc = list(accuracies)
    ok = list(careful)
    if not acc:
        return None
    post = opinion_posterior(prior, acc)
    if len(acc) >= 2:
        return "weighted_agreement" if post >= threshold else None
    if allow_lone and all(ok) and prior > 0.5 and post >= lone_threshold:
        return "weighted_evidence"
    return None


def _entropy_bits(p):
    p = np.clip(np.asarray(p, dtype=float), 1e-12, 1 - 1e-12)
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


def information_gain(pi, a):
    """Expected information gain, in bits, of one more verdict by a
    reviewer of accuracy ``a`` on an item whose current opinion is right
    with probability ``pi`` (vectorised)::

        EIG = H(π) − [P(agree) H(π | agree) + P(differ) H(π | differ)]
        P(agree) = π a + (1 − π)(1 − a),   π | agree = π a / P(agree)

    >>> round(information_gain(0.79, 0.89), 3), round(information_gain(0.944, 0.89), 3)
    (0.347, 0.119)
    """
    pi = np.clip(np.asarray(pi, dtype=float), 1e-12, 1 - 1e-12)
    a = np.clip(np.asarray(a, dtype=float), 1e-12, 1 - 1e-12)
    agree = pi * a + (1 - pi) * (1 - a)
    after_agree = pi * a / agree
    after_differ = pi * (1 - a) / (1 - agree)
    out = _entropy_bits(pi) - (agree * _entropy_bits(after_agree) + (1 - agree) * _entropy_bits(after_differ))
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------ SQL

def _clip_sql(x: str, lo: float, hi: float) -> str:
    return f"least(greatest({x}, {lo!r}), {hi!r})"


def accuracy_sql(n_right: str, n_gold: str) -> str:
    """:func:`reviewer_accuracy` in SQL (``n_right``, ``n_gold`` may be NULL: no record)."""
    return (f"((coalesce({n_right}, 0) + {PRIOR_RIGHT!r}) / "
            f"(coalesce({n_gold}, 0) + {PRIOR_RIGHT + PRIOR_WRONG!r}))")


def weight_sql(accuracy: str) -> str:
    """``logit(a)`` of a clipped accuracy, in SQL: one verdict's weight."""
    a = _clip_sql(accuracy, ACCURACY_FLOOR, ACCURACY_CEILING)
    return f"ln({a} / (1 - {a}))"


def prior_sql(verdict: str, p_wrong: str) -> str:
    """:func:`opinion_prior` in SQL."""
    p = _clip_sql(p_wrong, *PRIOR_CLIP)
    return (f"(CASE WHEN {p_wrong} IS NULL OR isnan({p_wrong}) THEN 0.5 WHEN {verdict} = 'key_wrong' THEN {p} "
            f"WHEN {verdict} = 'key_correct' THEN 1 - {p} ELSE 0.5 END)")


def posterior_sql(prior: str, llr: str) -> str:
    """``1 / (1 + exp(−(logit(prior) + llr)))`` in SQL."""
    return f"(1 / (1 + exp(-(ln({prior} / (1 - {prior})) + {llr}))))"


def _h_sql(p: str) -> str:
    q = _clip_sql(p, 1e-12, 1 - 1e-12)
    return f"(-({q} * log2({q}) + (1 - {q}) * log2(1 - {q})))"


def information_gain_sql(pi: str, a: str) -> str:
    """:func:`information_gain` in SQL (``pi``, ``a``: SQL expressions)."""
    agree = f"({pi} * {a} + (1 - {pi}) * (1 - {a}))"
    return (f"greatest({_h_sql(pi)} - ({agree} * {_h_sql(f'({pi} * {a} / {agree})')} + (1 - {agree}) * "
            f"{_h_sql(f'({pi} * (1 - {a}) / (1 - {agree}))')}), 0.0)")


__all__ = [
    "PRIOR_RIGHT", "PRIOR_WRONG", "ACCURACY_FLOOR", "ACCURACY_CEILING", "PRIOR_CLIP", "reviewer_accuracy",
    "opinion_prior", "opinion_posterior", "settled_by", "information_gain", "accuracy_sql", "weight_sql",
    "prior_sql", "posterior_sql", "information_gain_sql",
]
