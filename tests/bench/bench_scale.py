"""Scale benchmark: 100,000 questions × 100 models.

    python tests/bench/bench_scale.py [--questions 100000] [--models 100] [--workdir DIR] [--sample 2000]

Steps, each figure printed:
1. generate the data deterministically and write Parquet (scale_data.py);
2. import it with the real importers (``import_questions``,
   ``import_predictions`` long layout; 10% of the predictions are raw
   responses extracted on import) — in a child process, with its peak RSS
   (VmHWM, or ``resource.getrusage`` where /proc is missing);
3. ``analyze`` end to end (open the file, tier every question, write runs,
   results and lint, commit) — in its own child process, timed and with its
   peak RSS;
4. the reference: a straightforward per-question Python loop implementing
   the same tier rule, run on an evenly spaced sample of questions, scaled
   to all questions, checked to give the same tiers as ``analyze`` on the
   sample, and the speed ratio printed.

Targets: analyze ≤ 10 s, its peak RSS ≤ 3 GB, ≥ 50× faster than the loop.
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
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BENCHMARK = "scale"


def peak_rss_kb() -> int:
    """This process's peak RSS in KiB: VmHWM from /proc (reset by exec, so a
    child does not inherit its parent's high-water mark the way ru_maxrss
    does on Linux), else ``resource.getrusage(RUSAGE_SELF).ru_maxrss``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(phase: str, args) -> dict:
    """Run one phase in a fresh interpreter; return its JSON figures, including
    its own peak RSS (read in the child at the end, see :func:`peak_rss_kb`)."""
    proc = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--db", str(args.db), "--workdir", str(args.workdir),
         "--questions", str(args.questions), "--models", str(args.models)],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"phase {phase} failed")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["peak_rss_mb"] = out["self_rss_kb"] / 1024  # KiB on Linux
    return out


def phase_import(args) -> dict:
    from audit.ingest import import_predictions, import_questions

    wd = Path(args.workdir)
    t = time.perf_counter()
    import_questions(wd / "questions.parquet", benchmark=BENCHMARK, db=args.db)
    t_q = time.perf_counter() - t
    t = time.perf_counter()
    s = import_predictions(wd / "predictions.parquet", benchmark=BENCHMARK, layout="long", db=args.db, progress=False)
    t_p = time.perf_counter() - t
    return {"import_questions_s": t_q, "import_predictions_s": t_p, "predictions": s.predictions, "valid": s.valid,
            "extracted": s.extracted}


def phase_analyze(args) -> dict:
    from audit.analyze import analyze_benchmark

    t = time.perf_counter()
    s = analyze_benchmark(BENCHMARK, db=args.db)
    elapsed = time.perf_counter() - t
    run = s.runs[0]
    return {"analyze_s": elapsed, "run_id": run.run_id, "counts": run.counts, "n_models": run.n_models,
            "n_questions": run.n_questions}


# ----------------------------------------------------------- the reference


def reference_loop(rows, keys, labels, families, n_models):
    """Per question: count the non-key answers, rank, apply the tier rule.
    ``rows``: (question_id, model, answer, valid) tuples."""
    by_q = defaultdict(list)
    for qid, model, answer, valid in rows:
        by_q[qid].append((model, answer, valid))
    tiers = {}
    for qid, key in keys.items():
        voters = defaultdict(list)
        for model, answer, valid in by_q.get(qid, ()):
            if valid and answer is not None and answer in labels[qid] and answer != key:
                voters[answer].append(model)
        if not voters:
            tiers[qid] = 0
            continue
        top = min(voters, key=lambda a: (-len(voters[a]), -len({families[m] for m in voters[a]}), a))
        c, f = len(voters[top]), len({families[m] for m in voters[top]})
        if c >= n_models:
            tiers[qid] = 1
        elif c >= n_models - 1:
            tiers[qid] = 2
        elif c >= 2 and f >= 2:
            tiers[qid] = 3
        elif c >= 2:
            tiers[qid] = 4
        else:
            tiers[qid] = 5
    return tiers


def _tier(c, f, n_models):
    if c == 0:
        return 0
    if c >= n_models:
        return 1
    if c >= n_models - 1:
        return 2
    if c >= 2:
        return 3 if f >= 2 else 4
    return 5


def pandas_loop(df, keys, labels, families, n_models):
    """The straightforward script: a DataFrame of predictions, one group
    per question, pandas selections and a ranking per question."""
    tiers = {qid: 0 for qid in keys}
    for qid, g in df.groupby("question_id", sort=False):
        key = keys[qid]
        wrong = g[g["valid"] & g["answer"].isin(labels[qid]) & (g["answer"] != key)]
        if wrong.empty:
            continue
        voters = wrong.groupby("answer")["model"].agg(list)
        ranked = sorted(voters.items(), key=lambda kv: (-len(kv[1]), -len({families[m] for m in kv[1]}), kv[0]))
        top_models = ranked[0][1]
        tiers[qid] = _tier(len(top_models), len({families[m] for m in top_models}), n_models)
    return tiers


def run_reference(args, run_id: int) -> dict:
    import duckdb

    con = duckdb.connect(str(args.db), read_only=True)
    try:
        step = max(1, args.questions // args.sample)
        qrows = con.execute(
            "SELECT question_id, answer_key, [o.label FOR o IN options] FROM questions "
            "WHERE benchmark = ? AND seq % ? = 0 ORDER BY seq", [BENCHMARK, step]).fetchall()
        sample = [r[0] for r in qrows]
        keys = {r[0]: r[1] for r in qrows}
        labels = {r[0]: set(r[2]) for r in qrows}
        families = dict(con.execute("SELECT name, family FROM models").fetchall())
        con.execute("CREATE TEMP TABLE _sample AS SELECT unnest(?::VARCHAR[]) AS question_id", [sample])
        t = time.perf_counter()
        rows = con.execute(
            "SELECT question_id, model, answer, valid FROM predictions WHERE benchmark = ? "
            "AND question_id IN (SELECT question_id FROM _sample)", [BENCHMARK]).fetchall()
        t_fetch = time.perf_counter() - t
        t = time.perf_counter()
        tiers = reference_loop(rows, keys, labels, families, args.models)
        t_loop = time.perf_counter() - t
        t = time.perf_counter()
        df = con.execute(
            "SELECT question_id, model, answer, valid FROM predictions WHERE benchmark = ? "
            "AND question_id IN (SELECT question_id FROM _sample)", [BENCHMARK]).df()
        t_fetch_df = time.perf_counter() - t
        t = time.perf_counter()
        tiers_pd = pandas_loop(df, keys, labels, families, args.models)
        t_pandas = time.perf_counter() - t
        sql = dict(con.execute(
            "SELECT question_id, tier FROM audit_results WHERE run_id = ? AND question_id IN "
            "(SELECT question_id FROM _sample)", [run_id]).fetchall())
    finally:
        con.close()
    mismatches = sum(1 for q in sample if sql.get(q) != tiers[q] or sql.get(q) != tiers_pd[q])
    scale = args.questions / len(sample)
    return {"sample": len(sample), "fetch_s": t_fetch, "loop_s": t_loop, "scale": scale,
            "loop_full_s": t_loop * scale, "fetch_loop_full_s": (t_fetch + t_loop) * scale,
            "fetch_df_s": t_fetch_df, "pandas_s": t_pandas, "pandas_full_s": t_pandas * scale,
            "fetch_pandas_full_s": (t_fetch_df + t_pandas) * scale, "mismatches": mismatches}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--sample", type=int, default=2_000, help="questions the reference loop runs on")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--phase", choices=["import", "analyze"], default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.phase:
        out = phase_import(args) if args.phase == "import" else phase_analyze(args)
        out["self_rss_kb"] = peak_rss_kb()
        print(json.dumps(out))
        return

    from scale_data import generate_parquet

    args.workdir = args.workdir or Path(tempfile.mkdtemp(prefix="audit-scale-"))
    args.db = args.db or args.workdir / "scale.duckdb"
    for suffix in ("", ".wal"):
        Path(str(args.db) + suffix).unlink(missing_ok=True)
    print(f"scale benchmark: {args.questions:,} questions × {args.models} models "
          f"= {args.questions * args.models:,} predictions; work dir {args.workdir}; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start")

    info = generate_parquet(args.workdir, args.questions, args.models)
    size = sum(p.stat().st_size for p in args.workdir.glob("*.parquet")) / 2**20
    print(f"generate + write Parquet   {info['generate_s']:8.1f} s   ({size:.0f} MB; {info['n_raw']:,} raw responses, "
          f"{info['n_wrong_keys']:,} injected wrong keys)")

    imp = _child("import", args)
    print(f"import questions           {imp['import_questions_s']:8.1f} s")
    print(f"import predictions         {imp['import_predictions_s']:8.1f} s   ({imp['predictions']:,} rows, "
          f"{imp['extracted']:,} extracted, {imp['valid']:,} valid; import peak RSS {imp['peak_rss_mb']:.0f} MB)")

    an = _child("analyze", args)
    print(f"analyze (end to end)       {an['analyze_s']:8.2f} s   (peak RSS {an['peak_rss_mb']:.0f} MB of the analyze "
          f"process, Python and imports included)")
    print("  tiers: " + ", ".join(f"{b} {n:,}" for b, n in an["counts"].items()))

    ref = run_reference(args, an["run_id"])
    same = "yes" if ref["mismatches"] == 0 else f"NO ({ref['mismatches']} differ)"
    print(f"reference loops on an evenly spaced sample of {ref['sample']:,} questions, scaled ×{ref['scale']:.0f} "
          f"(tiers identical to analyze on the sample: {same}):")
    print(f"  per-question pandas loop   {ref['pandas_s']:8.2f} s on the sample → {ref['pandas_full_s']:8.1f} s "
          f"(+ DataFrame fetch: {ref['fetch_pandas_full_s']:.1f} s)   analyze is "
          f"×{ref['pandas_full_s'] / an['analyze_s']:.0f} faster (×{ref['fetch_pandas_full_s'] / an['analyze_s']:.0f} "
          "with the fetch)")
    print(f"  tuned dict loop            {ref['loop_s']:8.2f} s on the sample → {ref['loop_full_s']:8.1f} s "
          f"(+ tuple fetch: {ref['fetch_loop_full_s']:.1f} s)   analyze is ×{ref['loop_full_s'] / an['analyze_s']:.1f} "
          f"faster (×{ref['fetch_loop_full_s'] / an['analyze_s']:.0f} with the fetch)")
    ratio = ref["pandas_full_s"] / an["analyze_s"]
    checks = {
        "analyze ≤ 10 s": an["analyze_s"] <= 10,
        "peak RSS ≤ 3 GB": an["peak_rss_mb"] <= 3 * 1024,
        "≥ 50× the per-question pandas loop": ratio >= 50,
        "same tiers": ref["mismatches"] == 0,
    }
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (timings on a shared machine scale with it)")
    print("targets: " + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in checks.items()))


if __name__ == "__main__":
    main()
