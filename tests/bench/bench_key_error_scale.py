"""What the key-error score adds to ``audit analyze`` at scale.  Not collected
by pytest; run:

    python tests/bench/bench_key_error_scale.py [N_QUESTIONS] [N_MODELS] [--db EXISTING.duckdb]

Default 100,000 questions × 100 models (10 M predictions) from
``tests/bench/scale_data.py`` (3% wrong keys set to each item's popular
distractor).  Times ``analyze_benchmark(score=False)`` (tiers only) and ``analyze_benchmark()``
(tiers + score), alternating, each as the median of 3 runs, in wall time and
in the process's CPU time (all threads; less sensitive to other processes on
a shared machine), prints the ratios (target ≤ 2×), the fit's parameters summary and the average precision of the score
and of the tier order against the planted wrong keys.  Records the load
average: the machine is shared.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_key_error import average_precision, tier_order_score  # noqa: E402
from scale_data import build_scale_db  # noqa: E402


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--db")]
    n_q = int(args[0]) if len(args) > 0 else 100_000
    n_m = int(args[1]) if len(args) > 1 else 100
    existing = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--db=")), None)
    from audit.analyze import analyze_benchmark, key_error_scores
    from audit.analyze.keyerror import key_error_params
    from audit.store import connect

    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(existing) if existing else Path(tmp) / "scale.duckdb"
        if not existing:
            t = time.perf_counter()
            build_scale_db(db, n_q, n_m)
            print(f"{n_q:,} questions × {n_m} models built in {time.perf_counter() - t:.0f} s")
        wall: dict[bool, list[float]] = {False: [], True: []}
        cpu: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(3):
            for score in (False, True):
                t, c = time.perf_counter(), time.process_time()
                analyze_benchmark("scale", db=db, score=score)
                wall[score].append(time.perf_counter() - t)
                cpu[score].append(time.process_time() - c)
        for name, d in (("wall", wall), ("CPU", cpu)):
            a0, a1 = statistics.median(d[False]), statistics.median(d[True])
            print(f"analyze {name:>4}: tiers only {a0:7.2f} s, tiers + score {a1:7.2f} s, ratio {a1 / a0:5.2f}×  "
                  f"(runs {', '.join(f'{x:.1f}' for x in d[False])} / {', '.join(f'{x:.1f}' for x in d[True])})")
        print(f"load average after: {os.getloadavg()}  (target ≤ 2×)")
        sc = key_error_scores("scale", db=db)
        with connect(db, read_only=True) as con:
            m = con.execute(
                "SELECT q.question_id, r.tier, r.agreement_count FROM questions q "
                "JOIN current_audit r USING (benchmark, question_id) WHERE q.benchmark = 'scale' ORDER BY q.seq").df()
        # the planted wrong keys: replay generate_parquet's first draws (seed 0, share 0.03)
        rng = np.random.default_rng(0)
        rng.integers(0, 4, n_q)
        rng.integers(1, 4, n_q)
        y = rng.random(n_q) < 0.03
        m = m.merge(sc[["question_id", "score"]], on="question_id")
        print(f"planted wrong keys: {int(y.sum())}; AP score {average_precision(m['score'].to_numpy(), y):.3f}, "
              f"tier order {average_precision(tier_order_score(m['tier'], m['agreement_count']), y):.3f}")
        p = key_error_params("scale", db=db)
        g = p[p["kind"] == "global"].set_index("param")["value"]
        print(f"fit: wrong-key rate {g['wrong_key_rate']:.4f}, guessing rate {g['guessing_rate']:.3f}, "
              f"{int(g['iterations'])} EM iterations, converged {bool(g['converged'])}; "
              f"reliabilities {np.round(np.quantile(p[(p['param'] == 'reliability')]['value'], [0, .5, 1]), 3)}")


if __name__ == "__main__":
    main()
