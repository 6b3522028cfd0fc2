"""Calibration of the key-error score, its held-out average precision,
expected wrong keys, what wrong keys cost, scenarios and simulated campaigns,
on the MMLU-Redux dev subjects (and the uzlib responses for the tiers).  Not collected by pytest; run:

    python tests/bench/bench_calibration.py [--no-uzlib] [--no-campaign]

Ground truth: the experts' ``error_type`` (``wrong_groundtruth`` = a wrong
key: 35 of 1,500 items).  Everything runs with the defaults
(``import_mmlu_redux`` + ``analyze_benchmark`` + ``build_report``) and no
verdicts, except the simulated campaigns.

In-sample vs held out: the split's constants (the level's prior and the
allocation, :data:`audit.analyze.keyerror.SPLIT_PRIOR`) were fitted on
labelled model sets that include these 1,500 items, so the default scores'
calibration is an *in-sample* figure.  The *held-out* figures score each of
5 groups of 3 subjects with the split fitted on the labelled model sets of
the other 12 subjects only (``tests/bench/_model_sets.py``, cached).

Figures printed:
  1. sum of scores vs 35; calibration per score band (|mean score − share
     wrong| ≤ 0.15 in bands of ≥ 20 items), Brier score; in-sample and held out
  2. average precision of the score, in-sample and held out (each group of
     subjects ranked with its own prior)
  3. expected wrong keys with a 90% interval; per-model cost of wrong keys vs
     the experts' (removing the labelled wrong keys; within ±0.5 points)
  4. every scenario: delta, selection control, delta − control vs removing
     only the labelled wrong keys among the excluded items (within ±1 point)
  5. simulated campaigns (the top of the default queue settled with the
     experts' labels): the remaining items' expected count vs truth, and
     their calibration — HONEST (each group of subjects scored with the
     split fitted on the other groups' labels), with the shipped split, from
     a level that is off (twice the shipped rate), and the same level after a
     random audit sample of 100 items is settled as well
  6. tiers: wrong-key share per tier vs the base rate (Tiers 1–3 several times it); on the
     uzlib responses, the share of items in Tiers 1–3 (a minority)
"""
from __future__ import annotations

import argparse
import contextlib
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
    from audit.analyze.keyerror import calibration_table

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


@contextlib.contextmanager
def split_prior(prior):
    """Score with another split prior: the analysis and the campaign's update
    both read it from :mod:`audit.analyze.keyerror._split` at call time."""
    import audit.analyze.keyerror._split as sp

    old = sp.SPLIT_PRIOR
    sp.SPLIT_PRIOR = prior
    try:
        yield
    finally:
        sp.SPLIT_PRIOR = old


def heldout_priors(log=print) -> tuple[list, list]:
    """(groups of subjects, the split fitted without each group's labels)."""
    import _model_sets as M

    pro, red = M.load_pro(), M.load_redux()
    groups = M.subject_groups(red.subject, 5)
    return groups, M.fold_priors(M.training(pro, red), groups, log=log)


def heldout_scores(tmp: Path, groups, priors) -> pd.DataFrame:
    """question_id → the score of its group's analysis (the split fitted
    without the group's labels), with the group."""
    from audit.analyze import analyze_benchmark, key_error_scores
    from audit.ingest import import_mmlu_redux

    out = []
    for gi, (g, pr) in enumerate(zip(groups, priors)):
        gdb = tmp / f"heldout{gi}.duckdb"
        with split_prior(pr):
            import_mmlu_redux(SHARED / "mmlu_redux_dev", db=gdb)
            analyze_benchmark("mmlu-redux", db=gdb)
            sc = key_error_scores("mmlu-redux", db=gdb)
        sc = sc.assign(subject=sc["question_id"].str.split("/").str[0], group=gi, db=str(gdb))
        out.append(sc)
    return pd.concat(out, ignore_index=True)


def section_scores(db: Path, lab: pd.DataFrame, held: pd.DataFrame, groups) -> pd.DataFrame:
    from audit.analyze import key_error_scores

    sc = key_error_scores("mmlu-redux", db=db)
    df = lab.merge(sc, on="question_id")
    y = (df["error_type"] == "wrong_groundtruth").to_numpy()
    print("\n== 1. Calibration (the shipped split: fitted on labelled model sets that include these labels)")
    ok_in = bands(df["score"].to_numpy(), y, "IN-SAMPLE (default scores)")
    mine = held.set_index(["group", "question_id"])["score"]
    sub_group = {s: gi for gi, g in enumerate(groups) for s in g}
    ho = np.array([mine[(sub_group[s], q)] for s, q in zip(df["subject"], df["question_id"])])
    ok_ho = bands(ho, y, "HELD OUT (each group of 3 subjects scored with the split fitted on the other 12)")
    total = float(df["score"].sum())
    print(f"\nsum of scores {total:.1f} vs 35: {100 * (total / 35 - 1):+.0f}%; held out {ho.sum():.1f} "
          f"({100 * (ho.sum() / 35 - 1):+.0f}%)")
    print(f"calibrated bands: in-sample {'yes' if ok_in else 'NO'}, held out {'yes' if ok_ho else 'NO'}")
    ap_in = average_precision(df["score"].to_numpy(), y)
    print(f"\n== 2. Average precision of the score for wrong keys: in-sample {ap_in:.3f}")
    # a benchmark is ranked with ONE prior: each group of subjects ranked with its own held-out prior,
    # beside the shipped prior's ranking of the same items
    per, ins = [], []
    for gi, g in enumerate(groups):
        m = df["subject"].isin(g).to_numpy()
        if y[m].any():
            per.append(average_precision(ho[m], y[m]))
            ins.append(average_precision(df["score"].to_numpy()[m], y[m]))
    print(f"  5 groups of subjects, each ranked with the split fitted on the others: mean AP held out "
          f"{np.mean(per):.3f}, in-sample on the same items {np.mean(ins):.3f}; the 5 held-out rankings "
          f"concatenated {average_precision(ho, y):.3f}")
    return df.assign(score_heldout=ho)


def subject_groups(subjects: pd.Series, folds: int) -> list[list[str]]:
    """The subjects in ``folds`` groups (a seeded shuffle; folds = the number
    of subjects: one subject per group)."""
    subs = sorted(pd.Series(subjects).unique())
    perm = list(np.random.default_rng(0).permutation(subs)) if folds < len(subs) else subs
    return [sorted(perm[i::folds]) for i in range(folds)]


def section_cost(db: Path, df: pd.DataFrame) -> None:
    from audit.analyze._impact import load_impact
    from audit.report import build_report

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
    # held out: the plug-in cost Σ(1 − s)·correct / Σ(1 − s) − accuracy with the leave-one-subject-out
    # scores, beside the same plug-in with the default scores (the report's figure is a posterior mean)
    for name, col in (("in-sample", "score"), ("held out", "score_heldout")):
        sc_ = d.items["question_id"].map(df.set_index("question_id")[col]).fillna(0.0).to_numpy()
        plug = ((1 - sc_)[:, None] * c).sum(0) / (1 - sc_).sum() * 100 - acc * 100
        print(f"plug-in cost, {name} scores: {plug.min():.2f}–{plug.max():.2f} (mean {plug.mean():.2f}); "
              f"max |diff| from the experts' {np.abs(plug - truth).max():.2f}")
    print(f"expert cost {truth.min():.2f}–{truth.max():.2f} (mean {truth.mean():.2f}); estimated "
          f"{cost['cost_points'].min():.2f}–{cost['cost_points'].max():.2f} (mean {cost['cost_points'].mean():.2f}); "
          f"max |diff| {cost['diff'].abs().max():.2f} "
          f"(acceptance ≤ 0.5: {'yes' if cost['diff'].abs().max() <= 0.5 else 'NO'})")
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


def campaign(db: Path, lab: pd.DataFrame, *, limit: int = 50, subjects: list[str] | None = None) -> dict:
    """Settle the top ``limit`` items of the default review queue (of
    ``subjects``) with the experts' labels — key wrong → the models' top
    answer, ok → key correct, any other error → defective — and recompute
    the scores without a refit (:func:`audit.review.evidence_scores`).
    Returns the remaining items (of ``subjects``) with their score before
    and after and whether the key is wrong."""
    from audit.analyze import key_error_scores
    from audit.review import add_reviews, evidence_scores, review_queue, set_required_reviews

    q = review_queue("mmlu-redux", limit=limit, subjects=subjects, db=db)
    ids = q["question_id"].tolist()
    lab = lab.set_index("question_id")
    alt = key_error_scores("mmlu-redux", db=db).set_index("question_id")["alternative"]
    before = evidence_scores("mmlu-redux", db=db).set_index("question_id")["score"]
    set_required_reviews(flagged=1, other=1, db=db)
    rows = []
    for qid in ids:
        et = lab.loc[qid, "error_type"]
        if et == "wrong_groundtruth":
            a = alt.get(qid)
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "key_wrong",
                         "corrected_answer": a if isinstance(a, str) else "A"})
        elif et == "ok":
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "key_correct"})
        else:
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "defective"})
    add_reviews("mmlu-redux", rows, db=db)
    after = evidence_scores("mmlu-redux", db=db).set_index("question_id")["score"]
    scope = lab.index if subjects is None else lab.index[lab["subject"].isin(subjects)]
    rest = [x for x in scope if x not in set(ids)]
    return {"settled": len(ids), "found": int((lab.loc[ids, "error_type"] == "wrong_groundtruth").sum()),
            "rest": pd.DataFrame({"question_id": rest, "before": before.reindex(rest).to_numpy(),
                                  "after": after.reindex(rest).to_numpy(),
                                  "wrong": (lab.loc[rest, "error_type"] == "wrong_groundtruth").to_numpy()})}


def report_campaign(res: dict, title: str) -> tuple[float, float, int, bool]:
    r = res["rest"]
    b, a, t = float(r["before"].sum()), float(r["after"].sum()), int(r["wrong"].sum())
    toward = abs(a - t) < abs(b - t)
    away = abs(a - t) > abs(b - t) + 0.05
    print(f"\n== 5. Simulated campaign{title}: {res['settled']} items settled ({res['found']} wrong keys among them)")
    print(f"remaining {len(r)} items: truth {t} wrong keys; expected before {b:.1f}, after {a:.1f} "
          f"({'toward' if toward else 'away from' if away else 'not away from'} the truth)")
    ok = bands(r["after"].to_numpy(), r["wrong"].to_numpy(), "remaining items after the campaign")
    return b, a, t, ok


def settle_sample(db: Path, lab: pd.DataFrame, size: int = 100, seed: int = 0) -> list[str]:
    """Draw a random audit sample (by score band) and settle it with the experts' labels."""
    from audit.analyze import key_error_scores
    from audit.review import add_reviews, draw_sample, evidence_scores

    ids = [r["question_id"] for r in draw_sample("mmlu-redux", size, seed=seed, db=db)]
    settled = set(evidence_scores("mmlu-redux", db=db).query("settled_verdict.notna()")["question_id"])
    lab = lab.set_index("question_id")
    alt = key_error_scores("mmlu-redux", db=db).set_index("question_id")["alternative"]
    rows = []
    for qid in ids:
        et = lab.loc[qid, "error_type"]
        if qid in settled:      # settled by the campaign already: its verdict stands
            continue
        if et == "wrong_groundtruth":
            a = alt.get(qid)
            rows.append({"question_id": qid, "reviewer": "sim", "verdict": "key_wrong",
                         "corrected_answer": a if isinstance(a, str) else "A"})
        else:
            rows.append({"question_id": qid, "reviewer": "sim",
                         "verdict": "key_correct" if et == "ok" else "defective"})
    add_reviews("mmlu-redux", rows, db=db)
    return ids


def section_campaign(tmp: Path, lab: pd.DataFrame, db: Path, groups, priors, top: int = 50) -> None:
    """Campaigns.  (a) HONEST: each of the 5 groups of subjects is analysed
    with the split fitted on the OTHER groups' labelled model sets, and its
    share of the top ``top`` of the default queue settled; the group's
    remaining items — whose labels neither the split nor the campaign saw —
    are compared with the truth.  (b) The shipped split.  (c) A level that
    is off (twice the shipped rate): the queue's verdicts do not move the
    level, (d) a random audit sample of 100 items settled as well does."""
    from dataclasses import replace

    from audit.analyze import analyze_benchmark
    from audit.analyze.keyerror import SPLIT_PRIOR
    from audit.ingest import import_mmlu_redux

    rests = []
    print(f"\n== 5. HONEST simulated campaign: {len(groups)} groups of subjects; each group analysed with the split "
          f"fitted on the other groups' labels, its share of the top {top} of the default queue settled")
    n_all = len(lab)
    for gi, (g, pr) in enumerate(zip(groups, priors)):
        m = lab["subject"].isin(g).to_numpy()
        gdb = tmp / f"honest{gi}.duckdb"
        with split_prior(pr):
            import_mmlu_redux(SHARED / "mmlu_redux_dev", db=gdb)
            analyze_benchmark("mmlu-redux", db=gdb)
            res = campaign(gdb, lab, limit=int(round(top * m.sum() / n_all)), subjects=g)
        print(f"group {gi + 1} ({', '.join(g)}): level π {pr.base_rate:.4f} (fitted without its labels)")
        report_campaign(res, f" — group {gi + 1}")
        rests.append(res)
    pooled = {"settled": sum(r["settled"] for r in rests), "found": sum(r["found"] for r in rests),
              "rest": pd.concat([r["rest"] for r in rests], ignore_index=True)}
    b, a, t, ok = report_campaign(pooled, " — HONEST, all groups pooled")
    print(f"HONEST campaign: expected {b:.1f} → {a:.1f}, truth {t}: "
          f"{'toward' if abs(a - t) < abs(b - t) else 'NOT toward'} the truth; "
          f"bands calibrated: {'yes' if ok else 'NO'}")

    shipped = report_campaign(campaign(db, lab, limit=top), " with the shipped split (fitted on these labels too)")
    print(f"shipped split: {shipped[0]:.1f} → {shipped[1]:.1f}, truth {shipped[2]}: "
          f"{'toward' if abs(shipped[1] - shipped[2]) < abs(shipped[0] - shipped[2]) else 'NOT toward'} the truth")
    off = replace(SPLIT_PRIOR, base_rate=2 * SPLIT_PRIOR.base_rate)
    with split_prior(off):
        mdb = tmp / "off.duckdb"
        import_mmlu_redux(SHARED / "mmlu_redux_dev", db=mdb)
        analyze_benchmark("mmlu-redux", db=mdb)
        res = campaign(mdb, lab, limit=top)
        report_campaign(res, " from a level that is off (twice the shipped rate of wrong keys)")
        before = res["rest"].set_index("question_id")["before"]
        ids = settle_sample(mdb, lab, 100)
        from audit.review import evidence_scores

        after = evidence_scores("mmlu-redux", db=mdb).set_index("question_id")["score"]
        rest = res["rest"][~res["rest"]["question_id"].isin(ids)]
        t = int(rest["wrong"].sum())
        b, a = float(before.reindex(rest["question_id"]).sum()), float(after.reindex(rest["question_id"]).sum())
        print(f"the same, then a random audit sample of 100 items (by score band) settled: the remaining "
              f"{len(rest)} items' expected count {b:.1f} (before any verdict) → {a:.1f}, truth {t}: "
              f"{'toward' if abs(a - t) < abs(b - t) else 'NOT toward'} the truth")
        bands(after.reindex(rest["question_id"]).to_numpy(), rest["wrong"].to_numpy(), "remaining items after both")


def section_tiers(df_tiers: pd.DataFrame) -> None:
    y = df_tiers["error_type"] == "wrong_groundtruth"
    base = y.mean()
    g = df_tiers.assign(w=y).groupby("bucket")["w"].agg(["count", "sum", "mean"])
    g["× base rate"] = g["mean"] / base
    print(f"\n== 6. Tiers on the dev set (preset shares; base rate {100 * base:.2f}%)")
    print(g.round(3).to_string())
    t3 = g.loc["tier3", "× base rate"] if "tier3" in g.index else float("nan")
    t13 = g.loc[[b for b in ("tier1", "tier2", "tier3") if b in g.index]]
    r13 = t13["sum"].sum() / t13["count"].sum() / base
    print(f"Tier 3 wrong-key share = {t3:.1f}× the base rate; Tiers 1–3 together {r13:.1f}× "
          f"({int(t13['sum'].sum())} of {int(t13['count'].sum())} items; several times: {'yes' if r13 >= 3 else 'NO'})")


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
        groups, priors = heldout_priors()
        held = heldout_scores(tmp, groups, priors)
        df = section_scores(db, lab, held, groups)
        section_cost(db, df)
        section_tiers(lab.merge(audit_results("mmlu-redux", db=db), on="question_id"))
        if not args.no_campaign:
            section_campaign(tmp, lab, db, groups, priors)
        if not args.no_uzlib:
            uzlib_tiers(tmp)


if __name__ == "__main__":
    main()
