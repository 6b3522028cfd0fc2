"""Concurrency speed-up of an LLM run (judge or predict) against a local
OpenAI-compatible endpoint answering after a fixed delay: the one harness
behind ``bench_judge.py`` and ``bench_predict.py``.

The endpoint runs in a separate process (as a real server would), so the
client's event loop does not share the interpreter lock with it.  Each run
is timed by its own timer (litellm's import time excluded).
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.judge_server import JudgeServer, make_benchmark  # noqa: E402

TARGET = 10.0


def _serve(delay: float, default_reply: Callable | None, port_q: Any, stop_ev: Any) -> None:
    kw = {"default_reply": default_reply} if default_reply is not None else {}
    with JudgeServer(delay=delay, **kw) as server:
        port_q.put(server.base)
        stop_ev.wait()


def speedup_main(run: Callable[[Path, str, int, int], Any], *, default_items: int, prefix: str,
                 default_reply: Callable | None = None) -> int:
    """Parse ``--items --delay --low --high``, run ``run(db, api_base,
    concurrency, items)`` at the high then the low concurrency on fresh
    benchmarks, print each run and the speed-up; 0 when it reaches 10×."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=default_items)
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--low", type=int, default=1)
    ap.add_argument("--high", type=int, default=16)
    args = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-dummy")
    from audit.store import init_db

    tmp = Path(tempfile.mkdtemp(prefix=f"bench-{prefix}-"))
    times = {}
    port_q, stop_ev = mp.Queue(), mp.Event()
    proc = mp.Process(target=_serve, args=(args.delay, default_reply, port_q, stop_ev), daemon=True)
    proc.start()
    base = port_q.get(timeout=60)
    try:
        for conc in (args.high, args.low):
            db = tmp / f"c{conc}.duckdb"
            init_db(db)
            make_benchmark(db, name="bench", n=args.items)
            t0 = time.monotonic()
            s = run(db, base, conc, args.items)
            wall = time.monotonic() - t0
            times[conc] = s.elapsed_s
            print(f"concurrency {conc:>3}: {args.items} items in {s.elapsed_s:7.2f} s "
                  f"({args.items / s.elapsed_s:6.1f} items/s; call incl. setup {wall:.2f} s; cost ${s.cost_usd:.4f})")
    finally:
        stop_ev.set()
        proc.join(timeout=10)
    speedup = times[args.low] / times[args.high]
    ideal = min(args.high, args.items) / args.low
    print(f"speed-up {args.high} vs {args.low}: {speedup:.1f}x (ideal {ideal:.0f}x; target >= {TARGET:g}x) "
          f"— {'OK' if speedup >= TARGET else 'BELOW TARGET'}; load average {os.getloadavg()[0]:.1f}")
    return 0 if speedup >= TARGET else 1
