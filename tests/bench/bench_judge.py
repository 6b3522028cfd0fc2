"""Judge-run speed: a local OpenAI-compatible endpoint that answers after
0.5 s, 200 items, ``concurrency=1`` vs ``concurrency=16`` through litellm's
real request path.  Target: concurrency 16 at least 10x faster.

    python tests/bench/bench_judge.py [--items 200] [--delay 0.5] [--high 16]

The endpoint runs in a separate process (as a real server would), so the
client's event loop does not share the interpreter lock with it.  Prints the
wall time of each run (from the run's own timer, so litellm's import time is
excluded), requests per second, and the speed-up; exits 1 when the speed-up
is below 10x.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _speedup import speedup_main  # noqa: E402


def _run(db: Path, base: str, concurrency: int, items: int):
    from audit.judge import run_judge

    s = run_judge("openai/bench-judge", benchmark="bench", db=db, api_base=base, concurrency=concurrency,
                  input_cost_per_token=1e-6, output_cost_per_token=2e-6, progress=False)
    assert s.n_ok == items and s.n_requested == items, s.lines()
    return s


if __name__ == "__main__":
    sys.exit(speedup_main(_run, default_items=200, prefix="judge"))
