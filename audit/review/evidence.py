"""The stored combined key-error score, kept up to date as verdicts arrive,
the refit with the settled verdicts clamped, and the calibration table.

The model (:mod:`audit.analyze.keyerror`) is fitted at analysis time from
the models' answers, the parallel source's key and lint, and stores per
item the parts of its score.  Judge verdicts, expert verdicts and the
random audit sample come later in the data flow (judge → review), so they
are read here, in the review stage, which may read both; the update they
make is the key-error model's (:func:`audit.analyze.keyerror.update_weights`,
:func:`~audit.analyze.keyerror.update_scores`: the settled verdicts clamp
their items and move the subjects' rates, the audit sample's verdicts move
the level, and the judges and the parallel source are measured).

:func:`refresh_evidence` brings the stored combined score up to date after
every appended review, so the queue re-ranks after each verdict: when the
settled verdicts (or any other input) changed it recomputes every item
(vectorised NumPy: the level couples them, a wrong key found at the top
leaves fewer for the rest) and rewrites the rows whose values differ; a
verdict that settles nothing writes nothing.  :func:`rescore` refits the
model itself with the settled items clamped (semi-supervised EM), which
also moves the models' reliabilities.
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from audit._util.sql import unregister
from audit.accounts import require_role
from audit.analyze.inputs import latest_run, model_set
from audit.analyze.keyerror import (
    JUDGE_TABLE_COLS,
    calibration_table,
    judge_table,
    load_inputs,
    load_judge_verdicts,
    score_inputs,
    update_scores,
    update_weights,
    write_scores,
)
from audit.errors import NotFoundError
from audit.review._common import run
from audit.review._status import AUDIT_CTE, DONE, base_params, status_expr, summary_ctes
from audit.store import DbPath, connect, transaction

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
    settlement rule of :mod:`audit.review._status`, on the caller's connection).
    Known-answer items are left out: a score clamped by their known answer
    would tell them apart from the items around them in the queue and on
    the item page."""
    params = base_params(con, benchmark)
    sql = f"""
    WITH {summary_ctes(full=True, params=params)}, {AUDIT_CTE}
    SELECT q.question_id, s.verdict, s.corrected_answer
    FROM questions q JOIN review_summary s USING (question_id) LEFT JOIN cur_audit a USING (question_id)
    WHERE q.benchmark = $benchmark AND {status_expr()} = '{DONE}'
      AND q.question_id NOT IN (SELECT question_id FROM gold_items WHERE benchmark = $benchmark)"""
    return run(con, sql, params).df()


# The fit's per-item parts the combination starts from ($benchmark, $run_id),
# with each item's stratum in the benchmark's latest audit sample.
_ITEMS_SQL = """
SELECT k.question_id, coalesce(q.subject, '') AS subject, k.score, coalesce(k.p_reject, k.score) AS p_reject,
       k.prior_logit, k.llr_models, k.evidence_share, k.top_holds,
       k.llr_parallel, k.llr_lint, k.fixed_reason, par.question_id IS NOT NULL AS has_parallel,
       coalesce(k.llr_judges, 0) AS fit_llr_judges, coalesce(k.n_judges, 0) AS fit_n_judges,
       coalesce(par.mismatch, false) AS par_mismatch, f.stratum AS sample_stratum,
       coalesce(f.drawn, false) AS sampled
FROM key_error_scores k
JOIN (SELECT question_id, subject, seq FROM questions WHERE benchmark = $benchmark) q
  ON q.question_id = k.question_id
LEFT JOIN (SELECT question_id, bool_or(NOT key_match) AS mismatch FROM parallel_links WHERE benchmark = $benchmark
           GROUP BY question_id) par ON par.question_id = k.question_id
LEFT JOIN audit_sample_frame f
  ON f.question_id = k.question_id
 AND f.sample_id = (SELECT max(sample_id) FROM audit_samples WHERE benchmark = $benchmark)
WHERE k.run_id = $run_id
ORDER BY q.seq"""

_JV_SQL = ("SELECT question_id, judge, answer_key_correct FROM judge_verdicts "
           "WHERE benchmark = $benchmark AND parse_ok AND answer_key_correct IS NOT NULL {where}")


def _items(con: Any, benchmark: str, run_id: int) -> pd.DataFrame:
    """The fit's parts of every item of the run (import order)."""
    return con.execute(_ITEMS_SQL, {"benchmark": benchmark, "run_id": run_id}).df()


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


def _split_params(con: Any, run_id: int) -> dict:
    """The fit's priors of the level and of s, and the set's accuracy (kind ``split``)."""
    rows = {(n, p): v for n, p, v in con.execute(
        "SELECT name, param, value FROM key_error_params WHERE run_id = ? AND kind = 'split'", [run_id]).fetchall()}
    return {"pi_a": rows.get(("level", "prior_a"), 1.0), "pi_b": rows.get(("level", "prior_b"), 1.0),
            "s_a": rows.get(("share_rejected", "prior_a"), 1.0), "s_b": rows.get(("share_rejected", "prior_b"), 1.0),
            "accuracy": rows.get(("all", "accuracy"), 0.5)}


def _settled_map(con: Any, benchmark: str) -> pd.Series:
    return _settled(con, benchmark).set_index("question_id")["verdict"]


def _compute(con: Any, benchmark: str, run_id: int, settled: pd.Series) -> tuple[pd.DataFrame, dict]:
    """The combined score of every item of ``run_id`` under ``settled``, and the weights."""
    ke = _items(con, benchmark, run_id)
    jv = _judge_verdicts(con, benchmark)
    w = update_weights(ke, settled, jv, jv["judge"].unique(), _global_rate(con, run_id), _split_params(con, run_id))
    return update_scores(ke, settled, w, jv, run_id), w


def _combine(con: Any, benchmark: str) -> tuple[pd.DataFrame, dict]:
    """The combined score of every scored item of the current run, and the
    measured evidence weights."""
    run_id = latest_run(con, benchmark)["run_id"]
    if not con.execute("SELECT count(*) FROM key_error_scores WHERE run_id = ?", [run_id]).fetchall()[0][0]:
        raise NotFoundError(f"the latest audit run of '{benchmark}' has no key-error score; run 'audit analyze'")
    return _compute(con, benchmark, run_id, _settled_map(con, benchmark))


def _judge_weights(con: Any, benchmark: str) -> pd.DataFrame:
    """The judges table of the weights (as in :func:`_combine`), from the
    judge verdicts on settled items only (all the counts use)."""
    settled = _settled_map(con, benchmark)
    judges = [j for (j,) in con.execute(
        "SELECT DISTINCT judge FROM judge_verdicts WHERE benchmark = ? AND parse_ok AND answer_key_correct IS NOT NULL",
        [benchmark]).fetchall()]
    if not judges:
        return pd.DataFrame(columns=JUDGE_TABLE_COLS)
    return judge_table(_judge_verdicts(con, benchmark, ids=list(settled.index)), settled == "key_wrong", judges)


def _fingerprint(con: Any, benchmark: str, run_id: int) -> str:
    """Changes whenever an input of the combined score other than the
    expert verdicts changes: the fit's per-item parts and subjects, the
    judge verdicts, the parallel keys, the global rate, the audit sample."""
    row = con.execute(
        """
        SELECT (SELECT count(*) || ':' || coalesce(sum(hash(question_id, score, llr_models, llr_lint)), 0)
                FROM key_error_scores WHERE run_id = $run_id),
               (SELECT count(*) || ':' || coalesce(sum(hash(question_id, subject)), 0)
                FROM questions WHERE benchmark = $benchmark),
               (SELECT count(*) || ':' || coalesce(sum(hash(question_id, judge, answer_key_correct)), 0)
                FROM judge_verdicts WHERE benchmark = $benchmark AND parse_ok AND answer_key_correct IS NOT NULL),
               (SELECT count(*) || ':' || coalesce(sum(hash(question_id, key_match)), 0)
                FROM parallel_links WHERE benchmark = $benchmark),
               (SELECT count(*) || ':' || coalesce(max(sample_id), 0)
                FROM audit_samples WHERE benchmark = $benchmark)""",
        {"benchmark": benchmark, "run_id": run_id},
    ).fetchall()[0]
    return "|".join(str(x) for x in row) + f"|{_global_rate(con, run_id)!r}"


_EV_COLS = ["score", "p_reject", "prior_logit", "llr_parallel", "llr_judges", "n_judges", "alloc_wrong", "alloc_right",
            "settled_verdict"]


def _write(con: Any, benchmark: str, out: pd.DataFrame, *, replace_all: bool) -> None:
    """Store rows of the combined score: replace all of them
    (``replace_all``), or update the rows given in place (an UPDATE of a few
    columns costs a fraction of a delete and re-insert) and insert those not
    stored yet."""
    con.register("_kev", out)
    cols = "question_id, run_id, " + ", ".join(_EV_COLS)
    try:
        if replace_all:
            con.execute("DELETE FROM key_error_evidence WHERE benchmark = ?", [benchmark])
            con.execute(f"INSERT INTO key_error_evidence (benchmark, {cols}, updated_at) "
                        f"SELECT ?, {cols}, now() FROM _kev", [benchmark])
            return
        sets = ", ".join(f"{c} = k.{c}" for c in ["run_id"] + _EV_COLS)
        n = con.execute(
            f"UPDATE key_error_evidence e SET {sets}, updated_at = now() "
            "FROM _kev k WHERE e.benchmark = ? AND e.question_id = k.question_id", [benchmark]).fetchall()[0][0]
        if n < len(out):
            con.execute(f"INSERT INTO key_error_evidence (benchmark, {cols}, updated_at) "
                        f"SELECT ?, {cols}, now() FROM _kev WHERE question_id NOT IN "
                        "(SELECT question_id FROM key_error_evidence WHERE benchmark = ?)", [benchmark, benchmark])
    finally:
        unregister(con, "_kev")


def _changed_rows(con: Any, benchmark: str, out: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``out`` that differ from what is stored (or are missing)."""
    old = con.execute(
        f"SELECT question_id, run_id, {', '.join(_EV_COLS)} FROM key_error_evidence WHERE benchmark = ?",
        [benchmark]).df().set_index("question_id")
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
    with the settled verdicts used), every item is recomputed — the level
    couples them — and only the rows whose values differ are rewritten.
    ``full`` (or any other change) rewrites every row.  The level after the
    verdicts is stored with the state (``key_error_evidence_state``)."""
    run_id = con.execute("SELECT max(run_id) FROM audit_runs WHERE benchmark = ?", [benchmark]).fetchall()[0][0]
    if run_id is None or not con.execute(
            "SELECT count(*) FROM key_error_scores WHERE benchmark = ? AND run_id = ?",
            [benchmark, run_id]).fetchall()[0][0]:
        return 0
    fp = _fingerprint(con, benchmark, run_id)
    now = _settled_map(con, benchmark)
    state = con.execute("SELECT run_id, fingerprint, settled FROM key_error_evidence_state WHERE benchmark = ?",
                        [benchmark]).fetchall()
    whole = full or not state or state[0][0] != run_id or state[0][1] != fp
    if not whole:
        before = pd.Series(json.loads(state[0][2]), dtype=object)
        both = pd.concat([before.rename("b"), now.rename("n")], axis=1)
        if not (both["b"].fillna("") != both["n"].fillna("")).any():
            return 0
    out, w = _compute(con, benchmark, run_id, now)
    if whole:
        _write(con, benchmark, out, replace_all=True)
        written = len(out)
    else:
        out = _changed_rows(con, benchmark, out)
        if len(out):
            _write(con, benchmark, out, replace_all=False)
        written = len(out)
    _store_state(con, benchmark, run_id, fp, now, w)
    return written


def _store_state(con: Any, benchmark: str, run_id: int, fp: str, settled: pd.Series, w: dict) -> None:
    lv, sp = w["level"], w["split"]
    con.execute("DELETE FROM key_error_evidence_state WHERE benchmark = ?", [benchmark])
    con.execute(
        "INSERT INTO key_error_evidence_state (benchmark, run_id, fingerprint, settled, updated_at, pi_a, pi_b, "
        "s_a, s_b) VALUES (?, ?, ?, ?, now(), ?, ?, ?, ?)",
        [
            benchmark,
            run_id,
            fp,
            json.dumps({str(k): str(v) for k, v in settled.items()}, sort_keys=True),
            lv.a,
            lv.b,
            sp["s_a"],
            sp["s_b"],
        ],
    )


def evidence_scores(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """The combined score of every item, computed now (not stored): columns
    question_id, run_id, score, p_reject, prior_logit, llr_parallel,
    llr_judges, n_judges, alloc_wrong, alloc_right, settled_verdict."""
    with connect(db, read_only=True) as con:
        return _combine(con, benchmark)[0]


def evidence_weights(benchmark: str, *, db: DbPath = None) -> dict:
    """The measured weights: ``judges`` (DataFrame judge, n_settled, tp, fp,
    tn, fn, sens, spec, llr_wrong, llr_right), ``parallel`` (sens, spec,
    n_settled), ``n_settled``, ``global_rate``, ``subject_rate`` (Series),
    ``split`` (the fit's priors) and ``level`` (π after the audit sample's
    verdicts: a :class:`~audit.analyze.keyerror.Level`)."""
    with connect(db, read_only=True) as con:
        return _combine(con, benchmark)[1]


def rescore(benchmark: str, *, db: DbPath = None, actor=None) -> int:
    """Refit the key-error model of the current audit run with the settled
    expert verdicts clamped (semi-supervised EM: the models' reliabilities
    and the subjects' rates learn from the reviewed items), store it, and
    refresh the combined score.  Returns the number of settled items used.
    Once the database has accounts this is a lead's or admin's act (``actor``)."""
    with connect(db) as con:
        require_role(con, actor, "lead", "refitting the key-error score")
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
            ex = ex.merge(
                settled["corrected_answer"].dropna().rename("labels").reset_index(), on=["question_id", "labels"]
            )
            truth = (
                inp.items["question_id"].map(ex.set_index("question_id")["pos"]).fillna(-1).astype(np.int64).to_numpy()
            )
            try:
                out, _, params = score_inputs(inp, ms, clamp=clamp, truth=truth,
                                              judges=load_judge_verdicts(con, benchmark, inp.items["question_id"]))
            finally:
                con.execute("DROP TABLE IF EXISTS _up")
            write_scores(con, runinfo["run_id"], benchmark, out, params)
            refresh_evidence(con, benchmark, full=True)
        return int((~np.isnan(clamp)).sum())


def check_reference(con, benchmark: str, reference: str) -> None:
    """Refuse a reference label set the benchmark does not have (a
    calibration against it would compare with nothing and say so in
    numbers that look like a result), naming the sets it has."""
    have = [r[0] for r in con.execute("SELECT DISTINCT label_set FROM reference_labels WHERE benchmark = ? "
                                      "ORDER BY 1", [benchmark]).fetchall()]
    if reference not in have:
        raise NotFoundError(f"benchmark '{benchmark}' has no reference label set '{reference}' "
                            f"({'its sets: ' + ', '.join(have) if have else 'it has none'})")


def calibration(benchmark: str, *, db: DbPath = None, reference: str | None = None) -> pd.DataFrame:
    """Predicted (the fit's score) vs observed rate of wrong keys, per score
    band (see :func:`audit.analyze.keyerror.calibration_table`; ``attrs``:
    ``brier`` — the Brier score, ``expected`` — Σ score, ``observed`` —
    wrong keys found, ``n`` — items compared).  Observed:
    the settled expert verdicts (key_wrong vs any other settled verdict), or,
    with ``reference`` = a label set in ``reference_labels`` (e.g.
    ``'mmlu_redux_error_type'``), items labelled ``wrong_groundtruth``."""
    with connect(db, read_only=True) as con:
        if reference is not None:
            check_reference(con, benchmark, reference)
        run_id = latest_run(con, benchmark)["run_id"]
        ke = con.execute("SELECT question_id, score FROM key_error_scores WHERE run_id = ? AND llr_models IS NOT NULL",
                         [run_id]).df()
        if reference is None:
            obs = _settled(con, benchmark).set_index("question_id")["verdict"].eq("key_wrong")
        else:
            obs = (
                con.execute(
                    "SELECT question_id, value = 'wrong_groundtruth' AS w FROM reference_labels "
                    "WHERE benchmark = ? AND label_set = ?",
                    [benchmark, reference],
                )
                .df()
                .set_index("question_id")["w"]
            )
    ke = ke[ke["question_id"].isin(obs.index)]
    p = ke["score"].to_numpy(dtype=float)
    y = ke["question_id"].map(obs).astype(bool).to_numpy()
    tab = calibration_table(p, y)
    # Brier (1950) score and the expected vs observed count over the compared items
    tab.attrs.update(brier=float(np.mean((p - y) ** 2)) if len(p) else float("nan"), expected=float(p.sum()),
                     observed=int(y.sum()), n=int(len(p)))
    return tab


__all__ = ["refresh_evidence", "evidence_scores", "evidence_weights", "rescore", "calibration", "check_reference",
           "EVIDENCE_CTE"]
