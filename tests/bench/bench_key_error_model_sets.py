"""The key-error split on model sets weak and strong, few and many, held
out by groups of subjects.  Not collected by pytest; run:

    python tests/bench/bench_key_error_model_sets.py [--only pro/tlue4,redux/all14]

Data: ``../shared/data/mmlu_pro_dev`` (30 MMLU-Pro models, 835 items, 19
wrong keys) and ``../shared/data/mmlu_redux_dev`` (14 HELM models, 1,500
items, 35 wrong keys); truth = the experts' ``wrong_groundtruth``.

Held out: the subjects in 5 groups of 3; for each group the split's
constants (:func:`audit.analyze.keyerror.fit_split_prior`) are fitted on
the labels of the other 12 subjects only, over the 98 training
configurations (weakest-k, strongest-k, random k = 3–8 with other seeds,
one strong model among weak ones, the middle of the range), and score the
group's items of every configuration below (``tests/bench/_model_sets.py``;
the five fits are cached under ``$AUDIT_BENCH_CACHE``, a first run takes
about 15 minutes on two cores).

Configurations (the acceptance's): on mmlu_pro_dev all 30, the 29 without
``unnamed-2026-02``, the 8 weakest, the four TLUE-like models, random 4, 6
and 8 models (seeds 0–4); on mmlu_redux_dev all 14 and random 4 (seeds 0–4).

Printed per configuration: the expected count with its 90% interval against
the experts, the largest per-model cost error (points), the worst band of ≥
20 items (|mean score − share wrong|), AP (mean and lowest over the five
priors) beside the better baseline (share of models disagreeing with the
key, Cleanlab-style normalised margin), whether the set lies outside the
training domain, and which targets it misses (interval covers; ±40%; cost
±0.5; bands 0.15; AP ≥ baseline except the 8 weakest).  Then every band.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import _model_sets as M  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated configuration names")
    args = ap.parse_args()
    if not (M.SHARED / "mmlu_pro_dev").exists() or not (M.SHARED / "mmlu_redux_dev").exists():
        sys.exit(f"{M.SHARED}/mmlu_pro_dev or mmlu_redux_dev not present")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    t0 = time.perf_counter()
    pro, red, groups, priors = M.heldout_setup()
    print(f"the five held-out fits: {time.perf_counter() - t0:.0f} s")
    only = {x for x in args.only.split(",") if x}
    print(f"\n{'configuration':20s} {'expected [90%]':>20s} {'experts':>7s} {'err':>5s} {'cost err':>8s} "
          f"{'band max':>8s} {'AP':>6s} {'AP min':>6s} {'base':>6s}  outside domain / misses")
    rows = []
    for name, b in M.acceptance(pro, red):
        if only and name not in only:
            continue
        r = M.evaluate(name, b, groups, priors)
        rows.append(r)
        miss = M.targets(r)
        print(f"{name:20s} {r['estimate']:7.1f} [{r['low']:4.0f}, {r['high']:4.0f}] {r['experts']:7d} "
              f"{r['rel_err']:+5.0%} {r['cost_err']:8.2f} {r['band_err']:8.3f} {r['ap']:6.3f} {r['ap_min']:6.3f} "
              f"{r['ap_base']:6.3f}  {','.join(r['extrapolation']) or '-'} / {','.join(miss) or 'none'}", flush=True)
    print()
    for r in rows:
        print(f"{r['name']:20s} bands: " + "  ".join(f"{lo:.2f}–{hi:.2f}: n={k} {m:.3f} vs {w:.3f}"
                                                     for lo, hi, k, m, w in r["bands"]))
    ok = [r["name"] for r in rows if not M.targets(r)]
    print(f"\nevery target held in {len(ok)} of {len(rows)} configurations; misses: "
          + "; ".join(f"{r['name']} ({', '.join(M.targets(r))}: cost error {r['cost_err']:.2f})"
                      for r in rows if M.targets(r)))
    print(f"[{time.perf_counter() - t0:.0f} s]")


if __name__ == "__main__":
    main()
