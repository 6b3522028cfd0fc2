"""Finding wrong keys on the MMLU-Redux dev subjects: average precision of
the key-error score against tier order and the standard aggregators, and a
review simulation.  Not collected by pytest; run:

    python tests/bench/bench_key_error.py [--no-sim]

Human labels: the ``error_type`` column; an item counts as a wrong key when
it is ``wrong_groundtruth`` (35 of 1,500).  The other error types
(bad_question_clarity, multiple_correct_answers, no_correct_answer,
bad_options_clarity, expert) are not wrong keys and count as negatives.

Peers (run on the same 14 models' answers, the key NOT a vote, as crowd-kit
does): Dawid–Skene, MACE and GLAD from crowd-kit when it can be imported
(``pip install crowd-kit``; it is not a project dependency — it pulls in
scikit-learn and transformers), skipped otherwise; the peer score is
1 − P(true answer = key).  A "reliability-weighted vote with the key as a
vote" is computed here: each model's weight is the log-odds of its
agreement with the key, w_j = log((K − 1)·a_j / (1 − a_j)), the key votes
with weight log((K − 1)·0.95 / 0.05), and the score is the best non-key
letter's weighted votes minus the key's.

Simulation: reviewers work down the queue, one settled verdict (the human
label) per step.  Static: the order of the score at the start.  Updating:
after every 10 settled verdicts the model is refitted with the settled items
clamped (semi-supervised EM: the subjects' rates and the models'
reliabilities move) and the unreviewed items re-ranked.  Prints the wrong
keys found after 50, 100 and 200 reviews.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("AUDIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def average_precision(score: np.ndarray, y: np.ndarray) -> float:
    """AP = Σ_k (R_k − R_{k−1})·P_k over the distinct score thresholds, as
    scikit-learn's ``average_precision_score``: tied items are taken
    together (a queue cannot order within a tie better than at random)."""
    s = np.asarray(score, dtype=float)
    yy = np.asarray(y, dtype=bool)
    order = np.argsort(-s, kind="stable")
    s, yy = s[order], yy[order]
    last = np.r_[np.nonzero(np.diff(s))[0], len(s) - 1]   # end of each tie group
    tp = np.cumsum(yy)[last]
    prec = tp / (last + 1)
    rec = tp / max(yy.sum(), 1)
    return float(np.sum(np.diff(np.r_[0.0, rec]) * prec)) if yy.any() else float("nan")


def load(db: Path):
    from audit.analyze import analyze_benchmark, key_error_scores
    from audit.ingest import import_mmlu_redux
    from audit.store import connect

    import_mmlu_redux(SHARED / "mmlu_redux_dev", db=db)
    t0 = time.perf_counter()
    analyze_benchmark("mmlu-redux", db=db, preset="tlue4")
    t_an = time.perf_counter() - t0
    with connect(db, read_only=True) as con:
        res = con.execute(
            "SELECT q.seq, q.question_id, q.subject, q.answer_key, len(q.options) AS k, r.tier, r.agreement_count, "
            "l.value AS error_type FROM questions q JOIN current_audit r USING (benchmark, question_id) "
            "JOIN reference_labels l USING (benchmark, question_id) WHERE q.benchmark = 'mmlu-redux' ORDER BY q.seq"
        ).df()
        preds = con.execute(
            "SELECT p.question_id, p.model, p.answer "
            "FROM predictions p JOIN questions q USING (benchmark, question_id) "
            "WHERE p.benchmark = 'mmlu-redux' AND p.valid AND p.answer IS NOT NULL "
            "AND ascii(p.answer) - 64 <= len(q.options)"
        ).df()
    tier4 = res.copy()
    analyze_benchmark("mmlu-redux", db=db)  # default preset (shares): its tiers and the score stored with it
    with connect(db, read_only=True) as con:
        shares = con.execute("SELECT question_id, tier AS tier_shares, agreement_count AS c_shares "
                             "FROM current_audit WHERE benchmark = 'mmlu-redux'").df()
    res = tier4.merge(shares, on="question_id")
    sc = key_error_scores("mmlu-redux", db=db)
    res = res.merge(sc[["question_id", "score"]], on="question_id").sort_values("seq").reset_index(drop=True)
    return res, preds, t_an


def tier_order_score(tier: pd.Series, count: pd.Series) -> np.ndarray:
    """The 'priority' queue order as a score: tier ascending (Tier 0 last), count descending."""
    t = tier.fillna(9).astype(int).replace(0, 9).to_numpy()
    return -t * 1000 + count.fillna(0).to_numpy()


def weighted_vote(res: pd.DataFrame, preds: pd.DataFrame) -> np.ndarray:
    df = preds.merge(res[["question_id", "answer_key", "k"]], on="question_id")
    acc = (df["answer"] == df["answer_key"]).groupby(df["model"]).mean().clip(0.01, 0.99)
    df["w"] = np.log((df["k"] - 1) * df["model"].map(acc) / (1 - df["model"].map(acc)))
    votes = df.groupby(["question_id", "answer"])["w"].sum().unstack(fill_value=0.0)
    votes = votes.reindex(res["question_id"]).fillna(0.0)
    key_w = np.log((res["k"].to_numpy() - 1) * 0.95 / 0.05)
    keycol = np.array([votes.columns.get_loc(a) if a in votes.columns else -1 for a in res["answer_key"]])
    V = votes.to_numpy()
    v_key = np.where(keycol >= 0, V[np.arange(len(V)), np.maximum(keycol, 0)], 0.0) + key_w
    V_other = V.copy()
    V_other[np.arange(len(V)), np.maximum(keycol, 0)] = np.where(keycol >= 0, -np.inf, V_other[np.arange(len(V)), 0])
    return V_other.max(1) - v_key


def crowdkit_peers(res: pd.DataFrame, preds: pd.DataFrame) -> dict[str, np.ndarray]:
    try:
        from crowdkit.aggregation import GLAD, MACE, DawidSkene
    except ImportError:
        print("  (crowd-kit not importable: peers skipped; pip install crowd-kit)")
        return {}
    df = preds.rename(columns={"question_id": "task", "model": "worker", "answer": "label"})[
        ["task", "worker", "label"]
    ]
    out = {}
    for name, agg in [("Dawid–Skene (crowd-kit)", DawidSkene(n_iter=100)), ("MACE (crowd-kit)", MACE(random_state=0)),
                      ("GLAD (crowd-kit)", GLAD())]:
        proba = agg.fit_predict_proba(df).reindex(res["question_id"])
        p_key = np.array([row.get(k, 0.0) if isinstance(row, pd.Series) else 0.0
                          for (_, row), k in zip(proba.iterrows(), res["answer_key"])])
        out[name] = 1.0 - np.nan_to_num(p_key, nan=1.0)
    return out


def simulate(db: Path, res: pd.DataFrame, y: np.ndarray, steps=(50, 100, 200), refit_every: int = 10):
    """Wrong keys found after each of ``steps`` reviews, static vs updating order."""
    from audit.analyze.inputs import latest_run, model_set
    from audit.analyze.keyerror import load_inputs, score_inputs
    from audit.store import connect

    with connect(db, read_only=True) as con:
        ms = model_set(con, "mmlu-redux")
        run = latest_run(con, "mmlu-redux")
        con.register("_ms", ms.arrow())
        inp = load_inputs(con, "mmlu-redux", run["run_id"])
        con.unregister("_ms")
    qids = inp.items["question_id"].to_numpy()
    lab = res.set_index("question_id").loc[qids, "error_type"].to_numpy() == "wrong_groundtruth"
    out0, _, _ = score_inputs(inp, ms)
    static = np.argsort(-out0["score"].to_numpy(), kind="stable")
    found_static = np.cumsum(lab[static])
    clamp = np.full(len(qids), np.nan)
    reviewed: list[int] = []
    score = out0["score"].to_numpy()
    t0 = time.perf_counter()
    while len(reviewed) < max(steps):
        mask = np.isnan(clamp)
        cand = np.nonzero(mask)[0]
        nxt = cand[np.argsort(-score[cand], kind="stable")][:refit_every]
        for i in nxt:
            reviewed.append(int(i))
            clamp[i] = 1.0 if lab[i] else 0.0
        out, _, _ = score_inputs(inp, ms, clamp=clamp)
        score = out["score"].to_numpy()
    t_sim = time.perf_counter() - t0
    found_upd = np.cumsum(lab[np.array(reviewed)])
    print(f"\nReview simulation ({int(lab.sum())} wrong keys; updating = refit every {refit_every} settled verdicts, "
          f"{t_sim:.1f} s for {max(steps) // refit_every} refits)")
    print(f"  {'reviews':>8}  {'static':>7}  {'updating':>8}")
    for s in steps:
        print(f"  {s:>8}  {int(found_static[s - 1]):>7}  {int(found_upd[s - 1]):>8}")


def calibration(res: pd.DataFrame, y: np.ndarray) -> None:
    from audit.analyze.keyerror import calibration_table

    tab = calibration_table(res["score"].to_numpy(), y)
    anyerr = calibration_table(res["score"].to_numpy(), (res["error_type"] != "ok").to_numpy())
    tab["observed_any_defect"] = anyerr["observed"].round(3)
    print("\nCalibration on the MMLU-Redux labels (predicted vs observed wrong-key rate; last column: share of items "
          "with any human-labelled defect)")
    print(tab.round(3).to_string(index=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-sim", action="store_true", help="skip the review simulation")
    args = ap.parse_args()
    if not (SHARED / "mmlu_redux_dev").exists():
        sys.exit(f"{SHARED / 'mmlu_redux_dev'} not present")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "redux.duckdb"
        res, preds, t_an = load(db)
        y = (res["error_type"] == "wrong_groundtruth").to_numpy()
        print(f"MMLU-Redux dev: {len(res)} items, {int(y.sum())} wrong keys (error_type = wrong_groundtruth), "
              f"{preds['model'].nunique()} models")
        rows = [
            ("key-error score (this project)", res["score"].to_numpy()),
            ("tier order, preset tlue4", tier_order_score(res["tier"], res["agreement_count"])),
            ("tier order, preset shares (default)", tier_order_score(res["tier_shares"], res["c_shares"])),
            ("reliability-weighted vote, key as a vote", weighted_vote(res, preds)),
        ]
        rows += list(crowdkit_peers(res, preds).items())
        print(f"\n{'method':<44} {'average precision':>18}")
        for name, s in rows:
            print(f"{name:<44} {average_precision(s, y):>18.3f}")
        calibration(res, y)
        if not args.no_sim:
            simulate(db, res, y)


if __name__ == "__main__":
    main()
