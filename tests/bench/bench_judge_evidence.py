"""Judge evidence that pays: the MMLU-Redux detectors' verdicts in
the key-error score.  Not collected by pytest; run:

    python tests/bench/bench_judge_evidence.py [--repeat 9]

Data: ../shared/data/mmlu_redux_dev (15 subjects × 100 items, 14 models'
answers, human error labels; a wrong key = ``wrong_groundtruth``) and
../shared/data/mmlu_redux_detectors (20 detector runs on the five subjects
formal_logic, global_facts, machine_learning, professional_law,
public_relations), imported with ``import auto`` (``--skip-unmatched``: three
items whose dev text differs by a stray control byte do not link).

Prints average precision (AP) for wrong keys:

* on the five subjects with detectors: the score without judges, the
  detectors alone (share of runs saying "not ok"), the score with judges;
* on all 15 subjects: without and with judges;
* the same APs held out: each of 5 groups of 3 subjects scored with the
  key-error split fitted without its labels (``tests/bench/_model_sets.py``);
* calibration bands of the score with judges (bench_calibration's check);
* ``analyze`` time with the 20 judge runs against without (median of
  ``--repeat`` runs).

The judges' weights are fitted on the models' answers only, never on the
labels (:func:`audit.analyze.keyerror.judge_evidence`).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_calibration import bands, labelled  # noqa: E402
from bench_key_error import SHARED, average_precision  # noqa: E402


def _scores(db: Path):
    from audit.analyze import key_error_scores

    lab = labelled(db)
    df = lab.merge(key_error_scores("mmlu-redux", db=db), on="question_id")
    return df, (df["error_type"] == "wrong_groundtruth").to_numpy()


def _time_analyze(dbs: list[Path], repeat: int) -> list[float]:
    """Median ``analyze`` time of each database, the runs interleaved (the
    machine is shared: a burst of load hits both sides alike)."""
    from audit.analyze import analyze_benchmark

    ts: list[list[float]] = [[] for _ in dbs]
    for _ in range(repeat):
        for k, db in enumerate(dbs):
            t0 = time.perf_counter()
            analyze_benchmark("mmlu-redux", db=db)
            ts[k].append(time.perf_counter() - t0)
    return [float(np.median(t)) for t in ts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    for d in ("mmlu_redux_dev", "mmlu_redux_detectors"):
        if not (SHARED / d).exists():
            sys.exit(f"{SHARED / d} not present")
    import duckdb

    from audit.analyze import analyze_benchmark
    from audit.ingest import import_mmlu_redux
    from audit.judge import import_detectors

    print(f"load average: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmpd:
        db = Path(tmpd) / "redux.duckdb"
        import_mmlu_redux(SHARED / "mmlu_redux_dev", db=db)
        analyze_benchmark("mmlu-redux", db=db)
        df0, y0 = _scores(db)
        db0 = Path(tmpd) / "redux-no-judges.duckdb"
        shutil.copyfile(db, db0)
        s = import_detectors(SHARED / "mmlu_redux_detectors", benchmark="mmlu-redux", db=db, skip_unmatched=True)
        print(f"imported {s.stored:,} verdicts of {len(s.runs)} runs; {len(s.unmatched)} rows matched no item")
        analyze_benchmark("mmlu-redux", db=db)
        df1, y1 = _scores(db)
        t_without, t_with = _time_analyze([db0, db], args.repeat)
        # held out: each of 5 groups of 3 subjects scored with the split fitted without its labels
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_calibration as bc

        groups, priors = bc.heldout_priors()
        held = {}
        for name, src in (("without judges", db0), ("with judges", db)):
            h = np.zeros(len(df1))
            for gi, (g, pr) in enumerate(zip(groups, priors)):
                gdb = Path(tmpd) / f"held-{len(held)}-{gi}.duckdb"
                shutil.copyfile(src, gdb)
                with bc.split_prior(pr):
                    analyze_benchmark("mmlu-redux", db=gdb)
                d, _ = _scores(gdb)
                m = d["subject"].isin(g).to_numpy()
                h[m] = d["score"].to_numpy()[m]
            held[name] = h
        assert (df0["question_id"].to_numpy() == df1["question_id"].to_numpy()).all()
        with duckdb.connect(str(db), read_only=True) as con:
            share = con.execute(
                "SELECT question_id, avg((NOT answer_key_correct)::DOUBLE) AS share FROM judge_verdicts "
                "WHERE benchmark = 'mmlu-redux' AND parse_ok GROUP BY question_id").df()
    five = (df1["n_judges"] > 0).to_numpy()
    sh = df1[["question_id"]].merge(share, on="question_id", how="left")["share"].to_numpy()
    ap0, apd, ap1 = (average_precision(x[five], y1[five]) for x in (df0["score"].to_numpy(), sh,
                                                                     df1["score"].to_numpy()))
    print(f"\n== five subjects with detectors ({five.sum()} items, {int(y1[five].sum())} labelled wrong keys)")
    print(f"AP score without judges   {ap0:.3f}")
    print(f"AP detectors alone (share) {apd:.3f}")
    print(f"AP score with judges      {ap1:.3f}  (over the better of the two: {ap1 - max(ap0, apd):+.3f}; "
          f"acceptance >= +0.05: {'yes' if ap1 >= max(ap0, apd) + 0.05 else 'NO'})")
    a0, a1 = average_precision(df0["score"].to_numpy(), y0), average_precision(df1["score"].to_numpy(), y1)
    print(f"\n== all 15 subjects ({len(df1)} items, {int(y1.sum())} labelled wrong keys)")
    print(f"AP without judges {a0:.3f}, with judges {a1:.3f} ({a1 - a0:+.3f}; does not fall: "
          f"{'yes' if a1 >= a0 - 1e-9 else 'NO'})")
    for name, h in held.items():
        print(f"held out (5 groups of 3 subjects, the split fitted on the others), {name}: AP five subjects "
              f"{average_precision(h[five], y1[five]):.3f}, all {average_precision(h, y1):.3f}")
    ok = bands(df1["score"].to_numpy(), y1, "WITH JUDGES (the shipped split)")
    print(f"calibration with judges: {'yes' if ok else 'NO'}")
    ok0 = bands(df0["score"].to_numpy(), y0, "WITHOUT JUDGES")
    print(f"calibration without judges: {'yes' if ok0 else 'NO'}")
    print(f"\n== analyze time (median of {args.repeat}): without judges {t_without:.2f} s, with 20 runs "
          f"{t_with:.2f} s, ratio {t_with / t_without:.2f} (acceptance <= 1.25: "
          f"{'yes' if t_with <= 1.25 * t_without else 'NO'})")


if __name__ == "__main__":
    main()
