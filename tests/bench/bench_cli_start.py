"""Start-up time of `audit --help` (target: at most 0.5 s).

Prints wall-clock and CPU seconds of 5 runs and, for comparison, of a bare
`python3 -c pass`; on a shared machine the CPU time is the steadier figure.
Run: python tests/bench/bench_cli_start.py
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time


def _run(args: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    print(f"load average: {os.getloadavg()[0]:.2f}")
    for label, args in (("python3 -c pass", [sys.executable, "-c", "pass"]),
                        ("audit --help", [sys.executable, "-m", "audit", "--help"])):
        runs = [_run(args) for _ in range(5)]
        walls = sorted(w for w, _ in runs)
        cpus = sorted(c for _, c in runs)
        print(f"{label:16s} wall median {walls[2]:.3f} s (min {walls[0]:.3f}), cpu median {cpus[2]:.3f} s")


if __name__ == "__main__":
    main()
