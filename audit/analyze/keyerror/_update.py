"""The verdict-driven update of the key-error score: what the settled
expert verdicts and the judge verdicts that arrive after the fit change,
without a refit.  Pure: DataFrames in, DataFrames out (the review stage
reads the rows and writes the result).

The fit (:mod:`audit.analyze.keyerror._score`) stores per item the parts
of its log-odds:

    logit(score) = logit(ε_subject) + llr_models + llr_parallel + llr_lint

Each later source is added to that sum under the same naive-Bayes
assumption (each source conditionally independent of the others given
whether the key is wrong):

* **Settled expert verdicts** fix their item (key_wrong → 1, any other
  settled verdict → 0) and update the subject's wrong-key rate with one EM
  step: ε_s = (Σ unsettled scores + settled key_wrong + 100·ε) / (n_s + 100)
  (ε the benchmark-wide rate, 100 the prior strength of the fit).
* **Judges** (and panels: a panel counts as one more judge): each judge's
  sensitivity and specificity are measured on the settled items it judged,
  with Beta priors worth a few items (sensitivity Beta(3, 2), mean 0.6;
  specificity Beta(8, 2), mean 0.8) so a judge with no settled items counts
  a little.  A "key wrong" verdict adds log(sens / (1 − spec)), a "key
  correct" verdict log((1 − sens) / spec).
  Items whose judge verdicts the fit already weighed (``n_judges`` of
  ``key_error_scores`` > 0: each run's rates estimated from the models'
  posterior and settled verdicts, correlated runs discounted; see
  :func:`~audit.analyze.keyerror._judges.judge_evidence`) keep the fit's judge
  evidence instead; the measurement above covers verdicts that arrived
  after the fit.
* **The parallel source's key**: its likelihood ratio is re-measured the
  same way on settled items (priors centred on the fit's assumptions:
  sensitivity Beta(2, 2), specificity Beta(9, 1)).
* **The misconception split** φ per band of the agreement share moves with
  the settled verdicts on items the models reject
  (:func:`misconception_split`).

:func:`update_weights` measures these weights on the settled items;
:func:`update_scores` adds them up for any set of items (the review stage
calls it on the rows a new verdict can move, or on all of them).

The inputs: ``ke`` (the items) has one row per item with the fit's parts
(question_id, subject, score, p_reject, agreement_share, prior_logit,
llr_models, llr_parallel, llr_lint, fixed_reason, has_parallel,
par_mismatch, and the judge evidence the fit weighed: fit_llr_judges,
fit_n_judges); ``settled`` is the settled verdict per question_id (a
Series); ``jv`` (the judge verdicts) has one row per verdict (question_id,
judge, answer_key_correct).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from audit.analyze.keyerror import _prior
from audit.analyze.keyerror._model import SUBJECT_STRENGTH
from audit.analyze.keyerror._prior import PARALLEL_SENS, PARALLEL_SPEC, combined_score, phi_band

# Beta priors of a judge's sensitivity and specificity measured on settled
# items (not the fit's uniform ones for judge runs, _judges.JUDGE_SENS_PRIOR):
# worth a few items, so a judge with no settled items counts a little.
SETTLED_JUDGE_SENS_PRIOR = (3.0, 2.0)
SETTLED_JUDGE_SPEC_PRIOR = (8.0, 2.0)
# The parallel source's, centred on the fit's assumptions.
PARALLEL_SENS_PRIOR = (4.0 * PARALLEL_SENS, 4.0 * (1 - PARALLEL_SENS))
PARALLEL_SPEC_PRIOR = (10.0 * PARALLEL_SPEC, 10.0 * (1 - PARALLEL_SPEC))

#: The columns of :func:`judge_table`'s result that the score uses.
JUDGE_TABLE_COLS = ["judge", "n_settled", "sens", "spec", "llr_wrong", "llr_right"]


def _rate(k: Any, n: Any, prior: tuple[float, float]) -> Any:
    return (k + prior[0]) / (n + prior[0] + prior[1])


def judge_table(jv: pd.DataFrame, wrong: pd.Series, judges: Any = None) -> pd.DataFrame:
    """Per judge: n_settled, tp, fp, tn, fn, sens, spec, llr_wrong, llr_right.
    ``judges``: every judge with a verdict (default: those in ``jv``; ``jv``
    may then hold the verdicts on settled items only, which is all the counts
    use)."""
    lab = jv["question_id"].map(wrong)
    m = jv.assign(expert_wrong=lab).dropna(subset=["expert_wrong"])
    says_wrong = ~m["answer_key_correct"].astype(bool)
    ew = m["expert_wrong"].astype(bool)
    g = pd.DataFrame({"judge": m["judge"], "tp": says_wrong & ew, "fp": says_wrong & ~ew,
                      "tn": ~says_wrong & ~ew, "fn": ~says_wrong & ew}).groupby("judge").sum()
    judges = pd.Index(sorted(jv["judge"].unique() if judges is None else judges), name="judge")
    g = g.reindex(judges, fill_value=0).astype(float)
    g["n_settled"] = g[["tp", "fp", "tn", "fn"]].sum(axis=1)
    g["sens"] = _rate(g["tp"], g["tp"] + g["fn"], SETTLED_JUDGE_SENS_PRIOR)
    g["spec"] = _rate(g["tn"], g["tn"] + g["fp"], SETTLED_JUDGE_SPEC_PRIOR)
    g["llr_wrong"] = np.log(g["sens"] / (1 - g["spec"]))
    g["llr_right"] = np.log((1 - g["sens"]) / g["spec"])
    return g.reset_index()


def update_weights(ke: pd.DataFrame, settled: pd.Series, jv: pd.DataFrame, judges: Any, eps_g: float) -> dict:
    """The evidence weights measured on the settled items: ``subject_rate``
    (one EM step per subject with the settled items clamped), the parallel
    source's ``parallel`` sens / spec and the ``judges`` table.  ``settled``:
    the settled verdict per question_id.  ``ke`` must hold every item of
    each subject whose rate is wanted and every settled item; ``jv`` at
    least the judge verdicts on settled items."""
    s_verdict = ke["question_id"].map(settled)
    is_settled = s_verdict.notna().to_numpy()
    s_wrong = (s_verdict == "key_wrong").to_numpy()
    scored = ke["llr_models"].notna().to_numpy()
    phi = misconception_split(ke, settled)
    # subject rate of rejected keys: one EM step with the settled items
    # clamped (key wrong: rejected; key right: a shared misconception with
    # P(M | answers, key right))
    contrib = np.where(is_settled, np.where(s_wrong, 1.0, phi["p_misconception"]), ke["p_reject"].fillna(0).to_numpy())
    use = scored | is_settled
    subj = ke["subject"].to_numpy()
    df = pd.DataFrame({"subject": subj[use], "c": contrib[use]})
    agg = df.groupby("subject")["c"].agg(["sum", "count"])
    rate = (agg["sum"] + SUBJECT_STRENGTH * eps_g) / (agg["count"] + SUBJECT_STRENGTH)
    # parallel source: re-measured on settled items
    hp = ke["has_parallel"].to_numpy(bool)
    mm = ke["par_mismatch"].to_numpy(bool)
    on = hp & is_settled
    sens = _rate(float((mm & s_wrong & on).sum()), float((s_wrong & on).sum()), PARALLEL_SENS_PRIOR)
    spec = _rate(float((~mm & ~s_wrong & on).sum()), float((~s_wrong & on).sum()), PARALLEL_SPEC_PRIOR)
    jt = (judge_table(jv, settled == "key_wrong", judges) if len(judges)
          else pd.DataFrame(columns=JUDGE_TABLE_COLS))
    return {"parallel": {"sens": sens, "spec": spec, "n_settled": int(on.sum())}, "judges": jt,
            "n_settled": int(is_settled.sum()), "global_rate": eps_g, "subject_rate": rate,
            "phi": phi["phi"], "phi_alpha": phi["alpha"], "phi_beta": phi["beta"]}


def _band(ke: pd.DataFrame) -> np.ndarray:
    return phi_band(ke["agreement_share"].fillna(1.0).to_numpy(dtype=float))


def misconception_split(ke: pd.DataFrame, settled: pd.Series) -> dict:
    """φ = P(key wrong | the models reject the key) per band of the agreement
    share (:data:`~audit.analyze.keyerror._prior.PHI_BANDS`), updated by the
    settled verdicts (from the priors fitted on expert labels,
    :data:`~audit.analyze.keyerror._prior.PHI_PRIOR`).  Two steps: first every
    band's prior mean is scaled by (s + observed) / (s + expected), the wrong
    keys the settled items held against what the prior expected (Σ φ₀·b;
    s = the prior's mean pseudo-count of wrong keys), so a campaign that keeps
    confirming rejected keys lowers every band; then each band's conjugate
    Beta update with its own settled items.
    Each settled item counts as much as the models rejected its key: a key
    found wrong adds p_reject to its band's α; a key confirmed (or any other
    settled verdict: not a wrong key) adds P(shared misconception | answers,
    key right) = (1 − φ₀)·b / (1 − φ₀·b) to β (b = p_reject, φ₀ the band's
    prior mean: one EM step).  Returns phi, alpha, beta (arrays per band)
    and p_misconception (per row of ``ke``).

    >>> ke = pd.DataFrame({"question_id": ["a", "b", "c"], "p_reject": [1.0, 1.0, 0.0],
    ...                    "agreement_share": [1.0, 1.0, 0.0]})
    >>> r = misconception_split(ke, pd.Series({"a": "key_correct", "b": "key_correct"}))
    >>> prior = [a / (a + b) for a, b in _prior.PHI_PRIOR]
    >>> bool(all(r["phi"][k] < prior[k] for k in range(3)))   # two confirmed keys lower every band
    True
    """
    b = ke["p_reject"].fillna(0.0).clip(0.0, 1.0).to_numpy()
    v = ke["question_id"].map(settled)
    is_settled = v.notna().to_numpy()
    wrong = (v == "key_wrong").to_numpy()
    band = _band(ke)
    # read from its module now (as the fit reads PHI_PRIOR_MEAN): one assignment there changes both
    a0 = np.array([p[0] for p in _prior.PHI_PRIOR])
    b0 = np.array([p[1] for p in _prior.PHI_PRIOR])
    m0 = a0 + b0
    # shared across bands first: how many wrong keys the settled items held
    # against the prior's expectation (a ratio with a prior worth m0 rejected keys)
    exp = float((((a0 / m0)[band] * b)[is_settled]).sum())
    obs = float(b[is_settled & wrong].sum())
    s0 = float(np.mean(a0))
    phi0_band = np.clip(a0 / m0 * (s0 + obs) / (s0 + exp), 0.01, 0.99)
    phi0 = phi0_band[band]
    p_m = (1 - phi0) * b / np.maximum(1 - phi0 * b, 1e-12)
    nb = len(_prior.PHI_PRIOR)
    alpha = phi0_band * m0 + np.bincount(band[is_settled & wrong], weights=b[is_settled & wrong], minlength=nb)
    beta = (1 - phi0_band) * m0 + np.bincount(band[is_settled & ~wrong], weights=p_m[is_settled & ~wrong], minlength=nb)
    # kept to 3 decimals: a verdict on an item the models do not reject
    # (p_reject ≈ 0) does not move every score of the benchmark by a hair
    return {"phi": np.round(alpha / (alpha + beta), 3), "alpha": alpha, "beta": beta, "p_misconception": p_m}


def update_scores(ke: pd.DataFrame, settled: pd.Series, w: dict, jv: pd.DataFrame, run_id: int) -> pd.DataFrame:
    """The combined score of the items ``ke`` (the naive-Bayes sum of the
    module docstring) under the weights ``w``; ``jv``: at least the judge
    verdicts on these items."""
    s_verdict = ke["question_id"].map(settled)
    is_settled = s_verdict.notna().to_numpy()
    s_wrong = (s_verdict == "key_wrong").to_numpy()
    scored = ke["llr_models"].notna().to_numpy()
    eps_g = w["global_rate"]
    eps_s = pd.Series(ke["subject"].to_numpy()).map(w["subject_rate"]).fillna(eps_g).clip(1e-6, 1 - 1e-6).to_numpy()
    prior_logit = np.log(eps_s) - np.log1p(-eps_s)
    sens, spec = w["parallel"]["sens"], w["parallel"]["spec"]
    hp = ke["has_parallel"].to_numpy(bool)
    mm = ke["par_mismatch"].to_numpy(bool)
    llr_par = np.where(hp, np.where(mm, math.log(sens / (1 - spec)), math.log((1 - sens) / spec)), 0.0)
    llr_j = np.zeros(len(ke))
    n_j = np.zeros(len(ke), dtype=int)
    jt = w["judges"]
    if not jv.empty and len(jt):
        j = jv.merge(jt[["judge", "llr_wrong", "llr_right"]], on="judge")
        j["llr"] = np.where(j["answer_key_correct"].astype(bool), j["llr_right"], j["llr_wrong"])
        per = j.groupby("question_id")["llr"].agg(["sum", "count"])
        llr_j = ke["question_id"].map(per["sum"]).fillna(0.0).to_numpy(dtype=np.float64, copy=True)
        n_j = ke["question_id"].map(per["count"]).fillna(0).astype(int).to_numpy(copy=True)
    if "fit_n_judges" in ke:   # judge runs weighed by the fit (estimated, discounted) keep its weights
        fit_j = ke["fit_n_judges"].to_numpy() > 0
        llr_j[fit_j] = ke["fit_llr_judges"].to_numpy(dtype=float)[fit_j]
        n_j[fit_j] = ke["fit_n_judges"].to_numpy(dtype=int)[fit_j]
    llr_m = ke["llr_models"].fillna(0).to_numpy()
    phi = np.asarray(w["phi"])[_band(ke)]
    score, p_reject = combined_score(prior_logit, llr_m, llr_par + ke["llr_lint"].to_numpy() + llr_j, phi)
    # a key settled right can still be a shared misconception
    _, p_right = combined_score(prior_logit, llr_m, np.full(len(ke), -np.inf), phi)
    score = np.where(scored, score, ke["score"].to_numpy())          # fixed items keep 1 / NULL
    p_reject = np.where(scored, p_reject, ke["p_reject"].to_numpy())
    score = np.where(is_settled, s_wrong.astype(float), score)
    p_reject = np.where(is_settled, np.where(s_wrong, 1.0, p_right), p_reject)
    return pd.DataFrame({
        "question_id": ke["question_id"], "run_id": run_id, "score": score, "p_reject": p_reject,
        "prior_logit": prior_logit,
        "llr_parallel": llr_par, "llr_judges": llr_j, "n_judges": n_j,
        "settled_verdict": s_verdict.astype(object).where(s_verdict.notna(), None),
    })
