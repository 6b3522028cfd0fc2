"""Predict-run speed: a local OpenAI-compatible endpoint that answers after
0.5 s, ``concurrency=1`` vs ``concurrency=16`` through litellm's real request
path and the shared runner (audit/llm.py).  Target: concurrency 16 at least
10x faster.

    python tests/bench/bench_predict.py [--items 120] [--delay 0.5] [--high 16]

The endpoint runs in a separate process (as a real server would).  Prints the
wall time of each run (the run's own timer, so litellm's import is
excluded), items per second and the speed-up; exits 1 below 10x.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _judge_server import JudgeServer, make_benchmark  # noqa: E402


def _reply(qid: str) -> tuple:
    return ("text", f"Option A is wrong.\n\nAnswer: {'ABCD'[int(qid[1:]) % 4]}")


def _serve(delay: float, port_q, stop_ev) -> None:
    with JudgeServer(delay=delay, default_reply=_reply) as server:
        port_q.put(server.base)
        stop_ev.wait()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=120)
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--low", type=int, default=1)
    ap.add_argument("--high", type=int, default=16)
    args = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-dummy")
    from audit.ingest.predict import run_predict
    from audit.store import init_db

    tmp = Path(tempfile.mkdtemp(prefix="bench-predict-"))
    times = {}
    port_q, stop_ev = mp.Queue(), mp.Event()
    proc = mp.Process(target=_serve, args=(args.delay, port_q, stop_ev), daemon=True)
    proc.start()
    base = port_q.get(timeout=60)
    try:
        for conc in (args.high, args.low):
            db = tmp / f"c{conc}.duckdb"
            init_db(db)
            make_benchmark(db, name="bench", n=args.items)
            t0 = time.monotonic()
            s = run_predict("openai/bench-model", benchmark="bench", db=db, api_base=base, concurrency=conc,
                            input_cost_per_token=1e-6, output_cost_per_token=2e-6, progress=False)
            wall = time.monotonic() - t0
            assert s.n_ok == args.items and s.n_answered == args.items, s.lines()
            times[conc] = s.elapsed_s
            print(f"concurrency {conc:>3}: {args.items} items in {s.elapsed_s:7.2f} s "
                  f"({args.items / s.elapsed_s:6.1f} items/s; call incl. setup {wall:.2f} s; cost ${s.cost_usd:.4f})")
    finally:
        stop_ev.set()
        proc.join(timeout=10)
    speedup = times[args.low] / times[args.high]
    ideal = min(args.high, args.items) / args.low
    print(f"speed-up {args.high} vs {args.low}: {speedup:.1f}x (ideal {ideal:.0f}x; target >= 10x) "
          f"— {'OK' if speedup >= 10 else 'BELOW TARGET'}; load average {os.getloadavg()[0]:.1f}")
    return 0 if speedup >= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
