"""A review campaign that weighs its reviewers, simulated through the
library calls the workbench makes (tests/support/campaign.py), and the
figures of the acceptance:

1. **Reliability.**  300 items, 30 known-answer items mixed in at the
   campaign's rate, three reviewers right 95%, 80% and 55% of the time (two
   verdicts per item): each reviewer's accuracy on the known-answer items
   with its 95% Wilson interval, agreement with settled verdicts and the
   Dawid–Skene estimate; whether the ranking comes out right, after how
   many known-answer items the 55% reviewer is first flagged, whether every
   interval covers the simulated accuracy.
2. **When the flag comes.**  The chance that a reviewer right p of the time
   is flagged within their first 20 known-answer items (upper end of the
   95% Wilson interval below 0.8, from 5 answers on), by Monte Carlo over
   the rule of audit.review.reliability (pure; seconds).
3. **A second review only where it pays.**  ../shared/data/mmlu_redux_dev,
   the experts' labels as truth (``wrong_groundtruth``: the key is wrong),
   three reviewers right 90% of the time with a record on 40 known-answer
   items: fixed double review of every Tier 1–2 item (the count rule)
   against the weighted rule with second reviews by expected information
   gain, given 60% of the fixed policy's second reviews; the k-th verdict
   on an item is right or not by the same draw under both (common random
   numbers).  Also the adaptive policy without a budget.

    python tests/bench/bench_campaign_reliability.py [--seeds 3] [--skip-reliability] [--skip-policy]
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))   # the repository's packages (audit, tests.support) when run as a script
SHARED = REPO.parent / "shared" / "data"


def reliability(seeds: list[int], tmp: Path) -> None:
    from tests.support.campaign import reliability_campaign

    print("== 1. reliability campaign: 300 items, 30 known-answer items, reviewers at 95 / 80 / 55 % ==")
    for seed in seeds:
        t = time.perf_counter()
        run = reliability_campaign(tmp / f"campaign{seed}.duckdb", seed=seed)
        tab = run.table.set_index("reviewer")
        print(f"-- seed {seed}: {run.n_verdicts} verdicts through next_for_reviewer / item_view / add_review "
              f"({time.perf_counter() - t:.0f} s)")
        with pd.option_context("display.width", 200, "display.max_columns", None, "display.precision", 3):
            print(run.table.to_string(index=False))
        order_gold = list(tab["gold_accuracy"].sort_values(ascending=False).index)
        order_ds = list(tab["estimated_accuracy"].sort_values(ascending=False).index)
        truth = sorted(run.accuracy, key=lambda r: -run.accuracy[r])
        cover = {r: bool(tab.loc[r, "gold_accuracy_low"] <= p <= tab.loc[r, "gold_accuracy_high"])
                 for r, p in run.accuracy.items()}
        print(f"   ranking by known-answer accuracy right: {order_gold == truth}; by Dawid–Skene: {order_ds == truth}")
        print(f"   first flagged after n known-answer items: {run.first_flag}")
        print(f"   every 95% interval covers the simulated accuracy: {all(cover.values())} {cover}")
        print(f"   flagged at the end: {dict(tab['flagged'])}")


def flag_chance(n_sim: int = 20000, seed: int = 0) -> None:
    print("\n== 2. chance of being flagged within the first 20 known-answer items (rule: upper 95% Wilson < 0.8, "
          "from 5 answers) ==")
    from audit.analyze import wilson_interval
    from audit.review.trust import TrustSettings

    rule = TrustSettings()   # the defaults: flag_below 0.8, flag_min_gold 5
    rng = np.random.default_rng(seed)
    for p in (0.55, 0.65, 0.80, 0.90, 0.95):
        k = (rng.random((n_sim, 20)) < p).cumsum(axis=1)
        flagged_by = np.zeros(n_sim, bool)
        for n in range(rule.flag_min_gold, 21):
            _, high = wilson_interval(k[:, n - 1], np.full(n_sim, n))
            flagged_by |= high < rule.flag_below
        print(f"   p = {p:.2f}: {flagged_by.mean():6.1%} flagged within 20 ({n_sim} simulated reviewers)")


def policy(seeds: list[int], tmp: Path) -> None:
    from tests.support.campaign import policy_campaign, redux_template

    src = SHARED / "mmlu_redux_dev"
    if not src.exists():
        print(f"\n== 3. skipped: {src} is not present ==")
        return
    print("\n== 3. fixed double review vs the adaptive policy on mmlu_redux_dev (Tier 1–2, reviewers at 90 %) ==")
    tpl = redux_template(src, tmp / "redux.duckdb")
    rows = []
    for seed in seeds:
        t = time.perf_counter()
        f = policy_campaign(tpl, tmp / f"fixed{seed}.duckdb", "fixed", seed=seed)
        a = policy_campaign(tpl, tmp / f"adaptive{seed}.duckdb", "adaptive", seed=seed,
                            budget=int(0.6 * f.second_reviews))
        u = policy_campaign(tpl, tmp / f"unlimited{seed}.duckdb", "adaptive", seed=seed)
        for run, name in ((f, "fixed"), (a, "adaptive, 60% budget"), (u, "adaptive, no budget")):
            rows.append({"seed": seed, "policy": name, "second_reviews": run.second_reviews,
                         "settled_wrong_keys": run.settled_wrong_keys, "let_through": run.let_through,
                         "let_through_lone": run.let_through_lone, "kept_unsettled_lone": run.kept_unsettled_lone,
                         "false_corrections": run.false_corrections, "settled_items": run.settled_items,
                         "settled_by": run.settled_by})
        ok = (a.settled_wrong_keys >= f.settled_wrong_keys and a.second_reviews <= 0.6 * f.second_reviews
              and a.let_through_lone <= f.let_through + 1)
        print(f"-- seed {seed} ({time.perf_counter() - t:.0f} s): acceptance holds: {ok}")
    df = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 80):
        print(df.to_string(index=False))
        print("\n   means over the seeds:")
        print(df.drop(columns=["seed", "settled_by"]).groupby("policy", sort=False).mean().round(2).to_string())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1, help="Campaigns per simulation (seeds 0, 1, ...).")
    ap.add_argument("--skip-reliability", action="store_true")
    ap.add_argument("--skip-policy", action="store_true")
    args = ap.parse_args()
    seeds = list(range(args.seeds))
    random.seed(0)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if not args.skip_reliability:
            reliability(seeds, tmp)
        flag_chance()
        if not args.skip_policy:
            policy(seeds, tmp)


if __name__ == "__main__":
    main()
