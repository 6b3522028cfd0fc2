"""Judge bias: does the judge side with its own model family?

Definitions (all on one benchmark, one judge, one prompt version):

* **Disputed items**: the judge's reply parsed and says the key is wrong.
  The judge's answer on a disputed item is its ``correct_answer`` (may be
  NULL: "no option is correct").
* **Model answers** are the usable predictions of the analysis stage (valid,
  a label of the item; one run per model — ``default`` else the first), for
  the model set of the latest audit run (else every model with predictions).
* **Agreement rate of a model** = disputed items where the model's answer
  equals the judge's answer / all disputed items (a missing answer counts as
  no match; ``n_answered`` says how many it answered).  Wilson 95% CI.
* **A family matches** on an item when *at least one* of its models gives
  the judge's answer.  For every pair of families (X, Y) the disputed items
  split into "X only", "Y only", "both", "neither".  X is the judge's family
  when the pair contains it, else the alphabetically first.
* **Bias ratio** = X-only / Y-only.  Under "no preference" an item matched by
  exactly one of the two families is equally likely to be X's or Y's, so
  X-only ~ Binomial(X-only + Y-only, 1/2): exact two-sided binomial test
  (scipy ``binomtest``).  The 95% CI of the ratio is the exact
  (Clopper–Pearson) CI [pL, pU] of p = X-only / (X-only + Y-only) mapped by
  the monotone p ↦ p / (1 − p).
* **Flag**: the judge's family is one of the judged families (its own models
  answer the questions), so agreement may be self-preference.

The methodology's figures (130 disputed items; Gemini-only 43, Claude-only
2, both 66, neither 19 → ratio 21.5, p ≈ 5.9e-11, CI ≈ [5.6, 183]) are
reproduced by ``tests/judge/test_bias.py`` from a constructed data set.

``bias_vs_accuracy`` then separates bias from accuracy with settled expert
verdicts (see its docstring).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from audit._util.sql import unregister
from audit.analyze import wilson_interval
from audit.analyze.inputs import QUESTIONS_SQL, latest_run_models, model_set, usable_predictions_sql
from audit.errors import InputError, NotFoundError
from audit.i18n import en
from audit.judge._store import judge_family, resolve_prompt_version
from audit.store import DbPath, connect
from audit.store.benchmarks import resolves_benchmark


def ratio_test(x_only: int, y_only: int, confidence: float = 0.95) -> dict:
    """Exact binomial test of X-only vs Y-only and the exact CI of the ratio.

    >>> r = ratio_test(43, 2)
    >>> round(r["ratio"], 1), f"{r['p_value']:.1e}", round(r["ratio_low"], 1), round(r["ratio_high"])
    (21.5, '5.9e-11', 5.6, 183)
    """
    n = int(x_only) + int(y_only)
    ratio = (x_only / y_only) if y_only else (math.inf if x_only else math.nan)
    if n == 0:
        return {"ratio": ratio, "p_value": math.nan, "ratio_low": math.nan, "ratio_high": math.nan,
                "share_x": math.nan}
    from scipy.stats import binomtest  # heavy: imported when used

    res = binomtest(int(x_only), n, 0.5, alternative="two-sided")
    ci = res.proportion_ci(confidence_level=confidence, method="exact")

    def odds(p: float) -> float:
        return math.inf if p >= 1.0 else p / (1.0 - p)

    return {"ratio": ratio, "p_value": float(res.pvalue), "ratio_low": odds(ci.low), "ratio_high": odds(ci.high),
            "share_x": x_only / n}


@dataclass
class BiasReport:
    """Output of :func:`judge_bias`.  ``models``: model, family, n_disputed,
    n_answered, n_match, rate, rate_low, rate_high, same_family_as_judge.
    ``pairs``: family_x, family_y, x_only, y_only, both, neither, n, ratio,
    p_value, ratio_low, ratio_high, judge_in_pair."""

    benchmark: str
    judge: str
    prompt_version: str
    judge_family: str
    families: list[str]
    n_judged: int
    n_parse_failed: int
    n_disputed: int
    self_family: bool
    models: pd.DataFrame
    pairs: pd.DataFrame
    reading: list[str] = field(default_factory=list)
    reading_codes: list[tuple[str, dict]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "benchmark": self.benchmark, "judge": self.judge, "prompt_version": self.prompt_version,
            "judge_family": self.judge_family, "families": self.families, "n_judged": self.n_judged,
            "n_parse_failed": self.n_parse_failed, "n_disputed": self.n_disputed, "self_family": self.self_family,
            "models": _records(self.models), "pairs": _records(self.pairs), "reading": self.reading,
        }


def _records(df: pd.DataFrame) -> list[dict]:
    out = []
    for rec in df.to_dict("records"):
        clean = {}
        for k, v in rec.items():
            if isinstance(v, (np.integer,)):
                v = int(v)
            elif isinstance(v, (np.floating, float)):
                v = None if math.isnan(float(v)) else float(v)
            elif isinstance(v, np.bool_):
                v = bool(v)
            clean[k] = v
        out.append(clean)
    return out


_ITEM_SQL = f"""
    WITH _q AS ({QUESTIONS_SQL}),
    p AS ({usable_predictions_sql()}),
    j AS (
        SELECT v.question_id, v.parse_ok, v.answer_key_correct, v.correct_answer
        FROM judge_verdicts v
        WHERE v.benchmark = $benchmark AND v.judge = $judge AND v.prompt_version = $version
    )
"""


def _scope(con, benchmark: str, models):
    if models is None:
        models = latest_run_models(con, benchmark)
    return model_set(con, benchmark, models)


@resolves_benchmark
def judge_bias(benchmark: str | None, judge: str, *, db: DbPath = None, prompt_version: str | None = None, models=None,
               judge_family_override: str | None = None, confidence: float = 0.95) -> BiasReport:
    """Bias analysis of ``judge`` on ``benchmark`` (definitions in the module docstring)."""
    with connect(db, read_only=True) as con:
        if not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
            raise NotFoundError(f"no benchmark named '{benchmark}'")
        version = resolve_prompt_version(con, benchmark, judge, prompt_version)
        jfam = judge_family_override or judge_family(con, judge)
        ms = _scope(con, benchmark, models)
        con.register("_ms", ms.arrow())
        params = {"benchmark": benchmark, "judge": judge, "version": version}
        try:
            counts = con.execute(_ITEM_SQL + """
                SELECT count(*) AS n_judged, count(*) FILTER (NOT parse_ok) AS n_parse_failed,
                       count(*) FILTER (parse_ok AND NOT answer_key_correct) AS n_disputed FROM j""",
                                 params).fetchone()
            per_model = con.execute(_ITEM_SQL + """,
                d AS (SELECT question_id, correct_answer FROM j WHERE parse_ok AND NOT answer_key_correct)
                SELECT ms.model, ms.family, (SELECT count(*) FROM d) AS n_disputed,
                       count(p.answer) AS n_answered,
                       count(*) FILTER (WHERE p.answer = d.correct_answer) AS n_match
                FROM _ms ms
                LEFT JOIN (d JOIN _q q USING (question_id) JOIN p ON p.qn = q.qn) ON p.model = ms.model
                GROUP BY ms.model, ms.family ORDER BY ms.model""", params).df()
            fam_items = con.execute(_ITEM_SQL + """,
                d AS (SELECT question_id, correct_answer FROM j WHERE parse_ok AND NOT answer_key_correct),
                fams AS (SELECT DISTINCT family FROM _ms)
                SELECT d.question_id, f.family,
                       coalesce(bool_or(p.answer = d.correct_answer), false) AS matches
                FROM d CROSS JOIN fams f
                LEFT JOIN _q q ON q.question_id = d.question_id
                LEFT JOIN p ON p.qn = q.qn AND p.family = f.family
                GROUP BY d.question_id, f.family""", params).df()
        finally:
            unregister(con, "_ms")
    n_judged, n_failed, n_disputed = (int(x) for x in counts)
    per_model["n_disputed"] = per_model["n_disputed"].astype("int64")
    lo, hi = wilson_interval(per_model["n_match"].to_numpy(float), per_model["n_disputed"].to_numpy(float), confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_model["rate"] = np.where(
            per_model["n_disputed"] > 0, per_model["n_match"] / per_model["n_disputed"].clip(lower=1), np.nan
        )
    per_model["rate_low"], per_model["rate_high"] = lo, hi
    per_model["same_family_as_judge"] = per_model["family"] == jfam
    per_model = per_model.sort_values(["rate", "model"], ascending=[False, True]).reset_index(drop=True)

    families = sorted(set(ms.families.values()))
    wide = (fam_items.pivot(index="question_id", columns="family", values="matches")
            .reindex(columns=families).fillna(False).astype(bool)) if not fam_items.empty else \
        pd.DataFrame(columns=families, dtype=bool)
    rows = []
    for a, b in combinations(families, 2):
        x, y = (b, a) if b == jfam else (a, b)
        mx, my = wide[x], wide[y]
        cnt = {"x_only": int((mx & ~my).sum()), "y_only": int((~mx & my).sum()),
               "both": int((mx & my).sum()), "neither": int((~mx & ~my).sum())}
        rows.append(
            {
                "family_x": x,
                "family_y": y,
                **cnt,
                "n": sum(cnt.values()),
                **{k: v for k, v in ratio_test(cnt["x_only"], cnt["y_only"], confidence).items() if k != "share_x"},
                "judge_in_pair": jfam in (x, y),
            }
        )
    pairs = pd.DataFrame(rows, columns=["family_x", "family_y", "x_only", "y_only", "both", "neither", "n", "ratio",
                                        "p_value", "ratio_low", "ratio_high", "judge_in_pair"])
    pairs = pairs.sort_values(["judge_in_pair", "family_x", "family_y"], ascending=[False, True, True]).reset_index(
        drop=True
    )
    rep = BiasReport(benchmark, judge, version, jfam, families, n_judged, n_failed, n_disputed, jfam in families,
                     per_model, pairs)
    rep.reading_codes = _bias_reading(rep)
    rep.reading = render_readings(rep.reading_codes)
    return rep


def _num(v, spec: str = ".3g") -> str:
    """A figure for a reading: ``∞``, ``—`` for a missing one."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return "∞" if v == math.inf else format(v, spec)


def _bias_reading(rep: BiasReport) -> list[tuple[str, dict]]:
    """The reading of :func:`judge_bias` as (key of :data:`audit.i18n.en.READING`, parameters)."""
    who = {"judge": rep.judge, "family": rep.judge_family, "n_disputed": rep.n_disputed, "n_judged": rep.n_judged}
    out: list[tuple[str, dict]] = [("reading.bias.summary_failed", {**who, "n_failed": rep.n_parse_failed})
                                   if rep.n_parse_failed else ("reading.bias.summary", who)]
    if rep.self_family:
        out.append(("reading.bias.self_family", {"family": rep.judge_family}))
    if rep.n_disputed == 0:
        return out
    if not rep.models.empty:
        top = rep.models.iloc[0]
        out.append(("reading.bias.top_model", {"model": str(top["model"]), "k": int(top["n_match"]),
                                               "n": int(top["n_disputed"]), "pct": float(100 * top["rate"])}))
    own = rep.pairs[rep.pairs["judge_in_pair"]]
    for r in own.itertuples():
        out.append(("reading.bias.pair", {"x": r.family_x, "y": r.family_y, "x_only": int(r.x_only),
                                          "y_only": int(r.y_only), "both": int(r.both), "neither": int(r.neither),
                                          "ratio": _num(r.ratio), "low": _num(r.ratio_low),
                                          "high": _num(r.ratio_high), "p": _num(r.p_value, ".2g")}))
    out.append(("reading.bias.caveat", {}))
    return out


# ---------------------------------------------------------------- bias vs accuracy

@dataclass
class AccuracyReport:
    """Output of :func:`bias_vs_accuracy_from`.

    ``overall``: one row — n (settled items with an expert answer and a parsed
    judge verdict), n_correct, accuracy (+ Wilson low/high), kappa / kappa_low
    / kappa_high / kappa_n (judge vs experts on key correct vs key wrong).
    ``patterns``: per family pair (as in :func:`judge_bias`) and pattern
    (x_only / y_only / both / neither) on disputed items — n, n_settled,
    n_judge_correct, accuracy (+ Wilson).
    ``errors``: per family — n_wrong (settled items where a model of the
    family answers wrong per the experts), n_judge_same (the judge gives
    such a wrong answer of the family), rate (+ Wilson),
    same_family_as_judge.  ``errors_by_model``:
    the same per model."""

    benchmark: str
    judge: str
    prompt_version: str
    judge_family: str
    n_settled: int
    overall: pd.DataFrame
    patterns: pd.DataFrame
    errors: pd.DataFrame
    errors_by_model: pd.DataFrame
    reading: list[str] = field(default_factory=list)
    reading_codes: list[tuple[str, dict]] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"benchmark": self.benchmark, "judge": self.judge, "prompt_version": self.prompt_version,
                "judge_family": self.judge_family, "n_settled": self.n_settled,
                "overall": _records(self.overall), "patterns": _records(self.patterns),
                "errors": _records(self.errors), "errors_by_model": _records(self.errors_by_model),
                "reading": self.reading}


def _expert_answers(settled: pd.DataFrame, keys: pd.Series) -> pd.DataFrame:
    """question_id, expert_verdict, expert_answer (key when key_correct, the
    corrected answer when key_wrong, NULL otherwise)."""
    s = settled[["question_id", "verdict", "corrected_answer"]].copy()
    s["answer_key"] = s["question_id"].map(keys)
    s["expert_answer"] = np.where(s["verdict"] == "key_correct", s["answer_key"],
                                  np.where(s["verdict"] == "key_wrong", s["corrected_answer"], None))
    s["expert_answer"] = s["expert_answer"].where(pd.notna(s["expert_answer"]), None)
    return s.rename(columns={"verdict": "expert_verdict"})[["question_id", "expert_verdict", "expert_answer"]]


def bias_vs_accuracy_from(
    benchmark: str,
    judge: str,
    *,
    db: DbPath = None,
    prompt_version: str | None = None,
    models=None,
    settled: pd.DataFrame | None = None,
    judge_family_override: str | None = None,
    confidence: float = 0.95,
) -> AccuracyReport:
    """Separate judge bias from judge accuracy with settled expert verdicts.

    ``settled`` is review's ``settled_verdicts(benchmark)`` (columns
    question_id, verdict, corrected_answer); it comes from the later review
    stage, so it must be passed — :func:`audit.review.bias_vs_accuracy`
    reads it for you.  The expert answer is
    the key when the verdict is key_correct, the corrected answer when
    key_wrong; items judged ambiguous or defective have no expert answer and
    are left out of the answer-level figures.

    * Judge accuracy = judge answer (key when it accepts the key, else its
      correct_answer) equals the expert answer; Wilson CI.  Cohen's kappa
      (statsmodels) between judge and experts on "key correct / key wrong".
    * Per family-agreement pattern of each family pair: the judge's accuracy
      on the disputed items where it matched X only, Y only, both, neither.
      If the judge sides with X because X is right, its accuracy on X-only
      items is high; if out of bias, low.
    * Self-preference on errors: for each family, on settled items where
      the family's answer is wrong (at least one of its models answers
      wrong — the same "any model" rule as in :func:`judge_bias`), how often
      the judge gives that same wrong answer (one of the family's wrong
      answers).  Per model too (``errors_by_model``).
      A judge that repeats its own family's errors more than other families'
      errors is biased; agreeing with its family where the family is right
      is not bias.
    """
    from audit.analyze import cohen_kappa

    if settled is None:
        raise InputError("bias_vs_accuracy needs the settled expert verdicts (settled=...); "
                         "audit.review.bias_vs_accuracy reads them from the database")
    bias = judge_bias(benchmark, judge, db=db, prompt_version=prompt_version, models=models,
                      judge_family_override=judge_family_override, confidence=confidence)
    with connect(db, read_only=True) as con:
        ms = _scope(con, benchmark, models)
        con.register("_ms", ms.arrow())
        params = {"benchmark": benchmark, "judge": judge, "version": bias.prompt_version}
        try:
            items = con.execute(_ITEM_SQL + """
                SELECT q.question_id, q.answer_key, j.parse_ok, j.answer_key_correct,
                       CASE WHEN j.parse_ok AND j.answer_key_correct THEN q.answer_key
                            WHEN j.parse_ok THEN j.correct_answer END AS judge_answer
                FROM _q q JOIN j USING (question_id)""", params).df()
            preds = con.execute(_ITEM_SQL + """
                SELECT q.question_id, p.model, p.family, p.answer FROM p JOIN _q q USING (qn)""", params).df()
        finally:
            unregister(con, "_ms")
    keys = items.set_index("question_id")["answer_key"]
    exp = _expert_answers(settled, keys)
    exp = exp[exp["question_id"].isin(items["question_id"])]
    df = items.merge(exp, on="question_id", how="inner")
    parsed = df[df["parse_ok"].fillna(False).astype(bool)]
    with_answer = parsed[parsed["expert_answer"].notna()]
    n = len(with_answer)
    k = int((with_answer["judge_answer"] == with_answer["expert_answer"]).sum())
    lo, hi = wilson_interval(k, n, confidence) if n else (math.nan, math.nan)
    binary = parsed[parsed["expert_verdict"].isin(["key_correct", "key_wrong"])]
    kap = cohen_kappa(np.where(binary["answer_key_correct"].astype(bool), "key_correct", "key_wrong").tolist(),
                      binary["expert_verdict"].tolist(), labels=["key_correct", "key_wrong"])
    overall = pd.DataFrame([{"n": n, "n_correct": k, "accuracy": k / n if n else math.nan,
                             "accuracy_low": lo, "accuracy_high": hi, "kappa": kap.kappa, "kappa_low": kap.ci_low,
                             "kappa_high": kap.ci_high, "kappa_n": kap.n}])

    # patterns on disputed items
    disputed = parsed[~parsed["answer_key_correct"].astype(bool)]
    pm = preds.merge(disputed[["question_id", "judge_answer"]], on="question_id")
    pm["match"] = pm["answer"] == pm["judge_answer"]
    fam_match = pm.groupby(["question_id", "family"])["match"].any().unstack(fill_value=False)
    fam_match = (
        fam_match.reindex(index=disputed["question_id"], columns=bias.families, fill_value=False)
        .fillna(False)
        .astype(bool)
    )
    correct = (disputed.set_index("question_id")["judge_answer"] == disputed.set_index("question_id")["expert_answer"])
    has_exp = disputed.set_index("question_id")["expert_answer"].notna()
    prow = []
    for r in bias.pairs.itertuples():
        mx, my = fam_match[r.family_x], fam_match[r.family_y]
        for name, mask in (("x_only", mx & ~my), ("y_only", ~mx & my), ("both", mx & my), ("neither", ~mx & ~my)):
            sel = mask & has_exp
            prow.append({"family_x": r.family_x, "family_y": r.family_y, "pattern": name,
                         "n": int(mask.sum()), "n_settled": int(sel.sum()),
                         "n_judge_correct": int((correct & sel).sum()), "judge_in_pair": r.judge_in_pair})
    patterns = pd.DataFrame(prow, columns=["family_x", "family_y", "pattern", "n", "n_settled", "n_judge_correct",
                                           "judge_in_pair"])
    _wilson_cols(patterns, "accuracy", "n_judge_correct", "n_settled", confidence)

    # self-preference on errors
    pe = preds.merge(with_answer[["question_id", "judge_answer", "expert_answer"]], on="question_id")
    bym = pe.assign(wrong=pe["answer"] != pe["expert_answer"],
                    same=(pe["answer"] != pe["expert_answer"]) & (pe["answer"] == pe["judge_answer"]))
    errors_by_model = (bym.groupby(["model", "family"], as_index=False)
                       .agg(n_wrong=("wrong", "sum"), n_judge_same=("same", "sum")))
    errors_by_model = ms_frame(ms).merge(errors_by_model, on=["model", "family"], how="left").fillna(
        {"n_wrong": 0, "n_judge_same": 0})
    errors_by_model[["n_wrong", "n_judge_same"]] = errors_by_model[["n_wrong", "n_judge_same"]].astype("int64")
    _wilson_cols(errors_by_model, "rate", "n_judge_same", "n_wrong", confidence)
    errors_by_model["same_family_as_judge"] = errors_by_model["family"] == bias.judge_family

    # family level, consistent with judge_bias: an item counts for family F
    # when at least one F model is wrong on it; the judge repeats F's error
    # when its (wrong) answer is one of those wrong answers.
    errors = (bym.assign(same_fam=bym["same"])
              .groupby(["question_id", "family"], as_index=False)
              .agg(wrong=("wrong", "any"), same=("same_fam", "any"))
              .groupby("family", as_index=False).agg(n_wrong=("wrong", "sum"), n_judge_same=("same", "sum")))
    errors = pd.DataFrame({"family": bias.families}).merge(errors, on="family", how="left").fillna(
        {"n_wrong": 0, "n_judge_same": 0})
    errors[["n_wrong", "n_judge_same"]] = errors[["n_wrong", "n_judge_same"]].astype("int64")
    _wilson_cols(errors, "rate", "n_judge_same", "n_wrong", confidence)
    errors["same_family_as_judge"] = errors["family"] == bias.judge_family

    rep = AccuracyReport(benchmark, judge, bias.prompt_version, bias.judge_family, len(exp), overall, patterns,
                         errors, errors_by_model)
    rep.reading_codes = _accuracy_reading(rep)
    rep.reading = render_readings(rep.reading_codes)
    return rep


def ms_frame(ms) -> pd.DataFrame:
    return pd.DataFrame({"model": list(ms.models), "family": [ms.families[m] for m in ms.models]})


def _wilson_cols(df: pd.DataFrame, name: str, k: str, n: str, confidence: float) -> None:
    kk = df[k].to_numpy(float)
    nn = df[n].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        df[name] = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    if len(df):
        lo, hi = wilson_interval(kk, nn, confidence)
    else:
        lo = hi = np.array([])
    df[f"{name}_low"], df[f"{name}_high"] = lo, hi


def _pct(k, n) -> str:
    return f"{k}/{n} = {100 * k / n:.1f}%" if n else f"{k}/0"


def _accuracy_reading(rep: AccuracyReport) -> list[tuple[str, dict]]:
    """The reading of :func:`bias_vs_accuracy_from` as (key of :data:`audit.i18n.en.READING`, parameters)."""
    o = rep.overall.iloc[0]
    if o["n"] == 0:
        return [("reading.acc.none", {"judge": rep.judge, "n_settled": rep.n_settled})]
    overall = {"share": _pct(int(o["n_correct"]), int(o["n"])), "low": float(100 * o["accuracy_low"]),
               "high": float(100 * o["accuracy_high"])}
    out: list[tuple[str, dict]] = [
        ("reading.acc.overall", overall) if math.isnan(o["kappa"]) else
        ("reading.acc.overall_kappa", {**overall, "kappa": float(o["kappa"]), "kappa_n": int(o["kappa_n"])})]
    # one family only: no pair of families, so the patterns table has no rows (nor pair columns)
    own = rep.patterns[rep.patterns["judge_in_pair"]] if "judge_in_pair" in rep.patterns else rep.patterns.iloc[:0]
    for (x, y), g in (own.groupby(["family_x", "family_y"], sort=False) if len(own) else ()):
        g = g.set_index("pattern")
        xo, yo = g.loc["x_only"], g.loc["y_only"]
        out.append(("reading.acc.pattern", {"x": x, "y": y,
                                            "x_share": _pct(int(xo["n_judge_correct"]), int(xo["n_settled"])),
                                            "x_n": int(xo["n"]),
                                            "y_share": _pct(int(yo["n_judge_correct"]), int(yo["n_settled"])),
                                            "y_n": int(yo["n"])}))
    e = rep.errors.set_index("family")
    fam = rep.judge_family
    if fam in e.index and e.loc[fam, "n_wrong"] > 0:
        own_row = e.loc[fam]
        others = e.drop(index=fam)
        others = others[others["n_wrong"] > 0]
        mine = {"family": fam, "share": _pct(int(own_row["n_judge_same"]), int(own_row["n_wrong"])),
                "low": float(100 * own_row["rate_low"]), "high": float(100 * own_row["rate_high"])}
        if len(others):
            out.append(("reading.acc.self_errors_others", {**mine, "others": ", ".join(
                f"{f} {_pct(int(r.n_judge_same), int(r.n_wrong))}" for f, r in others.iterrows())}))
        else:
            out.append(("reading.acc.self_errors", mine))
        if len(others):
            above = (own_row["rate_low"] > others["rate_high"]).all()
            overlap = (own_row["rate_high"] >= others["rate_low"]).any() and (
                own_row["rate_low"] <= others["rate_high"]
            ).any()
            key = "reading.acc.bias" if above else "reading.acc.overlap" if overlap else "reading.acc.less"
            out.append((key, {"family": fam}))
    else:
        out.append(("reading.acc.no_own_errors", {"family": fam}))
    return out


def render_reading(key: str, params: dict, words: dict[str, str] | None = None) -> str:
    """One sentence of reading in ``words`` (a catalogue holding the
    ``reading.*`` keys; default and fallback: :data:`audit.i18n.en.READING`).

    >>> render_reading("reading.sets.confirmed", {"pct": 40.0})
    '40% of Tier 1–2 confirmed by the judge.'
    >>> render_reading("reading.sets.confirmed", {"pct": 40.0}, {"reading.sets.confirmed": "{pct:.0f}% 已由评审确认。"})
    '40% 已由评审确认。'
    """
    template = (words or {}).get(key) or en.READING.get(key, key)
    return template.format(**params)


def render_readings(codes: list[tuple[str, dict]], words: dict[str, str] | None = None) -> list[str]:
    """:func:`render_reading` of each (key, parameters)."""
    return [render_reading(k, p, words) for k, p in codes]
