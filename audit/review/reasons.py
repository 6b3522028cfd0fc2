"""Why an item is in the queue: each contribution to its key-error score as
a sentence key of :data:`audit.i18n.en.EVIDENCE` with its parameters (the
sentences themselves live in :mod:`audit.i18n`), and rendered in a
language.  Probabilities and likelihood ratios become small rounded
phrases ("about 1 in 3", "about 4 times more likely"), never raw ratios."""
from __future__ import annotations

import math

import pandas as pd

from audit.analyze.inputs import latest_run
from audit.analyze.keyerror import LLR_DUPLICATE_OPTIONS
from audit.errors import NotFoundError
from audit.i18n import en
from audit.review.evidence import _judge_weights
from audit.store import DbPath, connect


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
        where = (
            ("evidence.where_subject", {"subject": r["subject"]}) if r["subject"] else ("evidence.where_benchmark", {})
        )
        out.append(
            ("evidence.start", {"where_key": where[0], **where[1], "p_chance": 1 / (1 + math.exp(-prior_logit))})
        )
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
        # the fit weighed this item's judge runs (each run's rates estimated,
        # correlated runs discounted): one sentence with its total
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


__all__ = ["why_this_item", "evidence_reasons", "evidence_reasons_many", "render_reason", "chance_words",
           "times_words"]
