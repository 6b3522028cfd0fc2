"""Scale benchmark for ``import questions`` and ``import predictions``.

Generates 100,000 questions (2–6 options) and 10,000,000 predictions
(100 models × 100,000 questions; 10% as raw responses that need extraction,
90% as given letters) as Parquet, then imports them into a fresh DuckDB
file.  Each import runs in a child process so its peak RSS is measured
alone.  Prints wall and CPU time (the CPU time is the steadier figure on a
shared machine) and peak RSS.

    python tests/bench/bench_import_predictions.py [--questions 100000] [--models 100] [--workdir DIR]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

RESPONSES = [  # raw-response templates ({L} = the chosen letter)
    "The answer is {L}.",
    "<think>Option A looks plausible, but B is wrong and so is D.</think> Answer: ({L})",
    "**{L}**",
    "བསམ་ཚུལ་ལྟར་ན་ལན་ནི་ {L} ཡིན།",
    "After checking every option, I choose {L} because it is the only consistent one.",
    "I am not sure.",
]


def generate(workdir: Path, n_questions: int, n_models: int) -> tuple[Path, Path]:
    q_path, p_path = workdir / "questions.parquet", workdir / "predictions.parquet"
    con = duckdb.connect()
    con.execute(f"""
        COPY (
          SELECT 'q' || lpad(i::VARCHAR, 6, '0') AS id,
                 'Synthetic question number ' || i || '?' AS question,
                 [('option ' || j || ' of ' || i) FOR j IN range(2 + (i % 5))] AS options,
                 'ABCDEF'[1 + (hash(i) % (2 + (i % 5)))::INTEGER] AS answer,
                 'subject' || (i % 50) AS subject
          FROM range({n_questions}) t(i)
        ) TO '{q_path}' (FORMAT parquet)""")
    templates = "[" + ", ".join("'" + r.replace("'", "''") + "'" for r in RESPONSES) + "]"
    con.execute(f"""
        COPY (
          WITH m AS (SELECT m, ['anthropic','google','openai','meta','qwen','mistralai','deepseek','writer'][1 + m % 8]
                               || '_model-' || m AS model FROM range({n_models}) t(m)),
               q AS (SELECT i, 'q' || lpad(i::VARCHAR, 6, '0') AS question_id, 2 + (i % 5) AS k
                     FROM range({n_questions}) t(i))
          SELECT question_id, model,
                 CASE WHEN h % 10 = 0 THEN replace({templates}[1 + ((h // 10) % {len(RESPONSES)})::INTEGER],
                                                   '{{L}}', letter) END AS response,
                 CASE WHEN h % 10 <> 0 THEN (CASE WHEN h % 97 = 1 THEN 'n/a' ELSE letter END) END AS answer
          FROM (SELECT q.question_id, m.model, hash(q.i, m.m) AS h,
                       'ABCDEF'[1 + (hash(q.i * 7 + m.m) % q.k)::INTEGER] AS letter
                FROM q CROSS JOIN m)
        ) TO '{p_path}' (FORMAT parquet, ROW_GROUP_SIZE 122880)""")
    con.close()
    return q_path, p_path


CHILD = """
import json, resource, sys, time
from audit.ingest import import_questions, import_predictions
kind, path, db = sys.argv[1:4]
t = time.perf_counter()
r0 = resource.getrusage(resource.RUSAGE_SELF)
if kind == "questions":
    s = import_questions(path, benchmark="scale", db=db)
elif kind == "wide":
    s = import_predictions(path, benchmark="scale", layout="wide", run="wide", db=db, progress=False)
else:
    s = import_predictions(path, benchmark="scale", db=db, progress=False)
dt = time.perf_counter() - t
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(json.dumps({"seconds": dt, "cpu": cpu, "summary": str(s),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_child(kind: str, path: Path, db: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(path), str(db)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--wide", action="store_true", help="also time the same data in the wide layout")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="audit-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    q_path, p_path = generate(workdir, args.questions, args.models)
    n = args.questions * args.models
    print(f"generated {args.questions:,} questions and {n:,} predictions in {time.perf_counter() - t:.1f} s "
          f"({p_path.stat().st_size / 1e6:.0f} MB Parquet) in {workdir}")
    db = workdir / "bench.duckdb"
    db.unlink(missing_ok=True)
    q = run_child("questions", q_path, db)
    print(
        f"import questions:   {q['seconds']:6.1f} s wall, {q['cpu']:6.1f} s CPU, "
        f"peak RSS {q['peak_rss_mb']:6.0f} MB  | {q['summary']}"
    )
    p = run_child("predictions", p_path, db)
    print(
        f"import predictions: {p['seconds']:6.1f} s wall, {p['cpu']:6.1f} s CPU, "
        f"peak RSS {p['peak_rss_mb']:6.0f} MB  | {p['summary']}"
    )
    print(f"throughput: {n / p['seconds'] / 1e6:.2f} M predictions/s")
    p2 = run_child("predictions", p_path, db)
    print(
        f"re-import (replace): {p2['seconds']:5.1f} s wall, {p2['cpu']:6.1f} s CPU, "
        f"peak RSS {p2['peak_rss_mb']:6.0f} MB"
    )
    con = duckdb.connect(str(db), read_only=True)
    print("rows in predictions after re-import:", con.execute("SELECT count(*) FROM predictions").fetchall()[0][0])
    con.close()
    if args.wide:
        # The same letters as a wide file (question_id + one column per model), unpivoted in SQL on import.
        w_path = workdir / "wide.parquet"
        gen = duckdb.connect()
        gen.execute(f"COPY (PIVOT (SELECT question_id, model, answer FROM read_parquet('{p_path}')) ON model "
                    f"USING first(answer) GROUP BY question_id) TO '{w_path}' (FORMAT parquet)")
        gen.close()
        w = run_child("wide", w_path, db)
        print(f"import wide ({args.questions:,} rows x {args.models} model columns): {w['seconds']:5.1f} s wall, "
              f"{w['cpu']:6.1f} s CPU, peak RSS {w['peak_rss_mb']:6.0f} MB  | {w['summary']}")


if __name__ == "__main__":
    main()
