"""The verdict-driven update of the key-error score: what the settled
expert verdicts and the judge verdicts that arrive after the fit change,
without a refit.  Pure: DataFrames in, DataFrames out (the review stage
reads the rows and writes the result).

The fit (:mod:`audit.analyze.keyerror._score`) stores per item the parts
of its score: the answers' p_reject = σ(logit ε_subject + llr_models), the
allocation's inputs (evidence_share, top_holds) and the other evidence λ
(llr_parallel, llr_lint, llr_judges); its parameters hold the level's and
s's Beta priors.  After verdicts:

* **Settled expert verdicts** fix their item (key_wrong → 1, any other
  settled verdict → 0) and update the subject's rate of rejected keys with
  one EM step: ε_s = (Σ contributions + 100·ε) / (n_s + 100), a key settled
  wrong contributing 1, one settled right P(shared misconception | answers,
  key right) = (p − q) / (1 − q) (p, q the item's p_reject and score
  before), the others their p_reject (ε the benchmark-wide rate, 100 the
  fit's prior strength).  p_reject and the allocation follow.
* **The level** moves only with the random audit sample's verdicts (a
  design-based Beta update, :mod:`audit.analyze.keyerror._level`); every
  unsettled item then gets its share of n·π minus the wrong keys found
  (:func:`~audit.analyze.keyerror._split.scores`).
* **Judges** (and panels: a panel counts as one more judge): each judge's
  sensitivity and specificity are measured on the settled items it judged,
  with Beta priors worth a few items (sensitivity Beta(3, 2), mean 0.6;
  specificity Beta(8, 2), mean 0.8) so a judge with no settled items counts
  a little.  A "key wrong" verdict adds log(sens / (1 − spec)), a "key
  correct" verdict log((1 − sens) / spec).  Items whose judge verdicts the
  fit already weighed (``n_judges`` of ``key_error_scores`` > 0) keep the
  fit's judge evidence instead.
* **The parallel source's key**: its likelihood ratio is re-measured the
  same way on settled items (priors centred on the fit's assumptions:
  sensitivity Beta(2, 2), specificity Beta(9, 1)).

:func:`update_weights` measures these on the settled items;
:func:`update_scores` computes every item's score under them.

The inputs: ``ke`` (the items) has one row per item with the fit's parts
(question_id, subject, score, p_reject, prior_logit, llr_models,
llr_parallel, llr_lint, fixed_reason, has_parallel, par_mismatch,
evidence_share, top_holds, the judge evidence the fit weighed:
fit_llr_judges, fit_n_judges, and for the random audit sample:
sample_stratum, the item's stratum when the sample was drawn (None outside
its frame), and sampled); ``settled`` is the settled verdict per
question_id (a Series); ``jv`` (the judge verdicts) has one row per verdict
(question_id, judge, answer_key_correct); ``split`` the fit's priors
(pi_a, pi_b, s_a, s_b, accuracy).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from audit.analyze.keyerror import _split
from audit.analyze.keyerror._level import Level, update_level
from audit.analyze.keyerror._model import SUBJECT_STRENGTH
from audit.analyze.keyerror._prior import PARALLEL_SENS, PARALLEL_SPEC
from audit.analyze.keyerror._sample import effective_sample
from audit.analyze.keyerror._split import allocation_parts, scaled, scores

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


def _settled_arrays(ke: pd.DataFrame, settled: pd.Series) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    v = ke["question_id"].map(settled)
    return v, v.notna().to_numpy(), (v == "key_wrong").to_numpy()


def misconception_share(p_reject: Any, score: Any) -> np.ndarray:
    """P(the models' shared answer is not the key | answers, key right) =
    (p − q) / (1 − q): what a key settled right leaves of p_reject (a
    shared misconception), q = P(key wrong) before the verdict.

    >>> misconception_share([0.9, 0.1, 1.0], [0.3, 0.1, 1.0]).round(3).tolist()
    [0.857, 0.0, 0.0]
    """
    p = np.clip(np.nan_to_num(np.asarray(p_reject, dtype=float)), 0.0, 1.0)
    q = np.clip(np.nan_to_num(np.asarray(score, dtype=float)), 0.0, 1.0)
    return np.clip(np.where(q < 1.0, (p - q) / np.maximum(1.0 - q, 1e-12), 0.0), 0.0, 1.0)


def sample_level(ke: pd.DataFrame, settled: pd.Series, split: dict) -> Level:
    """The level after the verdicts: the random audit sample's settled items
    update π's Beta prior (design-based, :func:`~audit.analyze.keyerror._sample.effective_sample`
    over the scored items of the sample's frame, in the strata it was drawn
    with); no other verdict moves it."""
    _, is_settled, s_wrong = _settled_arrays(ke, settled)
    scored = ke["llr_models"].notna().to_numpy()
    x, n_eff = 0.0, 0.0
    if "sample_stratum" in ke and ke["sample_stratum"].notna().any():
        frame = scored & ke["sample_stratum"].notna().to_numpy()
        codes, _ = pd.factorize(ke["sample_stratum"][frame])
        smp = ke["sampled"].fillna(False).to_numpy(bool)[frame]
        x, n_eff = effective_sample(codes, smp, is_settled[frame], s_wrong[frame])
    return update_level((split["pi_a"], split["pi_b"]), x, n_eff)


def update_weights(ke: pd.DataFrame, settled: pd.Series, jv: pd.DataFrame, judges: Any, eps_g: float,
                   split: dict | None = None) -> dict:
    """The evidence weights measured on the settled items: ``subject_rate``
    (one EM step per subject with the settled items clamped), the parallel
    source's ``parallel`` sens / spec, the ``judges`` table and the ``level``
    (:func:`sample_level`; with ``split``, the fit's priors).  ``settled``:
    the settled verdict per question_id.  ``ke``: every item of the
    benchmark; ``jv`` at least the judge verdicts on settled items."""
    _, is_settled, s_wrong = _settled_arrays(ke, settled)
    scored = ke["llr_models"].notna().to_numpy()
    p = ke["p_reject"].fillna(0).to_numpy(dtype=float)
    q = ke["score"].fillna(0).to_numpy(dtype=float)
    # subject rate of rejected keys: one EM step with the settled items clamped (key wrong: rejected;
    # key right: a shared misconception with P(M | answers, key right))
    contrib = np.where(is_settled, np.where(s_wrong, 1.0, misconception_share(p, q)), p)
    use = scored | is_settled
    subj = ke["subject"].to_numpy()
    agg = pd.DataFrame({"subject": subj[use], "c": contrib[use]}).groupby("subject")["c"].agg(["sum", "count"])
    rate = (agg["sum"] + SUBJECT_STRENGTH * eps_g) / (agg["count"] + SUBJECT_STRENGTH)
    hp = ke["has_parallel"].to_numpy(bool)
    mm = ke["par_mismatch"].to_numpy(bool)
    on = hp & is_settled
    sens = _rate(float((mm & s_wrong & on).sum()), float((s_wrong & on).sum()), PARALLEL_SENS_PRIOR)
    spec = _rate(float((~mm & ~s_wrong & on).sum()), float((~s_wrong & on).sum()), PARALLEL_SPEC_PRIOR)
    jt = (judge_table(jv, settled == "key_wrong", judges) if len(judges)
          else pd.DataFrame(columns=JUDGE_TABLE_COLS))
    out = {"parallel": {"sens": sens, "spec": spec, "n_settled": int(on.sum())}, "judges": jt,
           "n_settled": int(is_settled.sum()), "global_rate": eps_g, "subject_rate": rate}
    if split is not None:
        out["split"] = dict(split)
        out["level"] = sample_level(ke, settled, split)
    return out


def update_scores(ke: pd.DataFrame, settled: pd.Series, w: dict, jv: pd.DataFrame, run_id: int) -> pd.DataFrame:
    """Every item's score under the weights ``w`` (:func:`update_weights`
    with ``split``): p_reject from the updated subject rates, the allocation
    from it, the evidence λ, and the level's share for the unsettled items;
    ``ke``: every item of the benchmark (the level and the allocation's
    scale are over all of them); ``jv``: at least the judge verdicts on
    these items."""
    s_verdict, is_settled, s_wrong = _settled_arrays(ke, settled)
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
    p_now = 1.0 / (1.0 + np.exp(-np.clip(prior_logit + llr_m, -700, 700)))
    p0 = ke["p_reject"].fillna(0).to_numpy(dtype=float)
    q0 = ke["score"].fillna(0).to_numpy(dtype=float)
    p_reject = np.where(scored, p_now, ke["p_reject"].to_numpy())
    p_reject = np.where(is_settled, np.where(s_wrong, 1.0, misconception_share(p0, q0)), p_reject)
    sp = w["split"]
    prior = _split.SPLIT_PRIOR
    lam = llr_par + ke["llr_lint"].to_numpy(dtype=float) + llr_j
    score = ke["score"].to_numpy(dtype=float).copy()
    h1 = np.full(len(ke), np.nan)
    h0 = np.full(len(ke), np.nan)
    idx = np.flatnonzero(scored)
    if len(idx):
        # the allocation from the answers' p_reject (a verdict's item keeps its answers' value there)
        a, b = allocation_parts(np.where(is_settled, p_now, p_reject)[idx], ke["evidence_share"].to_numpy(float)[idx],
                                ke["top_holds"].to_numpy(float)[idx], eps_s[idx], prior, sp.get("accuracy", 0.5))
        h1[idx], h0[idx] = scaled(a), scaled(b)
        level = w["level"]
        s_mean = sp["s_a"] / (sp["s_a"] + sp["s_b"])
        q, _ = scores(h1[idx], h0[idx], s_mean, level.mean * len(idx), evidence_llr=lam[idx],
                      settled=is_settled[idx], wrong=s_wrong[idx])
        score[idx] = q
    score = np.where(is_settled, s_wrong.astype(float), score)          # fixed items keep 1 / NULL unless settled
    return pd.DataFrame({
        "question_id": ke["question_id"], "run_id": run_id, "score": score, "p_reject": p_reject,
        "prior_logit": prior_logit, "llr_parallel": llr_par, "llr_judges": llr_j, "n_judges": n_j,
        "alloc_wrong": h1, "alloc_right": h0,
        "settled_verdict": s_verdict.astype(object).where(s_verdict.notna(), None),
    })


__all__ = ["JUDGE_TABLE_COLS", "judge_table", "misconception_share", "sample_level", "update_weights",
           "update_scores"]
