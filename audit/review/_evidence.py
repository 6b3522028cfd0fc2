"""Evidence combined into the key-error score, the "evidence" queue order,
and "why this item is here" in plain words.

Where this lives, and why: the model (:mod:`audit.analyze.keyerror`) is
fitted at analysis time from the models' answers, the parallel source's key
and lint, and stores per item the parts of its log-odds:

    logit(score) = logit(ε_subject) + llr_models + llr_parallel + llr_lint

Judge verdicts and expert verdicts come later in the data flow (judge →
review), so they are combined here, in the review stage, which may read
both; the analysis stage never imports this module.  The combination is the
same naive-Bayes sum (each source conditionally independent of the others
given whether the key is wrong):

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
  ``key_error_scores`` > 0, issue 25: each run's rates estimated from the
  models' posterior and settled verdicts, correlated runs discounted; see
  :func:`audit.analyze.keyerror.judge_evidence`) keep the fit's judge
  evidence instead; the measurement above covers verdicts that arrived
  after the fit.
* **The parallel source's key**: its likelihood ratio is re-measured the
  same way on settled items (priors centred on the fit's assumptions:
  sensitivity Beta(2, 2), specificity Beta(9, 1)).

:func:`refresh_evidence` brings the stored combined score up to date after
every appended review, so the queue re-ranks after each verdict: it
recomputes (vectorised pandas/NumPy) only the rows the change of settled
verdicts can move and rewrites only those that differ.  :func:`rescore` refits the model itself
with the settled items clamped (semi-supervised EM), which also moves the
models' reliabilities.
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from audit.analyze import (
    LLR_DUPLICATE_OPTIONS,
    PARALLEL_SENS,
    PARALLEL_SPEC,
    PHI_PRIOR,
    SUBJECT_STRENGTH,
    calibration_table,
    combined_score,
    latest_run,
    load_inputs,
    load_judge_verdicts,
    model_set,
    phi_band,
    score_inputs,
    write_scores,
)
from audit.errors import NotFoundError
from audit.i18n import en
from audit.review._common import run
from audit.review._status import AUDIT_CTE, DONE, base_params, status_expr, summary_ctes
from audit.store import DbPath, connect, transaction, unregister

JUDGE_SENS_PRIOR = (3.0, 2.0)
JUDGE_SPEC_PRIOR = (8.0, 2.0)
PARALLEL_SENS_PRIOR = (4.0 * PARALLEL_SENS, 4.0 * (1 - PARALLEL_SENS))
PARALLEL_SPEC_PRIOR = (10.0 * PARALLEL_SPEC, 10.0 * (1 - PARALLEL_SPEC))
TOO_FEW_SETTLED = 10

# The current combined score per item: the refreshed evidence when it builds
# on the current run, else the fit's own score.  Relation: cur_evidence.
EVIDENCE_CTE = """
cur_evidence AS (
    SELECT k.question_id, CASE WHEN e.run_id = k.run_id THEN e.score ELSE k.score END AS key_error
    FROM key_error_scores k
    LEFT JOIN key_error_evidence e ON e.benchmark = k.benchmark AND e.question_id = k.question_id
    WHERE k.benchmark = $benchmark
      AND k.run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = $benchmark)
)"""


def _settled(con: Any, benchmark: str) -> pd.DataFrame:
    """question_id, verdict, corrected_answer of the settled items (the
    settlement rule of :mod:`audit.review._status`, on the caller's connection)."""
    sql = f"""
    WITH {summary_ctes(full=True)}, {AUDIT_CTE}
    SELECT q.question_id, s.verdict, s.corrected_answer
    FROM questions q JOIN review_summary s USING (question_id) LEFT JOIN cur_audit a USING (question_id)
    WHERE q.benchmark = $benchmark AND {status_expr()} = '{DONE}'"""
    return run(con, sql, base_params(con, benchmark)).df()


def _rate(k: Any, n: Any, prior: tuple[float, float]) -> Any:
    return (k + prior[0]) / (n + prior[0] + prior[1])


def _judge_table(jv: pd.DataFrame, wrong: pd.Series, judges: Any = None) -> pd.DataFrame:
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
    g["sens"] = _rate(g["tp"], g["tp"] + g["fn"], JUDGE_SENS_PRIOR)
    g["spec"] = _rate(g["tn"], g["tn"] + g["fp"], JUDGE_SPEC_PRIOR)
    g["llr_wrong"] = np.log(g["sens"] / (1 - g["spec"]))
    g["llr_right"] = np.log((1 - g["sens"]) / g["spec"])
    return g.reset_index()


_JUDGE_COLS = ["judge", "n_settled", "sens", "spec", "llr_wrong", "llr_right"]

# The fit's per-item parts the combination starts from ($benchmark, $run_id;
# {where} narrows it to some items).
_ITEMS_SQL = """
SELECT k.question_id, coalesce(q.subject, '') AS subject, k.score, coalesce(k.p_reject, k.score) AS p_reject,
       coalesce(k.agreement_share, 1.0) AS agreement_share,
       k.prior_logit, k.llr_models,
       k.llr_parallel, k.llr_lint, k.fixed_reason, par.question_id IS NOT NULL AS has_parallel,
       coalesce(k.llr_judges, 0) AS fit_llr_judges, coalesce(k.n_judges, 0) AS fit_n_judges,
       coalesce(par.mismatch, false) AS par_mismatch
FROM key_error_scores k
JOIN (SELECT question_id, subject, seq FROM questions WHERE benchmark = $benchmark {where}) q
  ON q.question_id = k.question_id
LEFT JOIN (SELECT question_id, bool_or(NOT key_match) AS mismatch FROM parallel_links WHERE benchmark = $benchmark
           GROUP BY question_id) par ON par.question_id = k.question_id
WHERE k.run_id = $run_id
ORDER BY q.seq"""

_JV_SQL = ("SELECT question_id, judge, answer_key_correct FROM judge_verdicts "
           "WHERE benchmark = $benchmark AND parse_ok AND answer_key_correct IS NOT NULL {where}")


def _items(con: Any, benchmark: str, run_id: int, *, ids: list[str] | None = None,
           subjects: list[str] | None = None) -> pd.DataFrame:
    """The fit's parts of every scored item of the run, or of the items
    ``ids`` and every item of ``subjects`` (import order)."""
    params: dict = {"benchmark": benchmark, "run_id": run_id}
    where = ""
    if ids is not None or subjects is not None:
        params["ids"], params["subjects"] = list(ids or []), list(subjects or [])
        where = ("AND (question_id IN (SELECT unnest($ids::VARCHAR[])) "
                 "OR coalesce(subject, '') IN (SELECT unnest($subjects::VARCHAR[])))")
    return con.execute(_ITEMS_SQL.format(where=where), params).df()


def _judge_verdicts(con: Any, benchmark: str, ids: list[str] | None = None) -> pd.DataFrame:
    params: dict = {"benchmark": benchmark}
    where = ""
    if ids is not None:
        params["ids"] = list(ids)
        where = "AND question_id IN (SELECT unnest($ids::VARCHAR[]))"
    return con.execute(_JV_SQL.format(where=where), params).df()


def _global_rate(con: Any, run_id: int) -> float:
    g = con.execute("SELECT value FROM key_error_params WHERE run_id = ? AND kind = 'global' AND name = 'all' "
                    "AND param = 'wrong_key_rate'", [run_id]).fetchall()
    return float(g[0][0]) if g else 0.02


def _weights(ke: pd.DataFrame, settled: pd.Series, jv: pd.DataFrame, judges: Any, eps_g: float) -> dict:
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
    jt = (_judge_table(jv, settled == "key_wrong", judges) if len(judges)
          else pd.DataFrame(columns=_JUDGE_COLS))
    return {"parallel": {"sens": sens, "spec": spec, "n_settled": int(on.sum())}, "judges": jt,
            "n_settled": int(is_settled.sum()), "global_rate": eps_g, "subject_rate": rate,
            "phi": phi["phi"], "phi_alpha": phi["alpha"], "phi_beta": phi["beta"]}


def _band(ke: pd.DataFrame) -> np.ndarray:
    return phi_band(ke["agreement_share"].fillna(1.0).to_numpy(dtype=float))


def misconception_split(ke: pd.DataFrame, settled: pd.Series) -> dict:
    """φ = P(key wrong | the models reject the key) per band of the agreement
    share (:data:`audit.analyze.keyerror.PHI_BANDS`), updated by the
    settled verdicts (from the priors fitted on expert labels,
    :data:`audit.analyze.keyerror.PHI_PRIOR`).  Two steps: first every
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
    >>> prior = [a / (a + b) for a, b in PHI_PRIOR]
    >>> bool(all(r["phi"][k] < prior[k] for k in range(3)))   # two confirmed keys lower every band
    True
    """
    b = ke["p_reject"].fillna(0.0).clip(0.0, 1.0).to_numpy()
    v = ke["question_id"].map(settled)
    is_settled = v.notna().to_numpy()
    wrong = (v == "key_wrong").to_numpy()
    band = _band(ke)
    a0 = np.array([p[0] for p in PHI_PRIOR])
    b0 = np.array([p[1] for p in PHI_PRIOR])
    m0 = a0 + b0
    # shared across bands first: how many wrong keys the settled items held
    # against the prior's expectation (a ratio with a prior worth m0 rejected keys)
    exp = float((((a0 / m0)[band] * b)[is_settled]).sum())
    obs = float(b[is_settled & wrong].sum())
    s0 = float(np.mean(a0))
    phi0_band = np.clip(a0 / m0 * (s0 + obs) / (s0 + exp), 0.01, 0.99)
    phi0 = phi0_band[band]
    p_m = (1 - phi0) * b / np.maximum(1 - phi0 * b, 1e-12)
    nb = len(PHI_PRIOR)
    alpha = phi0_band * m0 + np.bincount(band[is_settled & wrong], weights=b[is_settled & wrong], minlength=nb)
    beta = (1 - phi0_band) * m0 + np.bincount(band[is_settled & ~wrong], weights=p_m[is_settled & ~wrong], minlength=nb)
    # kept to 3 decimals: a verdict on an item the models do not reject
    # (p_reject ≈ 0) does not move every score of the benchmark by a hair
    return {"phi": np.round(alpha / (alpha + beta), 3), "alpha": alpha, "beta": beta, "p_misconception": p_m}


def _score(ke: pd.DataFrame, settled: pd.Series, w: dict, jv: pd.DataFrame, run_id: int) -> pd.DataFrame:
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
    if "fit_n_judges" in ke:   # judge runs weighed by the fit (issue 25: estimated, discounted) keep its weights
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


def _settled_map(con: Any, benchmark: str) -> pd.Series:
    return _settled(con, benchmark).set_index("question_id")["verdict"]


def _combine(con: Any, benchmark: str) -> tuple[pd.DataFrame, dict]:
    """The combined score of every scored item of the current run, and the
    measured evidence weights."""
    run_id = latest_run(con, benchmark)["run_id"]
    ke = _items(con, benchmark, run_id)
    if ke.empty:
        raise NotFoundError(f"the latest audit run of '{benchmark}' has no key-error score; run 'audit analyze'")
    settled = _settled_map(con, benchmark)
    jv = _judge_verdicts(con, benchmark)
    w = _weights(ke, settled, jv, jv["judge"].unique(), _global_rate(con, run_id))
    return _score(ke, settled, w, jv, run_id), w


def _judge_weights(con: Any, benchmark: str) -> pd.DataFrame:
    """The judges table of the weights (as in :func:`_combine`), from the
    judge verdicts on settled items only (all the counts use)."""
    settled = _settled_map(con, benchmark)
    judges = [j for (j,) in con.execute(
        "SELECT DISTINCT judge FROM judge_verdicts WHERE benchmark = ? AND parse_ok AND answer_key_correct IS NOT NULL",
        [benchmark]).fetchall()]
    if not judges:
        return pd.DataFrame(columns=_JUDGE_COLS)
    return _judge_table(_judge_verdicts(con, benchmark, ids=list(settled.index)), settled == "key_wrong", judges)


def _fingerprint(con: Any, benchmark: str, run_id: int) -> str:
    """Changes whenever an input of the combined score other than the
    expert verdicts changes: the fit's per-item parts and subjects, the
    judge verdicts, the parallel keys, the global rate."""
    row = con.execute("""
        SELECT (SELECT count(*) || ':' || coalesce(sum(hash(question_id, score, llr_models, llr_lint)), 0)
                FROM key_error_scores WHERE run_id = $run_id),
               (SELECT count(*) || ':' || coalesce(sum(hash(question_id, subject)), 0)
                FROM questions WHERE benchmark = $benchmark),
               (SELECT count(*) || ':' || coalesce(sum(hash(question_id, judge, answer_key_correct)), 0)
                FROM judge_verdicts WHERE benchmark = $benchmark AND parse_ok AND answer_key_correct IS NOT NULL),
               (SELECT count(*) || ':' || coalesce(sum(hash(question_id, key_match)), 0)
                FROM parallel_links WHERE benchmark = $benchmark)""",
        {"benchmark": benchmark, "run_id": run_id}).fetchall()[0]
    return "|".join(str(x) for x in row) + f"|{_global_rate(con, run_id)!r}"


_EV_COLS = ["score", "p_reject", "prior_logit", "llr_parallel", "llr_judges", "n_judges", "settled_verdict"]


def _write(con: Any, benchmark: str, out: pd.DataFrame, *, replace_all: bool) -> None:
    """Store rows of the combined score: replace all of them
    (``replace_all``), or update the rows given in place (an UPDATE of a few
    columns costs a fraction of a delete and re-insert) and insert those not
    stored yet."""
    con.register("_kev", out)
    cols = "question_id, run_id, score, p_reject, prior_logit, llr_parallel, llr_judges, n_judges, settled_verdict"
    try:
        if replace_all:
            con.execute("DELETE FROM key_error_evidence WHERE benchmark = ?", [benchmark])
            con.execute(f"INSERT INTO key_error_evidence (benchmark, {cols}, updated_at) "
                        f"SELECT ?, {cols}, now() FROM _kev", [benchmark])
            return
        n = con.execute(
            "UPDATE key_error_evidence e SET run_id = k.run_id, score = k.score, p_reject = k.p_reject, prior_logit = k.prior_logit, "
            "llr_parallel = k.llr_parallel, llr_judges = k.llr_judges, n_judges = k.n_judges, "
            "settled_verdict = k.settled_verdict, updated_at = now() "
            "FROM _kev k WHERE e.benchmark = ? AND e.question_id = k.question_id", [benchmark]).fetchall()[0][0]
        if n < len(out):
            con.execute(f"INSERT INTO key_error_evidence (benchmark, {cols}, updated_at) "
                        f"SELECT ?, {cols}, now() FROM _kev WHERE question_id NOT IN "
                        "(SELECT question_id FROM key_error_evidence WHERE benchmark = ?)", [benchmark, benchmark])
    finally:
        unregister(con, "_kev")


def _changed_rows(con: Any, benchmark: str, out: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``out`` that differ from what is stored (or are missing)."""
    ids = out["question_id"].tolist()
    old = con.execute(
        f"SELECT question_id, run_id, {', '.join(_EV_COLS)} FROM key_error_evidence WHERE benchmark = ? "
        "AND question_id IN (SELECT unnest(?::VARCHAR[]))", [benchmark, ids]).df().set_index("question_id")
    old = old.reindex(out["question_id"])
    same = old["run_id"].to_numpy() == out["run_id"].to_numpy()
    for c in _EV_COLS:
        a, b = old[c].to_numpy(), out[c].to_numpy()
        if c == "settled_verdict":
            na, nb = pd.isna(a), pd.isna(b)
            same &= (na & nb) | (~na & ~nb & (a.astype(object) == b.astype(object)))
        else:
            a, b = a.astype(float), b.astype(float)
            same &= (a == b) | (np.isnan(a) & np.isnan(b))
    return out[~same]


def refresh_evidence(con: Any, benchmark: str, *, full: bool = False) -> int:
    """Bring the stored combined score of ``benchmark`` up to date on the
    caller's connection (inside its transaction); returns the number of rows
    written.  Does nothing (0) when the benchmark has no scored audit run.

    The score depends on the expert verdicts only through the settled
    verdict of each item, so after a verdict that settles nothing new
    nothing is recomputed.  When the settled verdicts changed (and nothing
    else: the audit run and a fingerprint of the other inputs are stored
    with the settled verdicts used), the weights are measured before and
    after: the rows that can change are the changed items, every item of
    their subjects (the subject's rate), and — only when the parallel
    source's or a judge's measured weight moved — every item with a
    parallel key or a verdict of that judge.  Those rows are recomputed
    with the same functions as the full pass and only the rows whose values
    differ are rewritten.  ``full`` (or any other change) recomputes and
    rewrites every row."""
    run_id = con.execute("SELECT max(run_id) FROM audit_runs WHERE benchmark = ?", [benchmark]).fetchall()[0][0]
    if run_id is None or not con.execute(
            "SELECT count(*) FROM key_error_scores WHERE benchmark = ? AND run_id = ?",
            [benchmark, run_id]).fetchall()[0][0]:
        return 0
    fp = _fingerprint(con, benchmark, run_id)
    now = _settled_map(con, benchmark)
    state = con.execute("SELECT run_id, fingerprint, settled FROM key_error_evidence_state WHERE benchmark = ?",
                        [benchmark]).fetchall()
    written: int
    if full or not state or state[0][0] != run_id or state[0][1] != fp:
        ke = _items(con, benchmark, run_id)
        jv = _judge_verdicts(con, benchmark)
        out = _score(ke, now, _weights(ke, now, jv, jv["judge"].unique(), _global_rate(con, run_id)), jv, run_id)
        _write(con, benchmark, out, replace_all=True)
        written = len(out)
    else:
        before = pd.Series(json.loads(state[0][2]), dtype=object)
        both = pd.concat([before.rename("b"), now.rename("n")], axis=1)
        changed = both.index[both["b"].fillna("") != both["n"].fillna("")].tolist()
        if not changed:
            return 0
        written = _refresh_some(con, benchmark, run_id, before, now, changed)
    _store_state(con, benchmark, run_id, fp, now)
    return written


def _store_state(con: Any, benchmark: str, run_id: int, fp: str, settled: pd.Series) -> None:
    con.execute("DELETE FROM key_error_evidence_state WHERE benchmark = ?", [benchmark])
    con.execute("INSERT INTO key_error_evidence_state VALUES (?, ?, ?, ?, now())",
                [benchmark, run_id, fp, json.dumps({str(k): str(v) for k, v in settled.items()}, sort_keys=True)])


def _refresh_some(con: Any, benchmark: str, run_id: int, before: pd.Series, now: pd.Series,
                  changed: list[str]) -> int:
    """Rewrite the rows a change of the settled verdicts of ``changed``
    can move (see :func:`refresh_evidence`)."""
    eps_g = _global_rate(con, run_id)
    subjects = [s for (s,) in con.execute(
        "SELECT DISTINCT coalesce(subject, '') FROM questions WHERE benchmark = ? "
        "AND question_id IN (SELECT unnest(?::VARCHAR[]))", [benchmark, changed]).fetchall()]
    settled_ids = sorted(set(before.index) | set(now.index))
    ke = _items(con, benchmark, run_id, ids=settled_ids, subjects=subjects)
    judges = [j for (j,) in con.execute(
        "SELECT DISTINCT judge FROM judge_verdicts WHERE benchmark = ? AND parse_ok AND answer_key_correct IS NOT NULL",
        [benchmark]).fetchall()]
    jv = _judge_verdicts(con, benchmark, ids=settled_ids)
    w0 = _weights(ke, before, jv, judges, eps_g)
    w1 = _weights(ke, now, jv, judges, eps_g)
    moved_par = (w0["parallel"]["sens"], w0["parallel"]["spec"]) != (w1["parallel"]["sens"], w1["parallel"]["spec"])
    moved_judges = judges and not w0["judges"][["llr_wrong", "llr_right"]].equals(w1["judges"][["llr_wrong", "llr_right"]])
    moved_phi = not np.array_equal(w0["phi"], w1["phi"])
    if moved_par or moved_judges or moved_phi:
        # every item with a parallel key / a verdict of a judge moves: the
        # whole benchmark is recomputed, the rows that differ rewritten
        ke = _items(con, benchmark, run_id)
        jv = _judge_verdicts(con, benchmark)
        rows = ke
        w1 = _weights(ke, now, jv, judges, eps_g)
    else:
        rows = ke[ke["subject"].isin(subjects) | ke["question_id"].isin(changed)]
        jv = _judge_verdicts(con, benchmark, ids=rows["question_id"].tolist()) if judges else jv.iloc[:0]
    out = _changed_rows(con, benchmark, _score(rows, now, w1, jv, run_id))
    if len(out):
        _write(con, benchmark, out, replace_all=False)
    return len(out)


def evidence_scores(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """The combined score of every item, computed now (not stored): columns
    question_id, run_id, score, prior_logit, llr_parallel, llr_judges,
    n_judges, settled_verdict."""
    with connect(db, read_only=True) as con:
        return _combine(con, benchmark)[0]


def evidence_weights(benchmark: str, *, db: DbPath = None) -> dict:
    """The measured weights: ``judges`` (DataFrame judge, n_settled, tp, fp,
    tn, fn, sens, spec, llr_wrong, llr_right), ``parallel`` (sens, spec,
    n_settled), ``n_settled``, ``global_rate``, ``subject_rate`` (Series)."""
    with connect(db, read_only=True) as con:
        return _combine(con, benchmark)[1]


def rescore(benchmark: str, *, db: DbPath = None) -> int:
    """Refit the key-error model of the current audit run with the settled
    expert verdicts clamped (semi-supervised EM: the models' reliabilities
    and the subjects' rates learn from the reviewed items), store it, and
    refresh the combined score.  Returns the number of settled items used."""
    with connect(db) as con:
        runinfo = latest_run(con, benchmark)
        ms = model_set(con, benchmark, runinfo["models"])
        with transaction(con):
            con.register("_ms", ms.arrow())
            try:
                inp = load_inputs(con, benchmark, runinfo["run_id"])
            finally:
                unregister(con, "_ms")
            settled = _settled(con, benchmark).set_index("question_id")
            v = inp.items["question_id"].map(settled["verdict"])
            clamp = np.where(v.isna(), np.nan, (v == "key_wrong").astype(float))
            # the corrected answer's option index (vectorised: labels exploded to one row per option)
            ex = inp.items[["question_id", "labels"]].explode("labels")
            ex["pos"] = ex.groupby("question_id").cumcount()
            ex = ex.merge(settled["corrected_answer"].dropna().rename("labels").reset_index(), on=["question_id", "labels"])
            truth = inp.items["question_id"].map(ex.set_index("question_id")["pos"]).fillna(-1).astype(np.int64).to_numpy()
            phi = misconception_split(_items(con, benchmark, runinfo["run_id"]), settled["verdict"])["phi"]
            try:
                out, _, params = score_inputs(inp, ms, clamp=clamp, truth=truth, phi=phi,
                                              judges=load_judge_verdicts(con, benchmark, inp.items["question_id"]))
            finally:
                con.execute("DROP TABLE IF EXISTS _up")
            write_scores(con, runinfo["run_id"], benchmark, out, params)
            refresh_evidence(con, benchmark, full=True)
        return int((~np.isnan(clamp)).sum())


def calibration(benchmark: str, *, db: DbPath = None, reference: str | None = None) -> pd.DataFrame:
    """Predicted (the fit's score) vs observed rate of wrong keys, per score
    band (see :func:`audit.analyze.keyerror.calibration_table`; ``attrs``:
    ``brier`` — the Brier score, ``expected`` — Σ score, ``observed`` —
    wrong keys found, ``n`` — items compared).  Observed:
    the settled expert verdicts (key_wrong vs any other settled verdict), or,
    with ``reference`` = a label set in ``reference_labels`` (e.g.
    ``'mmlu_redux_error_type'``), items labelled ``wrong_groundtruth``."""
    with connect(db, read_only=True) as con:
        run_id = latest_run(con, benchmark)["run_id"]
        ke = con.execute("SELECT question_id, score FROM key_error_scores WHERE run_id = ? AND llr_models IS NOT NULL",
                         [run_id]).df()
        if reference is None:
            obs = _settled(con, benchmark).set_index("question_id")["verdict"].eq("key_wrong")
        else:
            obs = con.execute("SELECT question_id, value = 'wrong_groundtruth' AS w FROM reference_labels "
                              "WHERE benchmark = ? AND label_set = ?", [benchmark, reference]).df().set_index("question_id")["w"]
    ke = ke[ke["question_id"].isin(obs.index)]
    p = ke["score"].to_numpy(dtype=float)
    y = ke["question_id"].map(obs).astype(bool).to_numpy()
    tab = calibration_table(p, y)
    # Brier (1950) score and the expected vs observed count over the compared items
    tab.attrs.update(brier=float(np.mean((p - y) ** 2)) if len(p) else float("nan"), expected=float(p.sum()),
                     observed=int(y.sum()), n=int(len(p)))
    return tab


# ------------------------------------------------------------ plain words

def chance_words(p: float, words: dict[str, str] | None = None) -> str:
    """A probability as a small rounded phrase: "about 1 in 3", "about 7 in
    10", "less than 1 in 1,000", "more than 99 in 100" — never a raw ratio
    or "100%".

    >>> [chance_words(x) for x in (0.0004, 0.02, 0.3, 0.34, 0.72, 0.999)]
    ['less than 1 in 1,000', 'about 1 in 50', 'about 1 in 3', 'about 1 in 3', 'about 7 in 10', 'more than 99 in 100']
    """
    w = en.EVIDENCE if words is None else words
    p = float(p)
    if p < 0.001:
        return w["evidence.below"]
    if p > 0.99:
        return w["evidence.above"]
    if p < 0.35:
        n = int(round(1 / p))
        n = n if n <= 20 else int(round(n, -1)) if n <= 200 else int(round(n, -2))
        return w["evidence.one_in"].format(n=n)
    return w["evidence.k_in_10"].format(k=min(max(int(round(10 * p)), 4), 9))


def _effect(llr: float) -> str:
    if llr > math.log(10):
        return "evidence.effect_up_strong"
    if llr > 0.1:
        return "evidence.effect_up"
    if llr >= -0.1:
        return "evidence.effect_none"
    return "evidence.effect_down_strong" if llr < -math.log(10) else "evidence.effect_down"


def times_words(llr: float) -> tuple[str, dict]:
    """A log likelihood ratio as (sentence key, parameters) of a rounded
    "about N times more / less likely" (N = e^|llr| rounded: whole numbers to
    20, tens to 200, hundreds to 1,000, then "more than 1,000 times"; under
    1.5 times: "hardly changed the picture") — never a raw ratio.

    >>> [times_words(math.log(x)) for x in (1.2, 3.2, 0.25, 47, 5000)]  # doctest: +NORMALIZE_WHITESPACE
    [('evidence.judges_none', {}), ('evidence.judges_more', {'times': 3}), ('evidence.judges_less', {'times': 4}),
     ('evidence.judges_more', {'times': 50}), ('evidence.judges_more_over', {})]
    """
    llr = float(llr)
    f = math.exp(min(abs(llr), 50.0))
    if f < 1.5:
        return "evidence.judges_none", {}
    side = "more" if llr > 0 else "less"
    if f >= 1000:
        return f"evidence.judges_{side}_over", {}
    n = int(round(f))
    n = n if n <= 20 else int(round(n, -1)) if n <= 200 else int(round(n, -2))
    if n >= 1000:
        return f"evidence.judges_{side}_over", {}
    return f"evidence.judges_{side}", {"times": max(n, 2)}


def evidence_reasons(benchmark: str, question_id: str, *, db: DbPath = None) -> list[tuple[str, dict]]:
    """Each contribution to the item's key-error score as (sentence key of
    :data:`audit.i18n.en.EVIDENCE`, parameters); parameters whose value is itself a
    sentence key are named ``*_key``; probabilities are passed as floats
    named ``p_*`` and rendered by :func:`chance_words`.  Judge verdicts the
    key-error fit weighed (``n_judges`` > 0) are one ``evidence.judges``
    reason (runs, how many said the key is wrong, the fit's ``llr_judges``
    in words by :func:`times_words`); otherwise one ``evidence.judge`` per
    verdict with the review stage's measured weights.  Empty when the
    benchmark has no scored audit run."""
    return evidence_reasons_many(benchmark, [question_id], db=db).get(question_id, [])


_REASON_ROWS_SQL = """
SELECT k.*, q.answer_key, coalesce(q.subject, '') AS subject, a.top_answer, a.agreement_count,
       a.agreeing_families, a.n_valid, a.n_models, a.n_correct
FROM key_error_scores k JOIN questions q ON q.benchmark = k.benchmark AND q.question_id = k.question_id
LEFT JOIN audit_results a ON a.run_id = k.run_id AND a.question_id = k.question_id
WHERE k.run_id = $run_id AND k.question_id IN (SELECT unnest($ids::VARCHAR[]))"""


def evidence_reasons_many(benchmark: str, question_ids: list[str], *, db: DbPath = None
                          ) -> dict[str, list[tuple[str, dict]]]:
    """:func:`evidence_reasons` of many items at once (one read, a few
    queries in all: what a Label Studio push of thousands of tasks needs);
    question_id → reasons, items without a score left out."""
    ids = [str(q) for q in question_ids]
    with connect(db, read_only=True) as con:
        try:
            run_id = latest_run(con, benchmark)["run_id"]
        except NotFoundError:
            return {}
        prm = {"benchmark": benchmark, "run_id": run_id, "ids": ids}
        rows = con.execute(_REASON_ROWS_SQL, {"run_id": run_id, "ids": ids}).df()
        if rows.empty:
            return {}
        evs = con.execute("SELECT * FROM key_error_evidence WHERE benchmark = $benchmark AND run_id = $run_id "
                          "AND question_id IN (SELECT unnest($ids::VARCHAR[]))", prm).df()
        jvs = con.execute("SELECT question_id, judge, answer_key_correct, correct_answer FROM judge_verdicts "
                          "WHERE benchmark = $benchmark AND question_id IN (SELECT unnest($ids::VARCHAR[])) "
                          "AND parse_ok AND answer_key_correct IS NOT NULL ORDER BY question_id, judge",
                          {"benchmark": benchmark, "ids": ids}).df()
        pars = con.execute("SELECT question_id, counterpart_source, counterpart_key, key_match FROM parallel_links "
                           "WHERE benchmark = $benchmark AND question_id IN (SELECT unnest($ids::VARCHAR[])) "
                           "ORDER BY question_id, counterpart_source", {"benchmark": benchmark, "ids": ids}).df()
        # items the fit weighed (n_judges > 0) get one sentence from its figures: no per-judge table
        fit_n = rows.set_index("question_id")["n_judges"] if "n_judges" in rows else pd.Series(dtype=float)
        need_jt = any(not (pd.notna(fit_n.get(q)) and int(fit_n.get(q)) > 0) for q in jvs["question_id"].unique())
        jt_all = _judge_weights(con, benchmark) if need_jt else None
    ev_by = {q: g for q, g in evs.groupby("question_id")}
    jv_by = {q: g for q, g in jvs.groupby("question_id")}
    par_by = {q: g for q, g in pars.groupby("question_id")}
    empty_ev, empty_jv, empty_par = evs.iloc[:0], jvs.iloc[:0], pars.iloc[:0]
    return {r["question_id"]: _reasons(r, ev_by.get(r["question_id"], empty_ev), jv_by.get(r["question_id"], empty_jv),
                                       par_by.get(r["question_id"], empty_par), jt_all)
            for _, r in rows.iterrows()}


def _reasons(r: pd.Series, ev: pd.DataFrame, jv: pd.DataFrame, par: pd.DataFrame,
             jt_all: pd.DataFrame | None) -> list[tuple[str, dict]]:
    """The reasons of one item from its rows (see :func:`evidence_reasons`)."""
    fit_weighed = pd.notna(r.get("n_judges")) and int(r["n_judges"]) > 0
    if fit_weighed or jv.empty:
        jt_all = None
    key = r["answer_key"]
    out: list[tuple[str, dict]] = []
    if r["fixed_reason"] == "multi_answer":
        return [("evidence.multi", {})]
    if r["fixed_reason"] == "key_not_in_options":
        out.append(("evidence.key_not_in_options", {"key": key}))
    elif r["fixed_reason"] == "no_key":
        out.append(("evidence.no_key", {}))
    e = ev.iloc[0] if not ev.empty else None
    settled = e is not None and isinstance(e["settled_verdict"], str)
    if settled:
        out.append(("evidence.settled", {"verdict_key": f"evidence.settled.{e['settled_verdict']}"}))
    if pd.notna(r["llr_models"]):
        prior_logit = float(e["prior_logit"]) if e is not None else float(r["prior_logit"])
        where = ("evidence.where_subject", {"subject": r["subject"]}) if r["subject"] else ("evidence.where_benchmark", {})
        out.append(("evidence.start", {"where_key": where[0], **where[1], "p_chance": 1 / (1 + math.exp(-prior_logit))}))
        n_valid, n_models = int(r["n_valid"] or 0), int(r["n_models"] or 0)
        c = int(r["agreement_count"] or 0)
        if c:
            fams = int(r["agreeing_families"] or 0)
            out.append(("evidence.models_reject", {"c": c, "n": n_models, "answer": r["top_answer"], "key": key,
                                                   "k": int(r["n_correct"] or 0),
                                                   "fams_key": "evidence.family" if fams == 1 else "evidence.families",
                                                   "f": fams}))
        else:
            out.append(("evidence.models_agree", {"n": n_valid, "key": key}))
        if pd.notna(r["p_guessing"]) and r["p_guessing"] > 0.5:
            out.append(("evidence.guessing", {}))
        llr = float(r["llr_models"])
        out.append(("evidence.models_strong" if llr > math.log(20) else "evidence.models_moderate" if llr > math.log(3)
                    else "evidence.models_weak" if llr > -math.log(3) else "evidence.models_against", {}))
        b = float(e["p_reject"]) if e is not None and pd.notna(e.get("p_reject")) else float(r["p_reject"] or 0)
        sc = float(e["score"]) if e is not None and pd.notna(e["score"]) else float(r["score"] or 0)
        if b >= 0.5 and not settled:
            out.append(("evidence.misconception", {"p_chance": min(sc / b, 1.0)}))
    for _, p in par.iterrows():
        llr = float(e["llr_parallel"]) if e is not None else float(r["llr_parallel"])
        if p["key_match"]:
            out.append(("evidence.parallel_same", {"source": p["counterpart_source"], "effect_key": _effect(llr)}))
        else:
            out.append(("evidence.parallel_diff", {"source": p["counterpart_source"], "other": p["counterpart_key"],
                                                   "effect_key": _effect(llr)}))
    if r["llr_lint"] and abs(float(r["llr_lint"])) > 0:
        out.append(("evidence.duplicate", {"effect_key": _effect(LLR_DUPLICATE_OPTIONS)}))
    n_fit = int(r["n_judges"]) if "n_judges" in r and pd.notna(r["n_judges"]) else 0
    if n_fit > 0:
        # issue 25: the fit weighed this item's judge runs (each run's rates
        # estimated, correlated runs discounted): one sentence with its total
        k_wrong = min(int((~jv["answer_key_correct"].astype(bool)).sum()) if not jv.empty else 0, n_fit)
        llr_fit = float(r["llr_judges"]) if pd.notna(r["llr_judges"]) else 0.0
        eff, eff_params = times_words(llr_fit)
        out.append(("evidence.judges", {"k": k_wrong, "n": n_fit, "llr_judges": llr_fit, "effect_key": eff,
                                        **eff_params}))
    elif not jv.empty and jt_all is not None:
        jt = jt_all.set_index("judge")
        for _, j in jv.iterrows():
            t = jt.loc[j["judge"]] if j["judge"] in jt.index else None
            llr = (t["llr_right"] if j["answer_key_correct"] else t["llr_wrong"]) if t is not None else 0.0
            said = ("evidence.judge_correct", {}) if j["answer_key_correct"] else (
                ("evidence.judge_wrong_answer", {"answer": j["correct_answer"]}) if j["correct_answer"]
                else ("evidence.judge_wrong", {}))
            n = int(t["n_settled"]) if t is not None else 0
            basis = (("evidence.judge_record", {"k": int(t["tp"] + t["tn"]), "n": n}) if n and t is not None
                     else ("evidence.judge_new", {}))
            out.append(("evidence.judge", {"judge": j["judge"], "said_key": said[0], **said[1], "basis_key": basis[0],
                                           **{f"basis_{k}": v for k, v in basis[1].items()},
                                           "effect_key": _effect(float(llr))}))
    score = float(e["score"]) if e is not None and pd.notna(e["score"]) else (
        float(r["score"]) if pd.notna(r["score"]) else None)
    if settled:
        out.append(("evidence.overall_settled", {}))
    elif score is not None:
        out.append(("evidence.overall", {"p_chance": score}))
    return out


def render_reason(key: str, params: dict, words: dict[str, str] | None = None) -> str:
    """One reason of :func:`evidence_reasons` as a sentence in ``words``
    (default English: :data:`audit.i18n.en.EVIDENCE`; a missing key falls back to it).

    >>> render_reason("evidence.overall", {"p_chance": 0.31})
    'Overall, the key of this item is wrong with a chance of about 1 in 3.'
    """
    w = dict(en.EVIDENCE) if words is None else {**en.EVIDENCE, **{k: v for k, v in words.items() if v}}
    vals: dict = {}
    for k, v in params.items():
        if k.endswith("_key"):
            sub = {kk[len(k) - 3:]: vv for kk, vv in params.items() if kk.startswith(k[:-3]) and kk != k}
            vals[k[:-4]] = w.get(v, v).format(**{**params, **sub})
        elif k.startswith("p_"):
            vals[k[2:]] = chance_words(v, w)
        else:
            vals[k] = v
    return w.get(key, key).format(**vals)


def why_this_item(benchmark: str, question_id: str, *, db: DbPath = None,
                  words: dict[str, str] | None = None) -> list[str]:
    """Each contribution to the item's key-error score as a plain-language
    sentence, the overall chance last (:func:`evidence_reasons` rendered
    with ``words``, default English).  An empty list when the benchmark has
    no scored audit run."""
    return [render_reason(k, p, words) for k, p in evidence_reasons(benchmark, question_id, db=db)]


__all__ = ["refresh_evidence", "evidence_scores", "evidence_weights", "rescore", "calibration", "why_this_item",
           "EVIDENCE_CTE", "evidence_reasons", "evidence_reasons_many", "render_reason", "chance_words",
           "times_words"]
