"""Peak memory and time of importing a large question CSV (issue 14: one
million questions must stay under 1 GB).  Writes the CSV to a temporary
folder, imports it in a fresh process (``audit import questions``) and prints
the figures as JSON, with the load average.

    python tests/bench/bench_import_questions.py [--rows 1000000]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "q.csv"
        with open(csv, "w", encoding="utf-8") as fh:
            fh.write("id,question,A,B,C,D,answer\n")
            for i in range(args.rows):
                fh.write(f"q{i},What is {i} plus {i % 97}?,{i},{i + 1},{i + 2},{i + 3},{'ABCD'[i % 4]}\n")
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "audit.cli", "import", "questions", str(csv), "--benchmark", "big",
                            "--db", str(Path(d) / "b.duckdb")], capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
        took = time.monotonic() - t0
        if r.returncode != 0:
            sys.exit(r.stderr)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(json.dumps({"rows": args.rows, "csv_mb": round(csv.stat().st_size / 1e6, 1),
                          "seconds": round(took, 1), "peak_rss_mb": round(peak), "load": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
