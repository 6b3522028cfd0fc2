"""Issue 19's acceptance figures on the MMLU-Redux dev subjects (and the
uzlib responses for the tiers).  Not collected by pytest; run:

    python tests/bench/bench_calibration.py [--no-uzlib]

Ground truth: the experts' ``error_type`` (``wrong_groundtruth`` = a wrong
key: 35 of 1,500 items).  Everything runs with the defaults
(``import_mmlu_redux`` + ``analyze_benchmark`` + ``build_report``) and no
verdicts, except the simulated campaign.

In-sample vs held out: the misconception prior φ (P(key wrong | the models
reject the key), ``PHI_PRIOR_MEAN``) was fitted on these same 1,500 labels,
so the default scores' calibration is an *in-sample* figure.  The
*leave-one-subject-out* (LOSO) figures refit φ on the other 14 subjects for
each subject (``fit_misconception_prior``; the rest of the model is fitted
without labels) and score the held-out subject with it: that is what a
benchmark the prior was not fitted on can expect.

Figures printed (acceptance of issue 19):
  1. sum of scores vs 35 (±30%); calibration per score band (|mean score −
     share wrong| ≤ 0.15 in bands of ≥ 20 items), Brier score; in-sample and LOSO
  2. average precision of the score (≥ 0.309, the score before this issue)
  3. expected wrong keys with a 90% interval; per-model cost of wrong keys vs
     the experts' (removing the labelled wrong keys; within ±0.5 points)
  4. every scenario: delta, selection control, delta − control vs removing
     only the labelled wrong keys among the excluded items (within ±1 point)
  5. the simulated 50-item campaign (top 50 of the default queue settled with
     the experts' labels): the remaining items' expected count vs truth, and
     their calibration
  6. tiers: wrong-key share per tier vs the base rate (Tier 3 ≥ 3×); on the
     uzlib responses, the share of items in Tiers 1–3 (a minority)
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_key_error import average_precision  # noqa: E402


def brier(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((np.asarray(p, float) - np.asarray(y, float)) ** 2))


def bands(p: np.ndarray, y: np.ndarray, title: str) -> bool:
    from audit.analyze import calibration_table

    tab = calibration_table(p, y)
    tab["|diff|"] = (tab["predicted"] - tab["observed"]).abs()
    ok = bool((tab.loc[tab["n"] >= 20, "|diff|"] <= 0.15).all())
    print(f"\n{title}: sum of scores {np.nansum(p):.1f} (labelled wrong keys {int(y.sum())}), "
          f"Brier {brier(np.nan_to_num(p), y):.4f}; bands with >= 20 items within 0.15: {'yes' if ok else 'NO'}")
    print(tab[["band", "n", "predicted", "observed", "|diff|"]].round(3).to_string(index=False))
    return ok


def labelled(db: Path) -> pd.DataFrame:
    from audit.store import connect

    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT q.question_id, coalesce(q.subject, '') AS subject, q.answer_key, q.options, l.value AS error_type "
            "FROM questions q JOIN reference_labels l USING (benchmark, question_id) "
            "WHERE q.benchmark = 'mmlu-redux' ORDER BY q.seq").df()


def section_scores(db: Path, lab: pd.DataFrame) -> pd.DataFrame:
    from audit.analyze import key_error_scores
    from audit.analyze._keyerror import PHI_PRIOR_MEAN, fit_misconception_prior_bands, phi_band

    sc = key_error_scores("mmlu-redux", db=db)
    df = lab.merge(sc, on="question_id")
    y = (df["error_type"] == "wrong_groundtruth").to_numpy()
    b = df["p_reject"].to_numpy()
    x = df["agreement_share"].to_numpy()
    band = phi_band(x)
    refit = fit_misconception_prior_bands(b, y, x)
    print(f"\n== 1. Calibration (φ per agreement band = {PHI_PRIOR_MEAN}: the prior, fitted on these labels; "
          f"refit here: {refit.round(3).tolist()}; items per band {np.bincount(band, minlength=3).tolist()}, "
          f"rejected keys (Σ p_reject) {[round(float(b[band == k].sum()), 1) for k in range(3)]}, "
          f"labelled wrong {[int(y[band == k].sum()) for k in range(3)]})")
    ok_in = bands(df["score"].to_numpy(), y, "IN-SAMPLE (default scores)")
    loso = np.zeros(len(df))
    phis = []
    for s in sorted(df["subject"].unique()):
        m = (df["subject"] == s).to_numpy()
        ph = fit_misconception_prior_bands(b[~m], y[~m], x[~m])
        phis.append(ph)
        loso[m] = ph[band[m]] * b[m]
    P = np.array(phis)
    print("\nleave-one-subject-out φ per band: " + ", ".join(f"{P[:, k].min():.3f}–{P[:, k].max():.3f}" for k in range(3)))
    ok_lo = bands(loso, y, "HELD OUT (leave-one-subject-out φ)")
    total = float(df["score"].sum())
    print(f"\nsum of scores {total:.1f} vs 35: {100 * (total / 35 - 1):+.0f}% (acceptance ±30%: "
          f"{'yes' if abs(total / 35 - 1) <= 0.3 else 'NO'}); held out {loso.sum():.1f} ({100 * (loso.sum() / 35 - 1):+.0f}%)")
    print(f"calibrated bands: in-sample {'yes' if ok_in else 'NO'}, held out {'yes' if ok_lo else 'NO'}")
    print(f"\n== 2. Average precision of the score for wrong keys: {average_precision(df['score'].to_numpy(), y):.3f} "
          "(before this issue: 0.309)")
    return df


def section_cost(db: Path, df: pd.DataFrame) -> None:
    from audit.analyze import build_report
    from audit.analyze._impact import load_impact

    t0 = time.perf_counter()
    rep = build_report("mmlu-redux", db=db)
    t_rep = time.perf_counter() - t0
    e = rep["expected_wrong_keys"]
    print(f"\n== 3. Expected wrong keys: {e['estimate']:.1f} (90% interval {e['low']:.0f}–{e['high']:.0f}); "
          f"experts: 35   (report built in {t_rep:.1f} s)")
    d = load_impact("mmlu-redux", db=db)
    wrong = d.items["question_id"].map(df.set_index("question_id")["error_type"]).eq("wrong_groundtruth").to_numpy()
    n = len(wrong)
    c = d.correct.astype(float)
    acc = c.sum(0) / n
    truth = (c[~wrong].sum(0) / (~wrong).sum() - acc) * 100
    cost = pd.DataFrame(rep["wrong_key_cost"])
    cost["expert_points"] = truth
    cost["diff"] = cost["cost_points"] - cost["expert_points"]
    print("per model (points; expert = accuracy without the labelled wrong keys − reported accuracy):")
    print(cost[["model", "accuracy", "accuracy_right_keys", "accuracy_right_keys_low", "accuracy_right_keys_high",
                "accuracy_corrected", "cost_points", "expert_points", "diff"]].round(4).to_string(index=False))
    print(f"expert cost {truth.min():.2f}–{truth.max():.2f} (mean {truth.mean():.2f}); estimated "
          f"{cost['cost_points'].min():.2f}–{cost['cost_points'].max():.2f} (mean {cost['cost_points'].mean():.2f}); "
          f"max |diff| {cost['diff'].abs().max():.2f} (acceptance ≤ 0.5: {'yes' if cost['diff'].abs().max() <= 0.5 else 'NO'})")
    # scenarios
    sc = pd.DataFrame(rep["scenarios"])
    V = d.valid.astype(float)
    tier = d.items["tier"]
    rows = []
    for name, k in [("excl_tier1", 1), ("excl_tier1-2", 2), ("excl_tier1-3", 3), ("excl_tier1-4", 4)]:
        x = tier.between(1, k).to_numpy()
        base = c.sum(0) / V.sum(0)
        drop = x & wrong
        truth_d = ((c.sum(0) - c[drop].sum(0)) / (V.sum(0) - V[drop].sum(0)) - base) * 100
        s = sc[sc["scenario"] == name]
        delta, ctl = s["delta_points"].mean(), s["control_delta_points"].mean()
        rows.append((name, int(x.sum()), int(drop.sum()), delta, ctl, delta - ctl, truth_d.mean(),
                     delta - ctl - truth_d.mean()))
    t = pd.DataFrame(rows, columns=["scenario", "excluded", "labelled wrong", "delta", "control", "delta − control",
                                    "labelled only", "diff"])
    print("\n== 4. Scenarios (conditional accuracy, mean over the models, points)")
    print(t.round(2).to_string(index=False))
    print(f"max |diff| {t['diff'].abs().max():.2f} (acceptance ≤ 1: {'yes' if t['diff'].abs().max() <= 1 else 'NO'})")


def section_campaign(db: Path, df: pd.DataFrame, title: str = "") -> None:
    from audit.analyze import calibration_table  # noqa: F401
    from audit.review import add_reviews, evidence_scores, review_queue, set_required_reviews
    from audit.review import add_account

    q = review_queue("mmlu-redux", limit=50, db=db)
    ids = q["question_id"].tolist()
    lab = df.set_index("question_id")
    before = evidence_scores("mmlu-redux", db=db).set_index("question_id")["score"]
    set_required_reviews(flagged=1, other=1, db=db)
    try:
        add_account("sim", "reviewer", password="simulated-campaign-pw", db=db)
    except Exception:
        pass
    letters = "ABCDEF"
    rows = []
    for qid in ids:
        et = lab.loc[qid, "error_type"]
        if et == "wrong_groundtruth":
            alt = lab.loc[qid, "alternative"]
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "key_wrong",
                         "corrected_answer": alt if isinstance(alt, str) else letters[0]})
        elif et == "ok":
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "key_correct"})
        else:
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "defective"})
    add_reviews("mmlu-redux", rows, db=db)
    after = evidence_scores("mmlu-redux", db=db).set_index("question_id")["score"]
    rest = [x for x in lab.index if x not in set(ids)]
    y = (lab.loc[rest, "error_type"] == "wrong_groundtruth").to_numpy()
    found = int((lab.loc[ids, "error_type"] == "wrong_groundtruth").sum())
    print(f"\n== 5. Simulated campaign{title}: top 50 of the default queue settled ({found} wrong keys among them)")
    print(f"remaining {len(rest)} items: truth {int(y.sum())} wrong keys; expected before {before.loc[rest].sum():.1f}, "
          f"after {after.loc[rest].sum():.1f} "
          f"({'toward' if abs(after.loc[rest].sum() - y.sum()) < abs(before.loc[rest].sum() - y.sum()) else 'NOT toward'} the truth)")
    bands(after.loc[rest].to_numpy(), y, "remaining items after the campaign")


def misfit_campaign(tmp: Path, df: pd.DataFrame) -> None:
    """The same campaign from a prior that is off (φ = 0.5 in every band, as
    if fitted on a benchmark where models share fewer misconceptions): the
    campaign's verdicts must pull the remaining items' expected count
    toward the truth without a refit by hand."""
    import audit.analyze._keyerror as ke
    import audit.review._evidence as ev
    from audit.analyze import analyze_benchmark, key_error_scores
    from audit.ingest import import_mmlu_redux

    old = (ke.PHI_PRIOR_MEAN, ev.PHI_PRIOR)
    ke.PHI_PRIOR_MEAN = (0.5, 0.5, 0.5)
    ev.PHI_PRIOR = tuple((0.5 * ke.PHI_STRENGTH, 0.5 * ke.PHI_STRENGTH) for _ in range(3))
    try:
        db = tmp / "misfit.duckdb"
        import_mmlu_redux(SHARED / "mmlu_redux_dev", db=db)
        analyze_benchmark("mmlu-redux", db=db)
        d2 = df.drop(columns=[c for c in df.columns if c in ("score", "p_reject", "alternative")]).merge(
            key_error_scores("mmlu-redux", db=db)[["question_id", "score", "alternative"]], on="question_id")
        section_campaign(db, d2, " from a prior that is off (φ = 0.5 in every band)")
    finally:
        ke.PHI_PRIOR_MEAN, ev.PHI_PRIOR = old


def section_tiers(df_tiers: pd.DataFrame) -> None:
    y = df_tiers["error_type"] == "wrong_groundtruth"
    base = y.mean()
    g = df_tiers.assign(w=y).groupby("bucket")["w"].agg(["count", "sum", "mean"])
    g["× base rate"] = g["mean"] / base
    print(f"\n== 6. Tiers on the dev set (preset shares; base rate {100 * base:.2f}%)")
    print(g.round(3).to_string())
    t3 = g.loc["tier3", "× base rate"] if "tier3" in g.index else float("nan")
    print(f"Tier 3 wrong-key share = {t3:.1f}× the base rate (acceptance ≥ 3: {'yes' if t3 >= 3 else 'NO'})")


def uzlib_tiers(tmp: Path) -> None:
    from audit.analyze import analyze_benchmark, tier_counts
    from audit.ingest import import_predictions, import_questions

    src = SHARED / "uzlib_responses"
    if not src.exists():
        print("\n(uzlib_responses not present: skipped)")
        return
    db = tmp / "uz.duckdb"
    qs = pd.read_json(src / "questions.jsonl", lines=True)
    qf = tmp / "uz_q.jsonl"
    qs.to_json(qf, orient="records", lines=True, force_ascii=False)
    import_questions(qf, benchmark="uzlib", db=db)
    resp = pd.read_json(src / "responses.jsonl", lines=True)
    print(f"\nuzlib: {len(qs)} items, {resp['model'].nunique()} models (raw responses, extracted on import)")
    pf = tmp / "uz_p.jsonl"
    resp[["question_id", "model", "response"]].to_json(pf, orient="records", lines=True, force_ascii=False)
    import_predictions(pf, benchmark="uzlib", db=db)
    analyze_benchmark("uzlib", db=db)
    tc = tier_counts("uzlib", db=db)
    n = int(tc["n"].sum())
    t13 = int(tc.loc[tc["bucket"].isin(["tier1", "tier2", "tier3"]), "n"].sum())
    print(tc.to_string(index=False))
    print(f"Tiers 1–3 hold {t13} of {n} items ({100 * t13 / n:.0f}%; acceptance: a minority: "
          f"{'yes' if t13 < n / 2 else 'NO'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-uzlib", action="store_true")
    ap.add_argument("--no-campaign", action="store_true")
    args = ap.parse_args()
    if not (SHARED / "mmlu_redux_dev").exists():
        sys.exit(f"{SHARED / 'mmlu_redux_dev'} not present")
    from audit.analyze import analyze_benchmark, audit_results
    from audit.ingest import import_mmlu_redux

    print(f"load average: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        db = tmp / "redux.duckdb"
        import_mmlu_redux(SHARED / "mmlu_redux_dev", db=db)
        t0 = time.perf_counter()
        analyze_benchmark("mmlu-redux", db=db)
        print(f"MMLU-Redux dev: analyze (defaults) {time.perf_counter() - t0:.1f} s")
        lab = labelled(db)
        df = section_scores(db, lab)
        section_cost(db, df)
        section_tiers(lab.merge(audit_results("mmlu-redux", db=db), on="question_id"))
        if not args.no_campaign:
            section_campaign(db, df)
            misfit_campaign(tmp, df)
        if not args.no_uzlib:
            uzlib_tiers(tmp)


if __name__ == "__main__":
    main()
