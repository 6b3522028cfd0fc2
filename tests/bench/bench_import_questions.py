"""Peak memory and time of importing a large question CSV (target: one
million questions under 1 GB).  Writes the CSV to a temporary
folder, imports it in a fresh process (``audit import questions``) and prints
the figures as JSON, with the load average.  The peak is that process's own
maximum resident set size (``wait4``).

``--baseline REV`` imports the same file a second time with the ``audit``
package of git revision REV (``git archive``: for instance ``main`` or the
commit before a change) and prints both peaks, both times and their ratios.
Each import's CPU seconds (user + system, from ``wait4``) are printed
beside its wall-clock seconds: on a shared machine the wall clock measures
the other processes too.

    python tests/bench/bench_import_questions.py [--rows 1000000] [--baseline REV]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[2]


def run_import(csv: Path, db: Path, source: Path) -> dict:
    """``audit import questions`` with the package found in *source*, in a
    fresh process (run in the database's folder, so ``python -m`` does not
    pick up the package of the current directory): its seconds and peak
    RSS (MB)."""
    with tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "audit.cli", "import", "questions", str(csv), "--benchmark", "big",
                              "--db", str(db)], stdout=subprocess.DEVNULL, stderr=err,
                             cwd=db.parent, env={**os.environ, "PYTHONPATH": str(source)})
        _, status, usage = os.wait4(p.pid, 0)
        took = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            sys.exit(err.read().decode("utf-8", "replace"))
    with duckdb.connect(str(db), read_only=True) as con:
        n = con.execute("SELECT count(*) FROM questions").fetchall()[0][0]
    return {"seconds": round(took, 1), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024), "stored": n}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--baseline", metavar="REV", help="also import with the audit package of this git revision")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "q.csv"
        with open(csv, "w", encoding="utf-8") as fh:
            fh.write("id,question,A,B,C,D,answer\n")
            for i in range(args.rows):
                fh.write(f"q{i},What is {i} plus {i % 97}?,{i},{i + 1},{i + 2},{i + 3},{'ABCD'[i % 4]}\n")
        out: dict = {"rows": args.rows, "csv_mb": round(csv.stat().st_size / 1e6, 1)}
        out |= run_import(csv, Path(d) / "b.duckdb", REPO)
        out["load"] = round(os.getloadavg()[0], 2)
        if args.baseline:
            base = Path(d) / "baseline"
            base.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", args.baseline, "audit"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
            b = run_import(csv, Path(d) / "base.duckdb", base)
            out["baseline"] = {"rev": args.baseline, **b, "load": round(os.getloadavg()[0], 2)}
            out["peak_ratio"] = round(out["peak_rss_mb"] / b["peak_rss_mb"], 2)
            out["time_ratio"] = round(out["seconds"] / b["seconds"], 2)
            out["cpu_ratio"] = round(out["cpu_seconds"] / b["cpu_seconds"], 2)
        print(json.dumps(out))


if __name__ == "__main__":
    main()
