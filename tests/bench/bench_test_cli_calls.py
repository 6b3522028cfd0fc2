"""What one ``audit`` call costs the test suite: a real ``python -m audit``
against the same command forked from the test command server
(:func:`tests.support.cli_process.run_audit`), measured in the same run.

Builds a demo database, then times ``audit models list`` and ``audit review
status`` 10 times each way and prints the wall-clock medians and their
ratio.  Run: python tests/bench/bench_test_cli_calls.py
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.cli_process import SPAWN_ENV, run_audit  # noqa: E402

COMMANDS = (["models", "list"], ["review", "status", "--benchmark", "demo"])


def _median(args: list[str], spawn: bool, n: int = 10) -> float:
    if spawn:
        os.environ[SPAWN_ENV] = "1"
    else:
        os.environ.pop(SPAWN_ENV, None)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = run_audit(args)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            raise SystemExit(f"audit {' '.join(args)} failed: {r.stderr}")
    return statistics.median(times)


def main() -> None:
    db = Path(tempfile.mkdtemp()) / "demo.duckdb"
    r = run_audit(["demo", "--db", str(db)])
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    run_audit(["--help"])   # the server starts once, outside the timing
    print(f"load average: {os.getloadavg()[0]:.2f}")
    for args in COMMANDS:
        full = [*args, "--db", str(db)]
        spawned, forked = _median(full, True), _median(full, False)
        print(f"audit {' '.join(args):34s} python -m audit {spawned:.3f} s, forked {forked:.3f} s: "
              f"{spawned / forked:.1f}x")


if __name__ == "__main__":
    main()
