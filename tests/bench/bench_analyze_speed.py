"""Analysis near the speed of a bare scan (target: at most 4 times the scan).

    python tests/bench/bench_analyze_speed.py [--db FILE] [--questions 100000]
        [--models 100] [--repeat 3] [--old /work/main]

Prints, in one run on one database (built once with ``scale_data.py`` when
missing: 100,000 questions × 100 models = 10 M predictions, then reused):

* the bare scan: ``SELECT question_id, answer, count(*) FROM predictions
  GROUP BY question_id, answer``;
* ``analyze_benchmark`` in process (the call only, after the imports),
  median of ``--repeat``, each on a fresh copy of the database, and its
  ratio to the bare scan (target ≤ 4);
* with ``--old DIR``: the same call with the code of another checkout
  (e.g. main before the change) side by side, interleaved run by run so
  both see the same machine load, and the new/old ratio (target ≤ 1.25);
* the CLI ``audit analyze`` end to end (interpreter start-up included) and
  the CLI's start-up alone (``audit --help``).

Every timed run is a child process (``--phase``) so the codes do not mix;
the load average is printed, since the machine is shared.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
BENCHMARK = "scale"


def _cpu() -> float:
    """CPU seconds of this process, all its threads (DuckDB's too)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _phase(args) -> None:
    """Child: time one step (wall and CPU seconds) and print JSON."""
    if args.phase == "bare":
        import duckdb

        con = duckdb.connect(str(args.db), read_only=True)
        t, c = time.perf_counter(), _cpu()
        n = len(con.execute("SELECT question_id, answer, count(*) FROM predictions GROUP BY question_id, answer")
                .fetchall())
        print(json.dumps({"s": time.perf_counter() - t, "cpu": _cpu() - c, "groups": n}))
        return
    import audit
    from audit.analyze import analyze_benchmark

    t, c = time.perf_counter(), _cpu()
    s = analyze_benchmark(BENCHMARK, db=args.db)
    el, cpu = time.perf_counter() - t, _cpu() - c
    print(json.dumps({"s": el, "cpu": cpu, "counts": s.runs[0].counts, "code": str(Path(audit.__file__).parents[1])}))


def _child(phase: str, db: Path, code: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code))
    proc = subprocess.run([sys.executable, __file__, "--phase", phase, "--db", str(db)], capture_output=True,
                          text=True, env=env, cwd=str(code))
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"phase {phase} with {code} failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fresh(base: Path, work: Path) -> Path:
    for suffix in ("", ".wal", ".lock"):
        Path(str(work) + suffix).unlink(missing_ok=True)
    shutil.copyfile(base, work)
    fd = os.open(work, os.O_RDONLY)   # on disk before the timing: no write-back competing with the run
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return work


def _cli(db: Path, code: Path, *argv: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(code))
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "audit", *argv], capture_output=True, text=True, env=env,
                          cwd=str(code))
    el = time.perf_counter() - t
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"audit {' '.join(argv)} failed")
    return el


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path,
                    default=Path(tempfile.gettempdir()) / "answer-key-audit-bench" / "analyze-speed.duckdb",
                    help="the database to analyse (never written: each run gets a copy); built when missing "
                         "(default: in the temporary folder, kept for the next run)")
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--old", type=Path, default=None, help="a checkout with the code to compare with (e.g. /work/main)")
    ap.add_argument("--phase", choices=["bare", "analyze"], default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        _phase(args)
        return

    base = args.db
    base.parent.mkdir(parents=True, exist_ok=True)
    if not base.exists():
        from scale_data import build_scale_db

        print(f"building {base} ({args.questions:,} questions × {args.models} models) …", flush=True)
        build_scale_db(base, args.questions, args.models, workdir=base.parent / f"{base.stem}_parquet")
    work = base.parent / f"{base.stem}.bench-copy.duckdb"
    import duckdb

    # a private copy migrated once with this checkout's code, so no timed run
    # pays a schema migration (the database given is never written)
    migrated = base.parent / f"{base.stem}.bench-migrated.duckdb"
    subprocess.run([sys.executable, "-c", "import sys; from audit.store import init_db; init_db(sys.argv[1])",
                    str(_fresh(base, migrated))], check=True, env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=str(REPO))
    base = migrated

    with duckdb.connect(str(base), read_only=True) as con:
        n_pred, n_q = con.execute("SELECT count(*), count(DISTINCT question_id) FROM predictions").fetchall()[0]
    print(f"analyze speed: {n_q:,} questions, {n_pred:,} predictions ({base}); {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start")

    bare, new, old = [], [], []
    cpu: dict[str, list[float]] = {"bare": [], "new": [], "old": []}
    counts_new = counts_old = None
    for r in range(args.repeat):      # interleaved, so every variant sees the same load
        out = _child("bare", base, REPO)
        bare.append(out["s"])
        cpu["bare"].append(out["cpu"])
        out = _child("analyze", _fresh(base, work), REPO)
        new.append(out["s"])
        cpu["new"].append(out["cpu"])
        counts_new = out["counts"]
        if args.old:
            out = _child("analyze", _fresh(base, work), args.old)
            old.append(out["s"])
            cpu["old"].append(out["cpu"])
            counts_old = out["counts"]
        print(f"  run {r + 1}: bare {bare[-1]:.2f} s, analyze {new[-1]:.2f} s"
              + (f", old analyze {old[-1]:.2f} s" if old else "") + f" (load {os.getloadavg()[0]:.1f})", flush=True)
    mb, mn = statistics.median(bare), statistics.median(new)
    fmt = lambda xs: ", ".join(f"{x:.2f}" for x in xs)  # noqa: E731
    print(f"bare GROUP BY question_id, answer   {mb:6.2f} s   (median of {fmt(bare)})")
    print(f"analyze_benchmark in process        {mn:6.2f} s   (median of {fmt(new)})")
    print(
        f"ratio analyze / bare scan           {mn / mb:6.2f}     (target ≤ 4: {'met' if mn / mb <= 4 else 'NOT met'})"
    )
    cb, cn = statistics.median(cpu["bare"]), statistics.median(cpu["new"])
    print(f"CPU seconds (all threads; less sensitive to the load): bare {cb:.2f}, analyze {cn:.2f}, "
          f"ratio {cn / cb:.2f}" + (f"; old analyze {statistics.median(cpu['old']):.2f}" if cpu["old"] else ""))
    if old:
        mo = statistics.median(old)
        print(f"old analyze_benchmark ({args.old})  {mo:6.2f} s   (median of {fmt(old)})")
        print(f"ratio new / old                     {mn / mo:6.2f}     (target ≤ 1.25: "
              f"{'met' if mn / mo <= 1.25 else 'NOT met'}; same tier counts: {counts_new == counts_old})")
    cli = _cli(_fresh(base, work), REPO, "analyze", "--benchmark", BENCHMARK, "--db", str(work))
    start = _cli(_fresh(base, work), REPO, "--help")
    print(f"audit analyze (CLI, end to end)     {cli:6.2f} s   (the CLI's start-up alone, audit --help: {start:.2f} s)")
    print(f"tiers: {', '.join(f'{b} {n:,}' for b, n in (counts_new or {}).items() if n)}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (timings on a shared machine scale with it)")
    for path in (work, migrated):
        for suffix in ("", ".wal", ".lock"):
            Path(str(path) + suffix).unlink(missing_ok=True)


if __name__ == "__main__":
    main()
