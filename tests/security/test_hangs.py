"""Work that grows with the number of models, names or files grows
linearly: the look-alike check goes through an index (not every new name
against every known one), report sections scale with the models or say
that they are skipped, and a folder of small files costs about what one
file with the same rows costs.

Each case is scaled to fail within seconds on the code that compared every
pair (measured before: 10,000 models: 112 s to import, ``report`` not
done after 240 s; 3,000 one-row files: 75 s) and to pass in a fraction of
its deadline once linear.  The setup runs in a child process before the
clock starts; the timed step is killed at its deadline.  The full-size
figures are in ``tests/bench/bench_security_scale.py``."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests._attack import REPO

pytestmark = pytest.mark.slow


def timed(setup: str, step: str, deadline: float, tmp_path) -> float:
    """Run ``setup`` then ``step`` in a child (``d`` is a fresh folder);
    return the step's seconds, or fail when it is not done within
    ``deadline`` seconds (the child is killed)."""
    code = textwrap.dedent("""
        import sys, time
        from pathlib import Path
        d = Path(sys.argv[1])
    """) + textwrap.dedent(setup) + textwrap.dedent("""
        print("ready", flush=True)
        t0 = time.perf_counter()
    """) + textwrap.dedent(step) + textwrap.dedent("""
        print("done", time.perf_counter() - t0, flush=True)
    """)
    script = tmp_path / "child.py"
    script.write_text(code)
    p = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        line = p.stdout.readline()
        if line.strip() != "ready":
            p.wait(30)
            pytest.fail("setup failed: " + p.stderr.read()[-1500:])
        try:
            out, err = p.communicate(timeout=deadline)
        except subprocess.TimeoutExpired:
            out = None
        if out is None:
            pytest.fail(f"not done within {deadline:g} s (killed)", pytrace=False)
        assert p.returncode == 0, err[-1500:]
        seconds = float(out.split()[-1])
        assert seconds <= deadline, f"{seconds:.1f} s > {deadline:g} s"
        return seconds
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


QUESTIONS = """
from audit.ingest import import_questions
db = d / "t.duckdb"
(d / "q.csv").write_text("id,question,A,B,C,D,answer\\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\\n" for i in range(10)))
import_questions(d / "q.csv", benchmark="b", db=db)
"""


# ---------------------------------------------------------------- the reported cases

def test_importing_many_new_model_names_is_linear(tmp_path):
    """2,000 new model names (before: 10,000 took 112 s; quadratic)."""
    setup = QUESTIONS + """
from audit.ingest import import_predictions
n = 2000
(d / "p.csv").write_text("question_id,model,answer\\n" + "".join(f"q{j % 10},model-{j:06d},B\\n" for j in range(n)))
"""
    timed(setup, 'import_predictions(d / "p.csv", benchmark="b", db=db)', 6.0, tmp_path)


def test_registering_an_in_place_parquet_with_many_models_is_linear(tmp_path):
    """The in-place form (before: 333,000 models never finished)."""
    setup = QUESTIONS + """
import pyarrow as pa, pyarrow.parquet as pq
from audit.ingest import register_predictions_in_place
n = 2000
pq.write_table(pa.table({"question_id": [f"q{j % 10}" for j in range(n)], "model": [f"model-{j:06d}" for j in range(n)],
                         "answer": ["B"] * n}), d / "p.parquet")
"""
    timed(setup, 'register_predictions_in_place(d / "p.parquet", benchmark="b", db=db)', 6.0, tmp_path)


def test_report_with_many_models_answers_in_time(tmp_path):
    """300 models (before: 10,000 did not finish in 240 s; the pairwise
    sections grow with the square).  The report must still name every model
    in its per-model sections."""
    setup = """
import random
from audit.ingest import import_questions, import_predictions
from audit.analyze import analyze_benchmark
db = d / "t.duckdb"
n, q = 300, 20
random.seed(1)
(d / "q.csv").write_text("id,question,A,B,C,D,answer\\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\\n" for i in range(q)))
import_questions(d / "q.csv", benchmark="b", db=db)
(d / "p.csv").write_text("question_id," + ",".join(f"m{j:05d}" for j in range(n)) + "\\n"
    + "".join(f"q{i}," + ",".join(random.choice("AABCD") for j in range(n)) + "\\n" for i in range(q)))
import_predictions(d / "p.csv", benchmark="b", db=db, layout="wide")
analyze_benchmark("b", db=db)
from audit.report import benchmark_report
"""
    step = """
text = benchmark_report("b", db=db)
assert all(f"m{j:05d}" in text for j in range(n)), "a model is missing from the report"
"""
    timed(setup, step, 15.0, tmp_path)


def test_a_folder_of_one_row_files_costs_about_one_file(tmp_path):
    """400 one-row question files against one file of 400 rows (before:
    3,000 files took 75 s, 25 ms a file: a new DuckDB connection per file
    and every file read twice)."""
    setup = """
import time
from audit.ingest import import_questions
n = 400
(d / "one").mkdir(); (d / "many").mkdir()
(d / "one" / "all.csv").write_text("id,question,A,B,answer\\n" + "".join(f"x{i},Q{i}?,a,b,A\\n" for i in range(n)))
for i in range(n):
    (d / "many" / f"s{i:04d}.csv").write_text(f"id,question,A,B,answer\\nx{i},Q{i}?,a,b,A\\n")
t = time.perf_counter(); import_questions(d / "one", benchmark="one", db=d / "t.duckdb"); one = time.perf_counter() - t
print("one", one, file=sys.stderr)
"""
    step = 'import_questions(d / "many", benchmark="many", db=d / "t.duckdb")'
    timed(setup, step, 8.0, tmp_path)


# ---------------------------------------------------------------- further cases of our own

def test_models_import_of_many_rows_is_linear(tmp_path):
    """``audit models import`` ran one statement per row (4 ms a row:
    100,000 rows took minutes)."""
    setup = """
from audit.store import init_db
from audit.ingest import import_models
db = d / "t.duckdb"; init_db(db)
(d / "m.csv").write_text("name,family\\n" + "".join(f"mod-{i:06d},fam{i % 7}\\n" for i in range(3000)))
"""
    timed(setup, 'import_models(d / "m.csv", db=db)', 4.0, tmp_path)


def test_many_new_model_names_in_a_wide_file_are_linear(tmp_path):
    """The wide layout (one column per model): the same check, another path."""
    setup = QUESTIONS + """
from audit.ingest import import_predictions
n = 2000
(d / "p.csv").write_text("question_id," + ",".join(f"m{j:05d}" for j in range(n)) + "\\n"
    + "".join(f"q{i}," + ",".join("B" for j in range(n)) + "\\n" for i in range(3)))
"""
    timed(setup, 'import_predictions(d / "p.csv", benchmark="b", db=db, layout="wide")', 6.0, tmp_path)


def test_look_alike_names_among_many_are_still_found(tmp_path):
    """The correct result the index must keep: among 2,000 known models a
    Cyrillic look-alike of one of them is still refused."""
    setup = QUESTIONS + """
from audit.ingest import import_predictions
import audit
n = 2000
(d / "p.csv").write_text("question_id,model,answer\\n" + "".join(f"q{j % 10},model-{j:06d},B\\n" for j in range(n)))
import_predictions(d / "p.csv", benchmark="b", db=db)
(d / "p2.csv").write_text("question_id,model,answer\\nq1,m\\u043edel-001234,B\\n", encoding="utf-8")
"""
    step = """
try:
    import_predictions(d / "p2.csv", benchmark="b", db=db)
except audit.InputError as e:
    assert "looks like the existing name 'model-001234'" in str(e), str(e)
else:
    raise AssertionError("the look-alike was accepted")
"""
    timed(setup, step, 6.0, tmp_path)
