"""The weighted settlement rule's formulas (audit.review.weighted): Bayes'
rule and the information gain by hand, the SQL the settlement and the
queue embed against the Python."""
from __future__ import annotations

import math

import duckdb
import numpy as np
import pytest

from audit.review.weighted import (
    information_gain,
    information_gain_sql,
    opinion_posterior,
    opinion_prior,
    posterior_sql,
    prior_sql,
    reviewer_accuracy,
    settled_by,
    weight_sql,
)


def test_posterior_is_bayes_rule_by_hand():
    # prior 0.3 that the key is wrong; two reviewers at 0.9 and 0.8 say so:
    # odds 0.3/0.7 · 9 · 4 = 15.43 → 0.9391
    odds = 0.3 / 0.7 * (0.9 / 0.1) * (0.8 / 0.2)
    assert opinion_posterior(0.3, [0.9, 0.8]) == pytest.approx(odds / (1 + odds))
    # a reviewer below a coin's accuracy counts as a coin, not against the opinion
    assert opinion_posterior(0.6, [0.3]) == pytest.approx(0.6)


def test_the_rules_examples():
    kw = dict(threshold=0.8, lone_threshold=0.95, allow_lone=True)
    assert settled_by(0.5, [0.95, 0.95], [True, True], **kw) == "weighted_agreement"   # two careful agree
    assert settled_by(0.5, [0.55], [False], **kw) is None                               # a careless one alone
    assert settled_by(0.5, [0.55, 0.55], [False, False], **kw) is None                  # two careless ones
    assert settled_by(0.85, [0.92], [True], **kw) == "weighted_evidence"                # careful + evidence
    assert settled_by(0.85, [0.92], [False], **kw) is None                              # not careful
    assert settled_by(0.45, [0.99], [True], **kw) is None                               # evidence disagrees
    assert settled_by(0.85, [0.92], [True], **{**kw, "allow_lone": False}) is None


def test_information_gain_by_hand():
    # π = 0.8, a = 0.9: P(agree) = .72 + .02 = .74, π|agree = .72/.74, π|differ = .08/.26
    def h(p):
        return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))

    want = h(0.8) - (0.74 * h(0.72 / 0.74) + 0.26 * h(0.08 / 0.26))
    assert information_gain(0.8, 0.9) == pytest.approx(want)
    # the most uncertain opinion gains most; a settled-looking one almost nothing
    g = information_gain(np.array([0.5, 0.8, 0.99]), 0.85)
    assert g[0] > g[1] > g[2] > 0


def test_information_gain_is_the_mutual_information_by_scipy():
    # EIG = I(T; V) for the truth T of the opinion and the next verdict V, computed from the joint
    # distribution with scipy: H(T) + H(V) − H(T, V)
    from scipy.stats import entropy

    for pi, a in ((0.5, 0.9), (0.8, 0.9), (0.99, 0.9), (0.3, 0.6), (0.944, 0.89)):
        joint = np.array([[pi * a, pi * (1 - a)], [(1 - pi) * (1 - a), (1 - pi) * a]])   # rows T, columns V
        mi = entropy(joint.sum(1), base=2) + entropy(joint.sum(0), base=2) - entropy(joint.ravel(), base=2)
        assert information_gain(pi, a) == pytest.approx(mi, abs=1e-12)


def test_the_sql_computes_what_python_does():
    con = duckdb.connect()
    rows = [("key_wrong", 0.3, 0.92, 0.7), ("key_correct", 0.21, 0.8, 0.55), ("ambiguous", 0.9, 0.99, 0.5),
            ("key_correct", None, 0.4, 0.8)]
    for verdict, p, acc, pi in rows:
        prior = opinion_prior(verdict, p)
        got_prior = con.execute(f"SELECT {prior_sql('v', 'p')} FROM (SELECT ?::VARCHAR AS v, ?::DOUBLE AS p)",
                                [verdict, p]).fetchone()[0]
        assert got_prior == pytest.approx(prior)
        llr = con.execute(f"SELECT {weight_sql('a')} FROM (SELECT ?::DOUBLE AS a)", [acc]).fetchone()[0]
        post = con.execute(f"SELECT {posterior_sql('pr', 'l')} FROM (SELECT ?::DOUBLE AS pr, ?::DOUBLE AS l)",
                           [prior, llr]).fetchone()[0]
        assert post == pytest.approx(opinion_posterior(prior, [acc]))
        eig = con.execute(f"SELECT {information_gain_sql('pi', 'a')} FROM (SELECT ?::DOUBLE AS pi, ?::DOUBLE AS a)",
                          [pi, acc]).fetchone()[0]
        assert eig == pytest.approx(information_gain(pi, acc), abs=1e-9)


def test_reviewer_accuracy_is_the_beta_posterior_mean():
    assert reviewer_accuracy(0, 0) == pytest.approx(0.8)
    assert reviewer_accuracy(27, 30) == pytest.approx(31 / 35)
