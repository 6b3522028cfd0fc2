"""Predict-run speed: a local OpenAI-compatible endpoint that answers after
0.5 s, ``concurrency=1`` vs ``concurrency=16`` through litellm's real request
path and the shared runner (audit/llm/).  Target: concurrency 16 at least
10x faster.

    python tests/bench/bench_predict.py [--items 120] [--delay 0.5] [--high 16]

The endpoint runs in a separate process (as a real server would).  Prints the
wall time of each run (the run's own timer, so litellm's import is
excluded), items per second and the speed-up; exits 1 below 10x.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _speedup import speedup_main  # noqa: E402


def _reply(qid: str) -> tuple:
    return ("text", f"Option A is wrong.\n\nAnswer: {'ABCD'[int(qid[1:]) % 4]}")


def _run(db: Path, base: str, concurrency: int, items: int):
    from audit.predict import run_predict

    s = run_predict("openai/bench-model", benchmark="bench", db=db, api_base=base, concurrency=concurrency,
                    input_cost_per_token=1e-6, output_cost_per_token=2e-6, progress=False)
    assert s.n_ok == items and s.n_answered == items, s.lines()
    return s


if __name__ == "__main__":
    sys.exit(speedup_main(_run, default_items=120, prefix="predict", default_reply=_reply))
