"""The key-error model (audit.analyze.keyerror._model) on small in-memory
arrays: planted reliabilities and wrong keys are recovered, the posterior
moves the right way, and on a three-item example it equals the posterior
computed by enumerating every state by hand."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest

from audit.analyze.keyerror import SPLIT_PRIOR, fit_key_error, posterior_from_counts, scores, split
from audit.analyze.keyerror._model import KeyErrorFit

# Toy data: small in-memory arrays, no database (as crowd-kit's aggregation tests use).


@dataclass
class Planted:
    """A simulated benchmark drawn from the one-coin model itself: every
    model answers every item, right with probability ``reliability[j]``,
    otherwise one of the other options uniformly.  ``wrong``: the items
    whose key was replaced by another option."""

    item: np.ndarray
    model: np.ndarray
    answer: np.ndarray
    n_options: np.ndarray
    key: np.ndarray
    truth: np.ndarray
    subject: np.ndarray
    wrong: np.ndarray
    reliability: np.ndarray


def plant(n: int = 3000, reliability=(0.95, 0.9, 0.85, 0.75, 0.65, 0.55), k: int = 4,
          wrong_rate=(0.02, 0.2), seed: int = 0) -> Planted:
    """``n`` items in ``len(wrong_rate)`` subjects of equal size, the keys
    of each subject wrong at its rate."""
    rng = np.random.default_rng(seed)
    a = np.asarray(reliability, dtype=float)
    J = len(a)
    truth = rng.integers(0, k, n)
    subject = np.arange(n) * len(wrong_rate) // n
    wrong = rng.random(n) < np.asarray(wrong_rate)[subject]
    key = np.where(wrong, (truth + rng.integers(1, k, n)) % k, truth)
    right = rng.random((n, J)) < a[None, :]
    other = (truth[:, None] + rng.integers(1, k, (n, J))) % k
    Y = np.where(right, truth[:, None], other)
    i, j = np.nonzero(np.ones((n, J), dtype=bool))
    return Planted(i, j, Y[i, j], np.full(n, k), key, truth, subject, wrong, a)


@pytest.fixture(scope="module")
def planted() -> Planted:
    return plant()


def _auc(score: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve (Mann–Whitney U / (n₊·n₋), ties half)."""
    pos, neg = score[positive], score[~positive]
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum())
                 / (len(pos) * len(neg)))


def test_planted_reliabilities_are_recovered(planted):
    f = fit_key_error(planted.item, planted.model, planted.answer, planted.n_options, planted.key,
                      subject=planted.subject)
    assert f.converged
    # 3,000 answers per model: the binomial standard error is under 0.01
    assert np.abs(f.reliability - planted.reliability).max() < 0.03
    assert f.guess_rate < 0.05                  # nobody guessed in the simulation
    assert np.allclose(f.weight, 1.0)           # every model its own family


def test_planted_wrong_keys_are_recovered(planted):
    f = fit_key_error(planted.item, planted.model, planted.answer, planted.n_options, planted.key,
                      subject=planted.subject)
    assert _auc(f.p_reject, planted.wrong) > 0.99
    assert f.p_reject[planted.wrong].mean() > 0.9 and f.p_reject[~planted.wrong].mean() < 0.05
    # the models' answer the posterior prefers is the planted truth on the wrong keys
    assert (f.alternative[planted.wrong] == planted.truth[planted.wrong]).mean() > 0.95
    # each subject's rate of rejected keys is near its planted wrong-key rate (1,500 items each)
    assert f.subject_rate[0] == pytest.approx(0.02, abs=0.015)
    assert f.subject_rate[1] == pytest.approx(0.2, abs=0.03)
    # the score splits the rejected keys (and keeps some chance for the held ones): its sum is the level's n·π
    sp = f.split
    assert f.score.sum() == pytest.approx(len(f.score) * sp["pi_a"] / (sp["pi_a"] + sp["pi_b"]), rel=1e-9)
    assert f.score[planted.wrong].mean() > 10 * f.score[~planted.wrong].mean() and _auc(f.score, planted.wrong) > 0.95


def test_the_stored_parts_give_back_the_fits_score(planted):
    """The stored parts give back the fit's score: p_reject from the subject's
    rate and the models' log LR (its last E-step), the score from p_reject,
    the evidence share, the top model and the subject's rate under the
    split's prior — what the review stage recomputes from."""
    f = fit_key_error(planted.item, planted.model, planted.answer, planted.n_options, planted.key,
                      subject=planted.subject)
    p_reject = 1 / (1 + np.exp(-(f.prior_logit + f.llr_models)))
    assert np.allclose(p_reject, f.p_reject, atol=1e-9)
    sp = split(f.p_reject, f.evidence_share, f.top_holds, f.subject_rate[planted.subject], SPLIT_PRIOR,
               accuracy=f.split["accuracy"])
    assert np.allclose(sp.score, f.score, atol=1e-12)
    s = f.split["s_a"] / (f.split["s_a"] + f.split["s_b"])
    q, _ = scores(f.alloc_wrong, f.alloc_right, s, float(f.score.sum()))
    assert np.allclose(q, f.score, atol=1e-12)


def test_copies_of_a_model_count_as_one(planted):
    """Two exact copies of model 3 in its family: the error correlation is 1
    and Kish's design effect gives each of the three a weight of 1/3."""
    J = len(planted.reliability)
    copies = planted.model == 3
    item = np.r_[planted.item, planted.item[copies], planted.item[copies]]
    model = np.r_[planted.model, np.full(copies.sum(), J), np.full(copies.sum(), J + 1)]
    answer = np.r_[planted.answer, planted.answer[copies], planted.answer[copies]]
    family = np.r_[np.arange(J), 3, 3]
    f = fit_key_error(item, model, answer, planted.n_options, planted.key, subject=planted.subject, family=family)
    assert f.family_rho[3] == pytest.approx(1.0)
    assert np.allclose(f.weight[[3, J, J + 1]], 1 / 3)
    assert np.allclose(np.delete(f.weight, [3, J, J + 1]), 1.0)
    alone = fit_key_error(planted.item, planted.model, planted.answer, planted.n_options, planted.key,
                          subject=planted.subject)
    assert np.abs(f.reliability[:J] - alone.reliability).max() < 0.01


def test_settled_verdicts_clamp_their_items(planted):
    clamp = np.full(len(planted.key), np.nan)
    clamp[:3] = [1.0, 0.0, 1.0]
    f = fit_key_error(planted.item, planted.model, planted.answer, planted.n_options, planted.key,
                      subject=planted.subject, clamp=clamp)
    assert f.p_reject[0] == 1.0 and f.score[0] == 1.0 and f.score[2] == 1.0
    assert f.score[1] == 0.0            # a key settled right is never a wrong key


# -------------------------------------------------- fixed parameters, no fit

def _params(reliability, *, eta: float, rates, weight=None) -> KeyErrorFit:
    """A fit's parameters set by hand (the per-item arrays empty)."""
    a = np.asarray(reliability, dtype=float)
    e = np.zeros(0)
    return KeyErrorFit(score=e, p_reject=e, llr_models=e, prior_logit=e, p_guessing=e, alternative=e,
                       p_alternative=e, posterior=e, reliability=a,
                       weight=np.ones(len(a)) if weight is None else np.asarray(weight, dtype=float),
                       family_rho=np.zeros(1), subject_rate=np.asarray(rates, dtype=float),
                       subject_n=np.zeros(len(rates)), global_rate=float(np.mean(rates)), guess_rate=eta,
                       n_iter=0, converged=True)


def _counts(answers: list[dict[int, int]], fit: KeyErrorFit, kmax: int):
    """The weighted counts posterior_from_counts takes, from their
    definition: per item S0 = Σ w_j·log(1 − a_j) over the models that
    answered; per (item, letter) C = Σ w_j and D = Σ w_j·logit(a_j) over the
    models that gave the letter.  ``answers``: per item, model → letter."""
    a, w = fit.reliability, fit.weight
    S0 = np.zeros(len(answers))
    C = np.zeros((len(answers), kmax))
    D = np.zeros((len(answers), kmax))
    for i, given in enumerate(answers):
        for j, t in given.items():
            S0[i] += w[j] * math.log(1 - a[j])
            C[i, t] += w[j]
            D[i, t] += w[j] * math.log(a[j] / (1 - a[j]))
    return S0, C, D


def _enumerate(given: dict[int, int], k: int, key: int, a, w, eta: float, eps: float):
    """P(T = t | answers) for t < k, P(G = 1 | answers) and the log LR of the
    answers (key wrong : key right), by summing the joint probability of
    every state (G, T) as the model's likelihood defines it."""
    prior_t = [1 - eps if t == key else eps / (k - 1) for t in range(k)]
    joint = {}
    for g, t in itertools.product((0, 1), range(k)):
        lik = 1.0
        for j, y in given.items():
            p = (1 / k) if g else (a[j] if y == t else (1 - a[j]) / (k - 1))
            lik *= p ** w[j]
        joint[g, t] = (eta if g else 1 - eta) * prior_t[t] * lik
    z = sum(joint.values())
    post = [(joint[0, t] + joint[1, t]) / z for t in range(k)]
    guess = sum(joint[1, t] for t in range(k)) / z

    def given_truth(t):             # P(answers | T = t)
        lik0 = math.prod((a[j] if y == t else (1 - a[j]) / (k - 1)) ** w[j] for j, y in given.items())
        lik1 = math.prod((1 / k) ** w[j] for j in given)
        return (1 - eta) * lik0 + eta * lik1

    llr = math.log(sum(given_truth(t) for t in range(k) if t != key) / (k - 1) / given_truth(key))
    return post, guess, llr


def test_one_item_posterior_by_hand():
    """Three models of reliability 0.8 all answer B; the key is A (4
    options, ε = 0.05, η = 0.1).  By hand: P(answers | T = B, not guessing)
    = 0.8³ = 0.512; for T = A, C or D (0.2/3)³ = 2.963e-4; guessing
    (1/4)³ = 0.015625.  The joint probabilities of T = A, B, C, D are
    0.9·0.95·2.963e-4 + 0.1·0.95·0.015625 = 1.7377e-3, 0.9·(0.05/3)·0.512 +
    0.1·(0.05/3)·0.015625 = 7.7060e-3 and 3.0486e-5 (C and D); normalised,
    P(T = A) = 0.18283, so p_reject = 0.81717."""
    fit = _params([0.8, 0.8, 0.8], eta=0.1, rates=[0.05])
    S0, C, D = _counts([{0: 1, 1: 1, 2: 1}], fit, 4)
    f = posterior_from_counts(fit, S0, C, D, [4], [0])
    assert f.posterior[0].tolist() == pytest.approx([0.182826, 0.810759, 0.003207, 0.003207], abs=1e-6)
    assert f.p_reject[0] == pytest.approx(0.817174, abs=1e-6)
    assert f.p_guessing[0] == pytest.approx(0.164392, abs=1e-6)
    assert f.llr_models[0] == pytest.approx(4.441758, abs=1e-6)
    assert f.alternative[0] == 1 and f.p_alternative[0] == pytest.approx(0.810759, abs=1e-6)
    assert f.score[0] == f.p_reject[0]          # the answers' posterior alone, before the split


def test_three_item_posterior_equals_enumeration():
    """Items of 3 and 4 options, two subjects, unequal reliabilities and
    weights, a model missing, an item nobody answered."""
    a, w, eta, rates = [0.9, 0.7, 0.6], [1.0, 0.5, 0.5], 0.15, [0.05, 0.2]
    fit = _params(a, eta=eta, rates=rates, weight=w)
    answers = [{0: 1, 1: 1}, {0: 2, 1: 3, 2: 3}, {}]
    K, key, subject = [3, 4, 4], [0, 2, 0], [0, 1, 0]
    S0, C, D = _counts(answers, fit, 4)
    f = posterior_from_counts(fit, S0, C, D, K, key, subject=subject)
    for i in range(3):
        post, guess, llr = _enumerate(answers[i], K[i], key[i], a, w, eta, rates[subject[i]])
        assert f.posterior[i, :K[i]] == pytest.approx(post, rel=1e-12)
        assert f.posterior[i, K[i]:].sum() == 0.0
        assert f.p_reject[i] == pytest.approx(1 - post[key[i]], rel=1e-12)
        assert f.p_guessing[i] == pytest.approx(guess, rel=1e-12)
        assert f.llr_models[i] == pytest.approx(llr, rel=1e-12)
        assert f.prior_logit[i] == pytest.approx(math.log(rates[subject[i]] / (1 - rates[subject[i]])))
    assert f.p_reject[2] == pytest.approx(0.05) and f.llr_models[2] == pytest.approx(0.0, abs=1e-12)


def test_more_models_on_one_other_answer_raise_the_score():
    """Ten models of reliability 0.8, key A: p_reject and the answers' log
    LR rise with every model moving from A to B."""
    fit = _params([0.8] * 10, eta=0.1, rates=[0.05])
    answers = [{j: (1 if j < c else 0) for j in range(10)} for c in range(11)]
    f = posterior_from_counts(fit, *_counts(answers, fit, 4), [4] * 11, [0] * 11)
    assert np.all(np.diff(f.p_reject) > 0) and np.all(np.diff(f.llr_models) > 0)
    assert f.p_reject[0] < 1e-6 and f.p_reject[-1] > 0.999


def test_spread_disagreement_is_guessing_not_a_wrong_key():
    """Six of nine models reject the key A: on one answer (B) the key looks
    wrong; spread over B, C and D it looks like a hard item."""
    fit = _params([0.8] * 9, eta=0.1, rates=[0.05])
    together = {j: (1 if j < 6 else 0) for j in range(9)}
    spread = {j: (1 + j % 3 if j < 6 else 0) for j in range(9)}
    f = posterior_from_counts(fit, *_counts([together, spread], fit, 4), [4, 4], [0, 0])
    assert f.p_reject[0] > 0.7 and f.p_reject[1] < 0.1
    assert f.p_guessing[1] > 0.9 and f.p_guessing[0] < 0.3


def test_the_score_rises_with_each_part():
    """Item 0 among 99 others at the same level: more rejection (p_reject),
    more of the set's evidence against the key, other evidence against it,
    an easier subject each raise its score; the most accurate model holding
    the key lowers it."""
    n = 100
    base = dict(p_reject=np.r_[0.6, np.full(n - 1, 0.05)], share=np.r_[0.4, np.full(n - 1, -0.2)],
                top_holds=np.r_[0.0, np.ones(n - 1)], subject_rate=np.full(n, 0.1), evidence_llr=np.zeros(n))

    def score0(**kw):
        d = {**base, **kw}
        return float(split(d["p_reject"], d["share"], d["top_holds"], d["subject_rate"],
                           evidence_llr=d["evidence_llr"]).score[0])

    s0 = score0()
    for part, value in (("p_reject", 0.9), ("share", 0.8), ("evidence_llr", 1.0), ("subject_rate", 0.05)):
        more = base[part].copy()
        more[0] = value
        assert score0(**{part: more}) > s0, part
    held = base["top_holds"].copy()
    held[0] = 1.0
    assert score0(top_holds=held) < s0
