"""Scale curve: import and analyze at 1 M, 10 M and 100 M
predictions (10,000 / 100,000 / 1,000,000 questions × 100 models).

    python tests/bench/bench_scale_curve.py [--sizes 1M,10M,100M] [--models 100] [--workdir DIR]
                                            [--keep] [--reuse]

For each size: the data is generated deterministically (``scale_data.py``,
written in chunks of 10,000 questions so the generator stays small), then
``import`` (questions, then predictions in the long layout with 10% raw
responses extracted on import) and ``analyze`` (end to end, with the
key-error score) each run in their own child process — the phases of
``bench_scale.py``, reused — which reports its peak RSS (VmHWM: Python,
imports and DuckDB's buffers included).  The last table prints seconds per
million predictions, and the marginal CPU seconds per million between
successive sizes: linear growth (a fixed cost plus a cost per prediction)
shows as a constant marginal cost.

Targets: peak RSS ≤ 3 GB at 100 M for import and for analyze; marginal CPU
seconds per million within 2× from 1 M to 100 M.

``--reuse`` keeps an existing database of a size (skips generate and
import, runs analyze again) or, without one, existing Parquet files
(skips generate); ``--keep`` keeps the files (default: the
Parquet files and the database of a size are deleted once it is measured,
except the largest size's database).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_scale import _child  # noqa: E402  (the phases and their peak-RSS measurement)
from scale_data import generate_parquet  # noqa: E402

RSS_TARGET_MB = 3 * 1024
CHUNK_QUESTIONS = 10_000


def parse_size(text: str) -> int:
    """'1M' → 1,000,000; '250k' → 250,000; '1000000' → 1,000,000.

    >>> [parse_size(s) for s in ("1M", "250k", "12")]
    [1000000, 250000, 12]
    """
    t = text.strip().upper()
    mult = {"K": 1_000, "M": 1_000_000}.get(t[-1:], 1)
    return int(float(t[:-1] if mult > 1 else t) * mult)


def _label(n: int) -> str:
    return f"{n / 1e6:g} M" if n >= 1_000_000 else f"{n / 1e3:g} k"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def startup_cpu() -> float:
    """CPU seconds of a child that only starts Python and imports what a
    phase imports: subtracted from each phase's CPU time."""
    import subprocess

    before = _children_cpu()
    subprocess.run([sys.executable, "-c", "import audit.ingest, audit.analyze"], check=True)
    return _children_cpu() - before


_STARTUP = 0.0


def _timed_child(phase: str, args) -> dict:
    """:func:`bench_scale._child`, plus the CPU seconds (user + system, all
    threads) the child used beyond start-up: less sensitive than wall time
    to the load of a shared machine, so the better witness of linear growth."""
    before = _children_cpu()
    out = _child(phase, args)
    out["cpu_s"] = max(_children_cpu() - before - _STARTUP, 0.0)
    return out


def measure(n_predictions: int, n_models: int, root: Path, *, reuse: bool) -> dict:
    n_questions = n_predictions // n_models
    wd = root / f"p{n_predictions}"
    db = wd / "scale.duckdb"
    args = SimpleNamespace(db=db, workdir=wd, questions=n_questions, models=n_models)
    row: dict = {"n": n_questions * n_models, "questions": n_questions}
    if not (reuse and db.exists()):
        for suffix in ("", ".wal"):
            Path(str(db) + suffix).unlink(missing_ok=True)
        if reuse and (wd / "predictions.parquet").exists() and (wd / "questions.parquet").exists():
            print(f"  {_label(row['n'])}: reusing the Parquet files in {wd}; importing …", flush=True)
        else:
            info = generate_parquet(wd, n_questions, n_models, chunk_questions=CHUNK_QUESTIONS)
            row["generate_s"] = info["generate_s"]
            row["parquet_mb"] = sum(p.stat().st_size for p in wd.glob("*.parquet")) / 2**20
            print(f"  {_label(row['n'])}: generated in {info['generate_s']:.0f} s ({row['parquet_mb']:.0f} MB "
                  f"Parquet, {info['n_raw']:,} raw responses); importing …", flush=True)
        imp = _timed_child("import", args)
        row["import_s"] = imp["import_questions_s"] + imp["import_predictions_s"]
        row["import_q_s"], row["import_p_s"] = imp["import_questions_s"], imp["import_predictions_s"]
        row["import_rss_mb"], row["import_cpu_s"] = imp["peak_rss_mb"], imp["cpu_s"]
        row["extracted"], row["valid"] = imp["extracted"], imp["valid"]
        print(f"  {_label(row['n'])}: imported in {row['import_s']:.0f} s (questions {row['import_q_s']:.0f} s, "
              f"predictions {row['import_p_s']:.0f} s; CPU {row['import_cpu_s']:.0f} s; peak RSS "
              f"{row['import_rss_mb']:.0f} MB; {row['extracted']:,} raw responses extracted, {row['valid']:,} valid); "
              "analyzing …", flush=True)
    an = _timed_child("analyze", args)
    row["analyze_s"], row["analyze_rss_mb"], row["analyze_cpu_s"] = an["analyze_s"], an["peak_rss_mb"], an["cpu_s"]
    row["db_mb"] = db.stat().st_size / 2**20
    print(f"  {_label(row['n'])}: analyzed in {row['analyze_s']:.0f} s (CPU {row['analyze_cpu_s']:.0f} s; peak RSS "
          f"{row['analyze_rss_mb']:.0f} MB); tiers: " + ", ".join(f"{b} {c:,}" for b, c in an["counts"].items()),
          flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1M,10M,100M", help="predictions per point, comma-separated (e.g. 1M,10M)")
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--workdir", type=Path, default=None, help="default: a new folder in the temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep every size's Parquet files and database")
    ap.add_argument(
        "--reuse", action="store_true", help="reuse an existing database (analyze only) or Parquet files of a size"
    )
    a = ap.parse_args()
    sizes = [parse_size(s) for s in a.sizes.split(",") if s.strip()]
    import tempfile

    root = a.workdir or Path(tempfile.mkdtemp(prefix="audit-scale-curve-"))
    root.mkdir(parents=True, exist_ok=True)
    limit = os.environ.get("AUDIT_DB_MEMORY_LIMIT", "default")
    print(f"scale curve: {', '.join(_label(n) for n in sizes)} predictions ({a.models} models); work dir {root}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start; AUDIT_DB_MEMORY_LIMIT {limit}",
          flush=True)
    global _STARTUP
    _STARTUP = startup_cpu()
    print(f"start-up of a phase (Python and imports): {_STARTUP:.1f} s CPU, subtracted from the CPU figures",
          flush=True)
    rows = []
    t0 = time.perf_counter()
    for n in sizes:
        rows.append(measure(n, a.models, root, reuse=a.reuse))
        if not a.keep:
            for p in (root / f"p{n}").glob("*.parquet"):
                p.unlink()
            if n != max(sizes):
                shutil.rmtree(root / f"p{n}", ignore_errors=True)
    print()
    print("s/M = wall seconds per million predictions (measured in the phase); cpu/M = CPU seconds (user + "
          "system, all threads, start-up subtracted) per million")
    print(f"{'predictions':>12} {'questions':>10} | {'import s':>9} {'s/M':>6} {'cpu/M':>6} {'peak MB':>8} | "
          f"{'analyze s':>9} {'s/M':>6} {'cpu/M':>6} {'peak MB':>8} | {'db MB':>7}")
    for r in rows:
        m = r["n"] / 1e6
        imp = (f"{r['import_s']:9.1f} {r['import_s'] / m:6.2f} {r['import_cpu_s'] / m:6.2f} "
               f"{r['import_rss_mb']:8.0f}" if "import_s" in r else f"{'(reused)':>9} {'':6} {'':6} {'':8}")
        print(f"{r['n']:>12,} {r['questions']:>10,} | {imp} | {r['analyze_s']:9.1f} {r['analyze_s'] / m:6.2f} "
              f"{r['analyze_cpu_s'] / m:6.2f} {r['analyze_rss_mb']:8.0f} | {r['db_mb']:7.0f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (timings on a shared machine scale with it); "
          f"total {time.perf_counter() - t0:.0f} s")
    big = max(rows, key=lambda r: r["n"])
    checks = {f"import peak RSS ≤ 3 GB at {_label(big['n'])}": big.get("import_rss_mb", 0) <= RSS_TARGET_MB,
              f"analyze peak RSS ≤ 3 GB at {_label(big['n'])}": big["analyze_rss_mb"] <= RSS_TARGET_MB}
    phases = ("import", "analyze") if all("import_s" in r for r in rows) else ("analyze",)
    # linear growth = a fixed cost (opening the file, the model set, one
    # commit) plus a cost per prediction: the marginal CPU seconds per million
    # between successive sizes stay constant, while the plain per-million
    # figure of the smallest size also carries the fixed cost
    ordered = sorted(rows, key=lambda r: r["n"])
    for ph in phases if len(rows) > 1 else ():
        marginal = [
            (b[f"{ph}_cpu_s"] - a[f"{ph}_cpu_s"]) / ((b["n"] - a["n"]) / 1e6) for a, b in zip(ordered, ordered[1:])
        ]
        print(f"{ph}: marginal CPU s per million, " + ", ".join(
            f"{_label(a['n'])} → {_label(b['n'])} {m:.2f}" for (a, b), m in zip(zip(ordered, ordered[1:]), marginal)))
        checks[f"{ph} marginal CPU s/M within 2× across sizes"] = (
            max(marginal) <= 2 * min(marginal) and min(marginal) > 0
        )
    print("targets: " + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in checks.items()))


if __name__ == "__main__":
    main()
