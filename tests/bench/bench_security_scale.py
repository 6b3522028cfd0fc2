"""Full-size timings behind ``tests/security/test_hangs.py``: the targets of
the hostile-input round on names, reports and folders, each with its budget.

* ``names``: importing 100,000 new model names (long predictions file,
  one row per model) — budget 10 s;
* ``in-place``: registering an in-place Parquet holding 100,000 models —
  budget 10 s;
* ``models-file``: ``import_models`` of 100,000 rows — budget 10 s;
* ``report``: ``benchmark_report`` of a run with 10,000 models — budget 30 s
  (the per-model sections must name every model; pairwise sections scale
  or say they are skipped);
* ``folder``: a folder of 3,000 one-row question files against one file of
  3,000 rows — budget 3x the one file plus 5 s.

Each step runs in a child process killed at twice its budget, so a
quadratic step reports "killed" instead of running for hours.  Usage::

    PYTHONPATH=. python3 tests/bench/bench_security_scale.py [STEP ...]
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

QUESTIONS = """
from audit.ingest import import_questions
db = d / "t.duckdb"
(d / "q.csv").write_text("id,question,A,B,C,D,answer\\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\\n" for i in range(20)))
import_questions(d / "q.csv", benchmark="b", db=db)
"""

STEPS: dict[str, tuple[str, str, float]] = {
    "names": (QUESTIONS + """
from audit.ingest import import_predictions
n = 100_000
(d / "p.csv").write_text("question_id,model,answer\\n" + "".join(f"q{j % 20},model-{j:06d},B\\n" for j in range(n)))
""", 'import_predictions(d / "p.csv", benchmark="b", db=db, progress=False)', 10.0),
    "in-place": (QUESTIONS + """
import pyarrow as pa, pyarrow.parquet as pq
from audit.ingest import register_predictions_in_place
n = 100_000
pq.write_table(pa.table({"question_id": [f"q{j % 20}" for j in range(n)], "model": [f"model-{j:06d}" for j in range(n)],
                         "answer": ["B"] * n}), d / "p.parquet")
""", 'register_predictions_in_place(d / "p.parquet", benchmark="b", db=db)', 10.0),
    "models-file": ("""
from audit.store import init_db
from audit.ingest import import_models
db = d / "t.duckdb"; init_db(db)
(d / "m.csv").write_text("name,family\\n" + "".join(f"mod-{i:06d},fam{i % 7}\\n" for i in range(100_000)))
""", 'import_models(d / "m.csv", db=db)', 10.0),
    "report": ("""
import random
import pyarrow as pa, pyarrow.parquet as pq
from audit.ingest import import_questions, import_predictions
from audit.analyze import analyze_benchmark
from audit.report import benchmark_report
db = d / "t.duckdb"
n, q = 10_000, 50
random.seed(1)
(d / "q.csv").write_text("id,question,A,B,C,D,answer\\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\\n" for i in range(q)))
import_questions(d / "q.csv", benchmark="b", db=db)
pq.write_table(pa.table({"question_id": [f"q{i}" for j in range(n) for i in range(q)],
                         "model": [f"m{j:05d}" for j in range(n) for i in range(q)],
                         "answer": [random.choice("AABCD") for _ in range(n * q)]}), d / "p.parquet")
import_predictions(d / "p.parquet", benchmark="b", db=db, progress=False)
analyze_benchmark("b", db=db)
""", """
text = benchmark_report("b", db=db)
assert all(f"m{j:05d}" in text for j in range(n))
""", 30.0),
    "folder": ("""
import time
from audit.ingest import import_questions
n = 3000
(d / "one").mkdir(); (d / "many").mkdir()
(d / "one" / "all.csv").write_text("id,question,A,B,answer\\n" + "".join(f"x{i},Q{i}?,a,b,A\\n" for i in range(n)))
for i in range(n):
    (d / "many" / f"s{i:04d}.csv").write_text(f"id,question,A,B,answer\\nx{i},Q{i}?,a,b,A\\n")
t = time.perf_counter(); import_questions(d / "one", benchmark="one", db=d / "t.duckdb")
print("one-file", time.perf_counter() - t, flush=True)
""", 'import_questions(d / "many", benchmark="many", db=d / "t.duckdb")', 0.0),
}


def run_step(name: str) -> tuple[str, str]:
    setup, step, budget = STEPS[name]
    d = Path(tempfile.mkdtemp(prefix=f"bench_security_{name}_"))
    code = ("import sys, time\nfrom pathlib import Path\nd = Path(sys.argv[1])\n" + textwrap.dedent(setup)
            + "\nprint('ready', flush=True)\nt0 = time.perf_counter()\n" + textwrap.dedent(step)
            + "\nprint('done', time.perf_counter() - t0, flush=True)\n")
    (d / "child.py").write_text(code)
    p = subprocess.Popen([sys.executable, str(d / "child.py"), str(d)], stdout=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    one = None
    for line in p.stdout:
        if line.startswith("one-file"):
            one = float(line.split()[1])
        if line.strip() == "ready":
            break
    if budget == 0.0:
        budget = 3 * (one or 1.0) + 5.0
    t0 = time.monotonic()
    try:
        out, _ = p.communicate(timeout=2 * budget)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return f"killed after {time.monotonic() - t0:.0f} s", f"budget {budget:.1f} s: FAIL"
    if p.returncode:
        return "error", f"exit {p.returncode}"
    secs = float(out.split()[-1])
    return f"{secs:.2f} s", f"budget {budget:.1f} s: {'ok' if secs <= budget else 'FAIL'}"


def main(names: list[str]) -> None:
    for name in names or list(STEPS):
        took, verdict = run_step(name)
        print(f"{name:12s} {took:>22s}   {verdict}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
