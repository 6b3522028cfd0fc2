"""Score a benchmark's items and store the score: the fit of
:mod:`audit.analyze.keyerror._model` on the inputs of
:mod:`audit.analyze.keyerror._load`, split by the model set
(:mod:`audit.analyze.keyerror._split`), the judge runs' evidence added,
one row per item in ``key_error_scores`` and the fitted parameters in
``key_error_params``.

The stored parts: prior_logit = logit(ε_s(i)) (the subject's rate of
rejected keys), llr_models_i = log P(answers | B ≠ key) / P(answers | B =
key), p_reject (from the answers alone), the allocation (evidence_share,
top_holds, alloc_wrong = h1, alloc_right = h0) and the evidence λ
(llr_parallel, llr_lint, llr_judges); the parameters hold the level's and
s's Beta priors (kind ``split``), the model set's summary (``model_set``)
and, when it lies outside the sets the split was learned on, the reasons
(``model_set_warning``).  The verdict-driven update
(:mod:`audit.analyze.keyerror._update`) recomputes the score from them.

Items outside the model: a key that is not among the options (or no key)
is wrong by construction (score 1); a multi-answer key (flag
``multi_answer``) is not scored (NULL).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import ArrayLike

from audit._util.sql import unregister
from audit.analyze._cells import Cells
from audit.analyze.inputs import ModelSet, latest_run
from audit.analyze.keyerror._judges import JudgeVerdicts, judge_evidence
from audit.analyze.keyerror._load import SampledCells, ScoreInputs, load_inputs, load_judge_verdicts
from audit.analyze.keyerror._model import KeyErrorFit, fit_key_error_cells, posterior_from_counts, split_fit
from audit.analyze.keyerror._prior import (
    LLR_DUPLICATE_OPTIONS,
    LLR_PARALLEL_MATCH,
    LLR_PARALLEL_MISMATCH,
    agreement_share,
)
from audit.analyze.keyerror._split import SplitPrior, level_offset, scores, top_model_holds
from audit.options import LATIN_LABELS
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark


def _alternative_labels(items: pd.DataFrame, idx: np.ndarray, alternative: np.ndarray) -> np.ndarray:
    """The label of each item's alternative (option index; −1: None) for
    the items ``idx``.  Items whose labels are A, B, C, … (``standard_labels``,
    when the items have that column) take the letter at that place; the
    others read their label list (flattened once: concatenating 100,000
    small arrays costs more than the rest of the scoring's bookkeeping)."""
    pos = np.maximum(alternative, 0)
    std = (items["standard_labels"].astype("boolean").fillna(False).to_numpy(bool)[idx]
           if "standard_labels" in items else np.zeros(len(idx), dtype=bool))
    alt = np.asarray(LATIN_LABELS, dtype=object)[np.minimum(pos, len(LATIN_LABELS) - 1)]
    other = np.flatnonzero(~std)
    if len(other):
        labels = items["labels"].to_numpy()[idx[other]]
        lens = items["n_options"].to_numpy()[idx[other]].astype(np.int64)
        flat = np.concatenate(labels)
        alt[other] = flat[np.r_[0, np.cumsum(lens)[:-1]] + pos[other]]
    alt[alternative < 0] = None
    return alt


def analysis_llr(items: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(parallel, lint) parts of λ_i from the evidence known at analysis
    time: the parallel source's key (prior likelihood ratios) and duplicate
    options."""
    par = np.where(items["has_parallel"].to_numpy(bool),
                   np.where(items["par_mismatch"].to_numpy(bool), LLR_PARALLEL_MISMATCH, LLR_PARALLEL_MATCH), 0.0)
    lint = np.where(items["dup_options"].to_numpy(bool), LLR_DUPLICATE_OPTIONS, 0.0)
    return par, lint


def score_inputs(inp: ScoreInputs, ms: ModelSet, *, llr_parallel: ArrayLike | None = None,
                 clamp: ArrayLike | None = None, truth: ArrayLike | None = None,
                 judges: JudgeVerdicts | None = None, prior: SplitPrior | None = None
                 ) -> tuple[pd.DataFrame, KeyErrorFit | None, dict]:
    """Fit the model on ``inp`` and return (per-item score rows, the fit,
    parameter rows).  ``llr_parallel`` replaces the prior parallel ratios
    (array over items); ``clamp`` / ``truth``: settled verdicts (arrays
    over items, see :func:`fit_key_error`: settled items are clamped to 0
    or 1 in the score); ``judges``: the judge runs' verdicts
    (:func:`load_judge_verdicts`), weighted by :func:`judge_evidence`;
    ``prior``: the split's constants (default
    :data:`~audit.analyze.keyerror._split.SPLIT_PRIOR`, read at call time)."""
    it = inp.items
    n = len(it)
    multi = it["multi"].to_numpy(bool)
    key = it["key_idx"].to_numpy(np.int64)
    fixed = np.full(n, None, dtype=object)
    fixed[key == -1] = "key_not_in_options"
    fixed[key == -2] = "no_key"
    fixed[multi] = "multi_answer"
    # scored: no fixed reason (a key among the options, one answer) and at least two options
    scored = (key >= 0) & ~multi & (it["n_options"].to_numpy() >= 2)
    par, lint = analysis_llr(it)
    if llr_parallel is not None:
        par = np.asarray(llr_parallel, dtype=np.float64)
    subj_codes, subj_names = pd.factorize(it["subject"])
    fams = sorted(set(ms.families.values()))
    fam_id = np.array([fams.index(ms.families[m]) for m in ms.models], dtype=np.int64)

    # the output's columns as arrays, filled below, one DataFrame at the end
    # (assigning with .loc column by column costs more than the fit's steps)
    col: dict[str, np.ndarray] = {k: np.full(n, np.nan) for k in (
        "score", "p_reject", "agreement_share", "prior_logit", "llr_models", "p_guessing", "p_alternative",
        "evidence_share", "top_holds", "alloc_wrong", "alloc_right")}
    col["llr_judges"] = np.zeros(n)
    col["n_judges"] = np.zeros(n, dtype=np.int64)
    col["alternative"] = np.full(n, None, dtype=object)
    col["score"][~multi & ~scored] = 1.0
    col["p_reject"][~multi & ~scored] = 1.0
    fit = None
    params: dict = {}
    idx = np.nonzero(scored)[0]
    sc = inp.answers
    if len(idx) and len(sc.item) and sc.bytes.any():
        c_all = None if clamp is None else np.asarray(clamp, dtype=np.float64)
        t_all = None if truth is None else np.asarray(truth, dtype=np.int64)
        lam = par + lint
        n_opt = it["n_options"].to_numpy()
        # fit on the items whose answers were loaded (all, or the sample)
        fidx = idx if inp.sample is None else idx[np.isin(idx, inp.sample)]
        remap = np.full(n, -1, dtype=np.int64)
        remap[fidx] = np.arange(len(fidx))
        keep = remap[sc.item] >= 0             # the fit's cells, read as they are (no long form)
        fit = fit_key_error_cells(remap[sc.item[keep]], sc.y[keep], sc.bytes[:, keep], n_opt[fidx], key[fidx],
                                  subject=subj_codes[fidx], family=fam_id, n_models=len(ms.models),
                                  n_subjects=len(subj_names), evidence_llr=lam[fidx],
                                  clamp=None if c_all is None else c_all[fidx],
                                  truth=None if t_all is None else t_all[fidx], prior=prior)
        if inp.sample is not None and inp.counts is not None:   # every item's posterior from DuckDB counts
            S0, C, D, N = inp.counts(fit.reliability, fit.weight)
            post = posterior_from_counts(fit, S0[idx], C[idx], D[idx], n_opt[idx], key[idx], subject=subj_codes[idx],
                                         clamp=None if c_all is None else c_all[idx],
                                         truth=None if t_all is None else t_all[idx],
                                         agreement=agreement_share(N[idx], key[idx], n_opt[idx]))
            top = int(fit.extra.get("top_model", 0))
            ct, at = inp.top_answers(top) if inp.top_answers is not None else (np.zeros(n, bool), np.zeros(n, bool))
            feats = {**fit.features, "rejected": float(np.clip(post.p_reject, 0, 1).mean())}
            post.extra["top_model"] = top
            fit = split_fit(post, n_opt[idx], subj_codes[idx], top_model_holds(ct[idx], at[idx]), feats,
                            evidence_llr=lam[idx], prior=prior)
        alt = _alternative_labels(it, idx, fit.alternative)
        sp = fit.split
        s_mean = sp["s_a"] / (sp["s_a"] + sp["s_b"])
        total = sp["pi_a"] / (sp["pi_a"] + sp["pi_b"]) * len(idx)
        settled = None if c_all is None else ~np.isnan(c_all[idx])
        wrong = None if c_all is None else c_all[idx] == 1
        judge_rows: list = []
        lam_i = lam[idx]
        if judges is not None and judges.v.shape[1] and len(idx):
            # each run's rates from the score without the judges; their λ then moves mass between
            # items at the same level (the level offset is solved again)
            ev = judge_evidence(judges.v[idx], fit.score, judges.family,
                                truth=None if c_all is None else np.where(c_all[idx] == 1, 1.0,
                                                                          np.where(c_all[idx] == 0, 0.0, np.nan)))
            judged = (ev.n_runs > 0) & (np.ones(len(idx), bool) if settled is None else ~settled)
            ev.llr = np.where(ev.n_runs > 0, ev.llr, 0.0)
            # the offset δ that keeps the judged items' expected count (Bayesian updating preserves the
            # mean; discounted ratios LR^w are not exact ratios and would add wrong keys): their odds
            # times e^(λ + δ) sum to what they held before
            delta = 0.0
            if judged.any():
                q0 = fit.score[judged]
                odds = q0 / np.maximum(1.0 - q0, 1e-300) * np.exp(np.clip(ev.llr[judged], -700, 700))
                delta = float(level_offset(odds[None, :], [float(q0.sum())])[0])
                ev.llr = np.where(judged, ev.llr + delta, ev.llr)
            judge_rows.append(("global", "all", "judge_offset", delta, float(judged.sum())))
            lam_i = lam_i + ev.llr
            col["llr_judges"][idx] = ev.llr
            col["n_judges"][idx] = ev.n_runs
            for r, name in enumerate(judges.runs):
                for prm, val in (("sensitivity", ev.sensitivity[r]), ("specificity", ev.specificity[r]),
                                 ("weight", ev.weight[r]), ("family_correlation", ev.rho[r]),
                                 ("llr_says_wrong", ev.llr_wrong[r]), ("llr_says_right", ev.llr_right[r])):
                    judge_rows.append(("judge_run", name, prm, float(val), float(ev.n[r])))
            judge_rows.append(("global", "all", "judge_between_family_correlation", float(ev.rho_between),
                               float(len(idx))))
        if judge_rows or settled is not None:
            fit.score, sp["alpha"] = scores(fit.alloc_wrong, fit.alloc_right, s_mean, total, evidence_llr=lam_i,
                                            settled=settled, wrong=wrong)
        col["score"][idx] = fit.score
        col["p_reject"][idx] = fit.p_reject
        col["agreement_share"][idx] = fit.agreement
        col["prior_logit"][idx] = fit.prior_logit
        col["llr_models"][idx] = fit.llr_models
        col["p_guessing"][idx] = fit.p_guessing
        col["alternative"][idx] = alt
        col["p_alternative"][idx] = fit.p_alternative
        col["evidence_share"][idx] = fit.evidence_share
        col["top_holds"][idx] = fit.top_holds
        col["alloc_wrong"][idx] = fit.alloc_wrong
        col["alloc_right"][idx] = fit.alloc_right
        n_per_model = sc.per_model(keep).astype(float)      # items in the fit
        rows = []
        for jj, m in enumerate(ms.models):
            rows.append(("model", m, "reliability", float(fit.reliability[jj]), n_per_model[jj]))
            rows.append(("model", m, "weight", float(fit.weight[jj]), n_per_model[jj]))
        for fi, f in enumerate(fams):
            rows.append(("family", f, "error_correlation", float(fit.family_rho[fi]), float((fam_id == fi).sum())))
        for si, s in enumerate(subj_names):
            rows.append(("subject", s, "wrong_key_rate", float(fit.subject_rate[si]), float(fit.subject_n[si])))
        nn = float(len(idx))
        rows += [("global", "all", "wrong_key_rate", fit.global_rate, nn),
                 ("global", "all", "guessing_rate", fit.guess_rate, nn),
                 ("global", "all", "iterations", float(fit.n_iter), nn),
                 ("global", "all", "converged", float(fit.converged), nn)] + judge_rows
        rows += split_param_rows(fit, nn)
        params = {"rows": rows}
    out = pd.DataFrame({
        "question_id": it["question_id"], "score": col["score"], "p_reject": col["p_reject"],
        "agreement_share": col["agreement_share"], "prior_logit": col["prior_logit"], "llr_models": col["llr_models"],
        "llr_parallel": par, "llr_lint": lint, "llr_judges": col["llr_judges"], "n_judges": col["n_judges"],
        "p_guessing": col["p_guessing"], "alternative": col["alternative"], "p_alternative": col["p_alternative"],
        "fixed_reason": fixed, "evidence_share": col["evidence_share"], "top_holds": col["top_holds"],
        "alloc_wrong": col["alloc_wrong"], "alloc_right": col["alloc_right"],
    })
    return out, fit, params


def split_param_rows(fit: KeyErrorFit, n: float) -> list[tuple]:
    """``key_error_params`` rows of the split: kind ``split`` (the level's
    and s's Beta priors, the level offset, the set's accuracy κ̄), kind
    ``model_set`` (every feature of the model set) and kind
    ``model_set_warning`` (name = the reason code, param = a figure of it,
    or ``flag``)."""
    sp = fit.split
    rows = [("split", "level", "prior_a", float(sp["pi_a"]), n), ("split", "level", "prior_b", float(sp["pi_b"]), n),
            ("split", "share_rejected", "prior_a", float(sp["s_a"]), n),
            ("split", "share_rejected", "prior_b", float(sp["s_b"]), n),
            ("split", "all", "alpha", float(sp["alpha"]), n), ("split", "all", "accuracy", float(sp["accuracy"]), n)]
    rows += [("model_set", k, "value", float(v), n) for k, v in fit.features.items()]
    for code, figs in fit.extrapolation:
        rows += [("model_set_warning", code, k, float(v), n) for k, v in figs.items()] or [
            ("model_set_warning", code, "flag", 1.0, n)]
    return rows


_SCORE_COLS = [
    "question_id",
    "score",
    "p_reject",
    "agreement_share",
    "prior_logit",
    "llr_models",
    "llr_parallel",
    "llr_lint",
    "llr_judges",
    "n_judges",
    "p_guessing",
    "alternative",
    "p_alternative",
    "fixed_reason",
    "evidence_share",
    "top_holds",
    "alloc_wrong",
    "alloc_right",
]


def write_scores(con: Any, run_id: int, benchmark: str, out: pd.DataFrame, params: dict) -> None:
    """Replace the stored scores and parameters of ``run_id`` (caller's transaction)."""
    con.execute("DELETE FROM key_error_scores WHERE run_id = ?", [run_id])
    con.execute("DELETE FROM key_error_params WHERE run_id = ?", [run_id])
    tbl = pa.Table.from_pandas(out[_SCORE_COLS].astype({"alternative": object, "fixed_reason": object}),
                               preserve_index=False)
    con.register("_kes", tbl)
    try:
        con.execute(
            f"INSERT INTO key_error_scores (run_id, benchmark, {', '.join(_SCORE_COLS)}) "
            f"SELECT $run_id, $benchmark, {', '.join(_SCORE_COLS)} FROM _kes",
            {"run_id": run_id, "benchmark": benchmark})
    finally:
        unregister(con, "_kes")
    rows = params.get("rows", [])
    if rows:
        df = pd.DataFrame(rows, columns=["kind", "name", "param", "value", "n"])
        con.register("_kep", pa.Table.from_pandas(df, preserve_index=False))
        try:
            con.execute(
                "INSERT INTO key_error_params SELECT $run_id, $benchmark, kind, name, param, value, n FROM _kep",
                {"run_id": run_id, "benchmark": benchmark},
            )
        finally:
            unregister(con, "_kep")


def score_run(con: Any, run_id: int, benchmark: str, ms: ModelSet, *, cells: Cells | None = None,
              q_registered: bool = False, items: pd.DataFrame | None = None,
              answers: SampledCells | None = None, judges: JudgeVerdicts | None = None,
              before_write: Callable[[], object] | None = None) -> None:
    """Fit the score for an audit run being written (``_ms`` registered, inside
    the caller's transaction) and store it; ``cells``, ``q_registered``,
    ``items`` and ``answers`` as in :func:`load_inputs`; ``judges``:
    :func:`load_judge_verdicts`' result when the caller has it.  With
    ``items`` and ``answers`` given, the fit does not use the connection,
    and ``before_write`` is called before the scores are written (analyze
    waits there for its second thread, which uses the connection meanwhile)."""
    inp = load_inputs(con, benchmark, run_id, cells=cells, q_registered=q_registered, items=items, answers=answers)
    if judges is None:
        judges = load_judge_verdicts(con, benchmark, inp.items["question_id"])
    out, _, params = score_inputs(inp, ms, judges=judges)
    if before_write is not None:
        before_write()
    write_scores(con, run_id, benchmark, out, params)


def key_error_scores(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Stored scores of the latest audit run: question_id, score, p_reject,
    agreement_share, prior_logit, llr_models, llr_parallel, llr_lint,
    llr_judges, n_judges, p_guessing, alternative, p_alternative,
    fixed_reason, evidence_share, top_holds, alloc_wrong, alloc_right — in
    import order."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        return con.execute(
            f"SELECT {', '.join('s.' + c for c in _SCORE_COLS)} FROM key_error_scores s "
            "JOIN questions q ON q.benchmark = s.benchmark AND q.question_id = s.question_id "
            "WHERE s.run_id = ? ORDER BY q.seq", [run["run_id"]]).df()


def key_error_params(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Fitted parameters of the latest audit run: kind, name, param, value, n."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        run = latest_run(con, benchmark)
        return con.execute("SELECT kind, name, param, value, n FROM key_error_params WHERE run_id = ? "
                           "ORDER BY kind, name, param", [run["run_id"]]).df()
