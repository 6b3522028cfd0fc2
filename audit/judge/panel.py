"""Several judges: agreement between them, the cross-family panel verdict,
judge-based scenarios, and the agreement statistics of ``audit report``.

* **Judge agreement**: Cohen's kappa for every pair of judges on the items
  both judged (parsed replies only) and Fleiss' kappa over the items every
  judge judged (statsmodels, via :mod:`audit.analyze.kappa`).  The label
  is the judge's answer (``on="answer"``: the key when it accepts the key,
  else its correct answer; "none" when it disputes without naming one) or
  its verdict (``on="verdict"``: key_correct / key_wrong).
* **Cross-family panel**: each *family* casts one vote (the majority answer
  of that family's judges; a tie within a family casts no vote), and the
  panel's answer is the answer with a strict majority of the family votes.
  ``panel_verdict`` is ``key_correct`` when that answer is the key,
  ``key_wrong`` when it is another option, ``no_majority`` otherwise.  One
  judge per family and at least three families is the recommended set-up: a
  single family cannot out-vote the others and self-preference of one judge
  is diluted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from audit._util.sql import memory_connection, unregister
from audit.accounts import require_role
from audit.analyze import agreement_matrix, cohen_kappa, fleiss_kappa
from audit.analyze.inputs import latest_run_models
from audit.analyze.kappa import FleissResult
from audit.errors import InputError, NotFoundError
from audit.i18n import en
from audit.judge import _store as jstore
from audit.judge.bias import render_readings
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import resolves_benchmark

NONE_LABEL = "none"


def _latest_verdicts(con, benchmark: str, judges=None) -> pd.DataFrame:
    """One row per (judge, item) from each judge's most recent prompt version
    (or ``judge@version`` when given so): question_id, judge, answer_key,
    parse_ok, answer_key_correct, judge_answer."""
    rows = con.execute(
        "SELECT judge, prompt_version, max(created_at) AS last FROM judge_verdicts WHERE benchmark = ? GROUP BY ALL",
        [benchmark]).df()
    if rows.empty:
        raise NotFoundError(f"no judge verdicts on benchmark '{benchmark}' yet")
    latest = rows.sort_values(["judge", "last", "prompt_version"]).groupby("judge").tail(1)
    chosen: dict[str, str] = dict(zip(latest["judge"], latest["prompt_version"]))
    if judges is not None:
        picked = {}
        for j in judges:
            name, _, ver = str(j).partition("@")
            if ver:
                if not ((rows["judge"] == name) & (rows["prompt_version"] == ver)).any():
                    raise NotFoundError(f"judge '{name}' has no verdicts with prompt version {ver} on '{benchmark}'")
                picked[name] = ver
            elif name in chosen:
                picked[name] = chosen[name]
            else:
                raise NotFoundError(f"no verdicts of judge '{name}' on '{benchmark}' "
                                    f"(judges: {', '.join(sorted(chosen))})")
        chosen = picked
    sel = pd.DataFrame({"judge": list(chosen), "prompt_version": list(chosen.values())})
    con.register("_judge_sel", sel)
    try:
        return con.execute(
            "SELECT v.question_id, v.judge, q.answer_key, v.parse_ok, v.answer_key_correct, "
            "CASE WHEN NOT v.parse_ok THEN NULL WHEN v.answer_key_correct THEN q.answer_key "
            f"     ELSE coalesce(v.correct_answer, '{NONE_LABEL}') END AS judge_answer, q.seq "
            "FROM judge_verdicts v JOIN _judge_sel s USING (judge, prompt_version) "
            "JOIN questions q USING (benchmark, question_id) WHERE v.benchmark = ? ORDER BY q.seq, v.judge",
            [benchmark]).df()
    finally:
        unregister(con, "_judge_sel")


@dataclass
class JudgeAgreement:
    """``pairs``: rater_a, rater_b, n, agreement, kappa, se, ci_low, ci_high.
    ``fleiss``: over items judged by every judge (None with < 3 judges)."""

    benchmark: str
    on: str
    judges: list[str]
    pairs: pd.DataFrame
    fleiss: FleissResult | None
    reading: list[str] = field(default_factory=list)
    reading_codes: list[tuple[str, dict]] = field(default_factory=list)   # (key of en.READING, parameters)


@resolves_benchmark
def judge_agreement(benchmark: str | None, *, judges=None, on: str = "answer", db: DbPath = None) -> JudgeAgreement:
    """Agreement between judges on their common items (see module docstring)."""
    if on not in ("answer", "verdict"):
        raise InputError("on must be 'answer' or 'verdict'")
    with connect(db, read_only=True) as con:
        v = _latest_verdicts(con, benchmark, judges)
    v = v[v["parse_ok"].astype(bool)]
    label = (
        v["judge_answer"]
        if on == "answer"
        else np.where(v["answer_key_correct"].astype(bool), "key_correct", "key_wrong")
    )
    long = pd.DataFrame({"item": v["question_id"], "rater": v["judge"], "label": label})
    names = sorted(long["rater"].unique())
    pairs = agreement_matrix(long)
    fl = fleiss_kappa(long) if len(names) >= 3 else None
    codes: list[tuple[str, dict]] = [(f"reading.agree.intro_{on}", {"n": len(names), "benchmark": benchmark})]
    for r in pairs.itertuples():
        if int(r.n) == 0 or math.isnan(r.agreement):   # no common item: nothing to measure
            codes.append(("reading.agree.pair_none", {"a": r.rater_a, "b": r.rater_b}))
            continue
        pair = {"a": r.rater_a, "b": r.rater_b, "n": int(r.n), "pct": float(100 * r.agreement)}
        if math.isnan(r.kappa):
            codes.append(("reading.agree.pair_undefined", pair))
        elif math.isnan(r.ci_low):
            codes.append(("reading.agree.pair_no_ci", {**pair, "kappa": float(r.kappa)}))
        else:
            codes.append(("reading.agree.pair", {**pair, "kappa": float(r.kappa), "low": float(r.ci_low),
                                                 "high": float(r.ci_high)}))
    if fl is not None and not math.isnan(fl.kappa):
        codes.append(("reading.agree.fleiss", {"n_items": fl.n_items, "n_raters": fl.n_raters, "kappa": fl.kappa}))
    codes.append(("reading.agree.scale", {}))
    reading = render_readings(codes)
    return JudgeAgreement(benchmark, on, names, pairs, fl, reading, codes)


@resolves_benchmark
def panel_verdict(
    benchmark: str | None, *, judges=None, db: DbPath = None, families: dict[str, str] | None = None
) -> pd.DataFrame:
    """The cross-family panel verdict per item (see module docstring).

    Columns: question_id, answer_key, n_judges, n_families, votes
    ("family=answer; …"), panel_answer, panel_verdict (key_correct /
    key_wrong / no_majority), support (voting families agreeing with the
    panel answer / voting families).  ``families`` overrides judge → family."""
    with connect(db, read_only=True) as con:
        v = _latest_verdicts(con, benchmark, judges)
        fam = {j: (families or {}).get(j) or jstore.judge_family(con, j) for j in v["judge"].unique()}
    v = v[v["parse_ok"].astype(bool)].copy()
    v["family"] = v["judge"].map(fam)
    v = v[["question_id", "seq", "answer_key", "judge", "family", "judge_answer"]]
    cols = ["question_id", "answer_key", "n_judges", "n_families", "votes", "panel_answer", "panel_verdict", "support"]
    if v.empty:
        return pd.DataFrame(columns=cols)
    sql = f"""
        WITH fa AS (   -- answers per family and item
            SELECT question_id, family, judge_answer AS answer, count(*) AS k
            FROM v GROUP BY question_id, family, answer
        ), fv AS (     -- a family votes for its strict-majority answer (ties: no vote)
            SELECT question_id, family, answer FROM (
                SELECT *, rank() OVER (PARTITION BY question_id, family ORDER BY k DESC) AS r,
                       count(*) OVER (PARTITION BY question_id, family, k) AS tied FROM fa)
            WHERE r = 1 AND tied = 1
        ), tally AS (
            SELECT question_id, answer, count(*) AS n_votes,
                   sum(count(*)) OVER (PARTITION BY question_id) AS n_voting FROM fv GROUP BY question_id, answer
        ), win AS (
            SELECT question_id, answer, n_votes, n_voting FROM tally WHERE 2 * n_votes > n_voting
        ), items AS (
            SELECT question_id, any_value(seq) AS seq, any_value(answer_key) AS answer_key,
                   count(DISTINCT judge) AS n_judges, count(DISTINCT family) AS n_families FROM v GROUP BY question_id
        ), votes AS (
            SELECT question_id, string_agg(family || '=' || answer, '; ' ORDER BY family) AS votes
            FROM fv GROUP BY question_id
        )
        SELECT i.question_id, i.answer_key, i.n_judges, i.n_families, coalesce(vo.votes, '') AS votes,
               CASE WHEN w.answer = '{NONE_LABEL}' THEN NULL ELSE w.answer END AS panel_answer,
               CASE WHEN w.answer IS NULL THEN 'no_majority'
                    WHEN w.answer = i.answer_key THEN 'key_correct' ELSE 'key_wrong' END AS panel_verdict,
               w.n_votes / w.n_voting AS support
        FROM items i LEFT JOIN win w USING (question_id) LEFT JOIN votes vo USING (question_id)
        ORDER BY i.seq, i.question_id
    """
    con = memory_connection()
    try:
        con.register("v", v)
        return con.execute(sql).df()
    finally:
        con.close()


def save_panel(benchmark: str, name: str, *, judges=None, db: DbPath = None, actor=None) -> int:
    """Store the panel verdicts as judge ``name`` (source 'panel', prompt
    version = the sorted member list), so scenarios and exports can use the
    panel like any judge.  Items without a majority are stored with
    parse_ok = false.  Returns the number of rows written."""
    df = panel_verdict(benchmark, judges=judges, db=db)
    with connect(db, read_only=True) as con:
        members = sorted(_latest_verdicts(con, benchmark, judges)["judge"].unique())
    version = "panel:" + ",".join(members)
    rows = []
    for r in df.itertuples():
        ok = r.panel_verdict != "no_majority"
        rows.append({"benchmark": benchmark, "question_id": r.question_id, "judge": name, "prompt_version": version,
                     "answer_key_correct": (r.panel_verdict == "key_correct") if ok else None,
                     "correct_answer": r.panel_answer if ok and r.panel_verdict == "key_wrong" else None,
                     "explanation": f"cross-family panel: {r.votes}", "confidence": r.support if ok else None,
                     "raw_reply": r.votes, "parse_ok": ok, "parse_error": None if ok else "no majority among families",
                     "source": "panel"})
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "storing panel verdicts")
        run_id = jstore.start_run(con, benchmark=benchmark, judge=name, prompt_version=version, source="panel",
                                  config={"members": members})
        for r in rows:
            r["run_id"] = run_id
        jstore.save_verdicts(con, rows)
        jstore.ensure_prompt(con, version, f"(cross-family panel of {', '.join(members)})")
        n_ok = sum(r["parse_ok"] for r in rows)
        jstore.update_run(con, run_id, status="finished", finished=True, n_selected=len(rows), n_requested=0,
                          n_ok=n_ok, n_parse_failed=len(rows) - n_ok)
    return len(rows)


# ---------------------------------------------------------------- scenarios

@dataclass
class JudgeSets:
    """|Tier 1–2|, |judge-disputed|, their intersection and union, with shares,
    and the scenario table with the two judge scenarios added."""

    benchmark: str
    judge: str
    sets: pd.DataFrame          # set, n, share_of_tier12, share_of_judge, share_of_items
    scenarios: pd.DataFrame     # analyze.scenario_table(...) with the extra scenarios
    reading: list[str] = field(default_factory=list)
    reading_codes: list[tuple[str, dict]] = field(default_factory=list)   # (key of en.READING, parameters)


SCENARIO_JUDGE = "exclude judge-disputed"
SCENARIO_UNION = "exclude Tier 1–2 ∪ judge-disputed"


@resolves_benchmark
def judge_scenarios(
    benchmark: str | None, judge: str, *, db: DbPath = None, prompt_version: str | None = None, models=None
) -> JudgeSets:
    """Scenario table with "exclude judge-disputed" and "exclude Tier 1–2 ∪
    judge-disputed" (via ``analyze.scenario_table(extra_exclusions=…)``) and
    the set sizes |Tier 1–2|, |judge|, |∩|, |∪| with shares."""
    from audit.analyze import scenario_table
    from audit.analyze.inputs import latest_run

    judge_set = jstore.disputed_ids(benchmark, judge, prompt_version=prompt_version, db=db)
    with connect(db, read_only=True) as con:
        run = latest_run(con, benchmark)
        tier12 = {r[0] for r in con.execute(
            "SELECT question_id FROM audit_results WHERE run_id = ? AND tier IN (1, 2)", [run["run_id"]]).fetchall()}
        n_items = con.execute("SELECT count(*) FROM questions WHERE benchmark = ?", [benchmark]).fetchone()[0]
    inter, union = tier12 & judge_set, tier12 | judge_set

    def share(a, b):
        return a / b if b else math.nan

    sets = pd.DataFrame([
        {"set": "Tier 1–2", "n": len(tier12)},
        {"set": "judge-disputed", "n": len(judge_set)},
        {"set": "Tier 1–2 ∩ judge", "n": len(inter)},
        {"set": "Tier 1–2 ∪ judge", "n": len(union)},
    ])
    # shares only where they mean something: of Tier 1–2 (Tier 1–2 itself, ∩),
    # of the judge's set (judge, ∩), and of all items (every row)
    sets["share_of_tier12"] = [share(len(tier12), len(tier12)), math.nan, share(len(inter), len(tier12)), math.nan]
    sets["share_of_judge"] = [math.nan, share(len(judge_set), len(judge_set)), share(len(inter), len(judge_set)),
                              math.nan]
    sets["share_of_items"] = [share(n, n_items) for n in sets["n"]]
    scen = scenario_table(benchmark, db=db, models=models,
                          extra_exclusions={SCENARIO_JUDGE: judge_set, SCENARIO_UNION: union})
    codes: list[tuple[str, dict]] = [("reading.sets.counts", {"tier12": len(tier12), "judge": judge,
                                                             "judged": len(judge_set), "both": len(inter),
                                                             "either": len(union)})]
    if tier12:
        codes.append(("reading.sets.confirmed", {"pct": 100 * share(len(inter), len(tier12))}))
    if judge_set:
        codes.append(("reading.sets.in_tiers", {"pct": 100 * share(len(inter), len(judge_set)),
                                                "n_new": len(judge_set) - len(inter)}))
    reading = render_readings(codes)
    return JudgeSets(benchmark, judge, sets, scen, reading, codes)


# ---------------------------------------------------------------- report hook

# Model-vs-model pairs grow as n²; above this many models the report keeps
# only Fleiss' kappa (agreement_matrix on the predictions still works).
MAX_PAIRWISE_MODELS = 30


def agreement_report_from(benchmark: str, *, db: DbPath = None, settled: pd.DataFrame | None = None,
                     reviewer_pairs: pd.DataFrame | None = None) -> dict:
    """Agreement statistics for ``audit report`` and the app: a dict of
    DataFrames (each may be empty) —

    * ``judges``: judge vs judge (Cohen's kappa on answers, common items);
    * ``judge_vs_experts``: each judge vs the settled expert verdicts
      (kappa on key correct / key wrong, and on the answer);
    * ``reviewers``: reviewer vs reviewer (review's ``reviewer_agreement``);
    * ``models``: model vs model (kappa on their answers, common items;
      only up to ``MAX_PAIRWISE_MODELS`` models);
    * ``fleiss``: Fleiss' kappa for judges and for models (n_items, n_raters).

    The expert tables come from the later review stage, so they are passed
    in: ``settled`` (``audit.review.settled_verdicts``) and
    ``reviewer_pairs`` (``audit.review.reviewer_agreement(...).pairs``);
    when absent those tables are empty.  :func:`audit.review.agreement_report`
    fills them (imports follow the data flow: judge never imports review).
    """
    from audit.analyze.inputs import QUESTIONS_SQL, model_set, usable_predictions_sql

    out: dict[str, pd.DataFrame] = {}
    fleiss_rows = []
    try:
        ja = judge_agreement(benchmark, db=db)
        out["judges"] = ja.pairs
        if ja.fleiss is not None:
            fleiss_rows.append({"raters": "judges", "kappa": ja.fleiss.kappa, "n_items": ja.fleiss.n_items,
                                "n_raters": ja.fleiss.n_raters})
    except NotFoundError:
        out["judges"] = pd.DataFrame(
            columns=["rater_a", "rater_b", "n", "agreement", "kappa", "se", "ci_low", "ci_high"]
        )
    out["judge_vs_experts"] = _judge_vs_experts(benchmark, db, settled)
    if reviewer_pairs is not None:
        out["reviewers"] = reviewer_pairs
    else:
        out["reviewers"] = pd.DataFrame(
            columns=["rater_a", "rater_b", "n", "agreement", "kappa", "se", "ci_low", "ci_high"]
        )
    pair_cols = ["rater_a", "rater_b", "n", "agreement", "kappa", "se", "ci_low", "ci_high"]
    out["models"] = pd.DataFrame(columns=pair_cols)
    with connect(db, read_only=True) as con:
        try:
            ms = model_set(con, benchmark, latest_run_models(con, benchmark))
        except NotFoundError:
            ms = None
        if ms is not None:
            con.register("_ms", ms.arrow())
            cte = f"WITH _q AS ({QUESTIONS_SQL}), p AS ({usable_predictions_sql()}) "
            try:
                if ms.n <= MAX_PAIRWISE_MODELS:
                    long = con.execute(
                        cte + "SELECT q.question_id AS item, p.model AS rater, p.answer AS label "
                        "FROM p JOIN _q q USING (qn)", {"benchmark": benchmark}).df()
                    out["models"] = agreement_matrix(long)
                # Fleiss over the models from per-item label counts (items every model answered)
                counts = con.execute(
                    cte + ", complete AS (SELECT qn FROM p GROUP BY qn HAVING count(*) = $n) "
                    "SELECT qn, answer, count(*)::INTEGER AS k FROM p SEMI JOIN complete USING (qn) "
                    "GROUP BY qn, answer",
                    {"benchmark": benchmark, "n": ms.n},
                ).df()
            finally:
                unregister(con, "_ms")
            if ms.n >= 3 and not counts.empty:
                table = counts.pivot(index="qn", columns="answer", values="k").fillna(0).to_numpy(dtype=float)
                kappa = math.nan
                if table.shape[1] >= 2:
                    from statsmodels.stats.inter_rater import fleiss_kappa as _sm_fleiss

                    kappa = float(_sm_fleiss(table, method="fleiss"))
                fleiss_rows.append({"raters": "models", "kappa": kappa, "n_items": int(table.shape[0]),
                                    "n_raters": ms.n})
    out["fleiss"] = pd.DataFrame(fleiss_rows, columns=["raters", "kappa", "n_items", "n_raters"])
    return out


def _judge_vs_experts(benchmark: str, db: DbPath, settled: pd.DataFrame | None) -> pd.DataFrame:
    cols = ["judge", "on", "n", "agreement", "kappa", "se", "ci_low", "ci_high"]
    if settled is None or settled.empty:
        return pd.DataFrame(columns=cols)
    with connect(db, read_only=True) as con:
        try:
            v = _latest_verdicts(con, benchmark)
        except NotFoundError:
            return pd.DataFrame(columns=cols)
    v = v[v["parse_ok"].astype(bool)]
    s = settled.set_index("question_id")
    rows = []
    for judge, g in v.groupby("judge"):
        g = g[g["question_id"].isin(s.index)]
        ev = s.loc[g["question_id"], "verdict"].to_numpy()
        binary = np.isin(ev, ["key_correct", "key_wrong"])
        jv = np.where(g["answer_key_correct"].astype(bool), "key_correct", "key_wrong")
        r = cohen_kappa(jv[binary].tolist(), ev[binary].tolist(), labels=["key_correct", "key_wrong"])
        rows.append({"judge": judge, "on": "verdict", **r.as_dict()})
        exp_ans = np.where(ev == "key_correct", g["answer_key"].to_numpy(),
                           np.where(ev == "key_wrong", s.loc[g["question_id"], "corrected_answer"].to_numpy(), None))
        ok = pd.notna(exp_ans)
        r = cohen_kappa(g["judge_answer"].to_numpy()[ok].tolist(), exp_ans[ok].tolist())
        rows.append({"judge": judge, "on": "answer", **r.as_dict()})
    return pd.DataFrame(rows, columns=cols)


_REPORT_TITLES = {k: en.READING[f"reading.section.{k}"]
                  for k in ("judges", "judge_vs_experts", "reviewers", "models", "fleiss")}
#: report section title → its ``reading.section.*`` key (for translated titles)
REPORT_TITLE_KEYS = {v: f"reading.section.{k}" for k, v in _REPORT_TITLES.items()}


def report_sections_from(benchmark: str, *, db: DbPath = None, settled: pd.DataFrame | None = None,
                    reviewer_pairs: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """The non-empty agreement tables of :func:`agreement_report_from`, titled,
    for ``audit report`` (the review stage registers
    :func:`audit.review.report_sections`, which passes the expert tables)."""
    rep = agreement_report_from(benchmark, db=db, settled=settled, reviewer_pairs=reviewer_pairs)
    return {_REPORT_TITLES[k]: df.reset_index(drop=True) for k, df in rep.items() if not df.empty}


@dataclass
class PanelResult:
    """``audit judge panel``: the panel verdict per item (columns of
    :func:`panel_verdict`) and, with ``save_as``, how many were stored."""

    benchmark: str
    verdicts: pd.DataFrame
    n_saved: int | None = None

    def counts(self) -> dict[str, int]:
        """Items per panel verdict (key_correct, key_wrong, no_majority)."""
        vc = self.verdicts["panel_verdict"].value_counts()
        return {k: int(vc.get(k, 0)) for k in ("key_correct", "key_wrong", "no_majority")}


@resolves_benchmark
def run_panel(benchmark: str | None = None, *, judges: Any = None, save_as: str | None = None,
              db: DbPath = None, actor=None) -> PanelResult:
    """The cross-family panel verdict of *judges* (default all) on
    *benchmark* (None: the only one); with *save_as*, also store the panel
    verdicts as a judge of that name (:func:`save_panel`)."""
    df = panel_verdict(benchmark, judges=judges, db=db)
    n = save_panel(benchmark, save_as, judges=judges, db=db, actor=actor) if save_as else None
    return PanelResult(benchmark=benchmark, verdicts=df, n_saved=n)
