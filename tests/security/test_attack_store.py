"""The store: readers must not starve a writer (writer preference
across processes), and the database timeout is a finite number.

Real processes on a real database file.  The writer process times one
``add_review`` after its imports (the wait for the file and the write), then
runs ``audit review add`` through the CLI app, which must not give up.  Each reader process reads in a
loop, holding the file 0.3 s per read (as a slow page or report would), with
no pause between reads: on main three of them made ``audit review add``
give up after 30 s.  With writer preference a waiting writer's marker keeps
new reads out; the reads already in finish within 0.3 s and the writer goes
first.  The test measures the writer's wait with 1, 2 and 3 readers.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.ingest.storing import store_questions
from audit.store import connect
from audit.store.records import Option, Question
from tests.conftest import REPO, db_snapshot
from tests.support.cli_process import run_audit

ENV = {**os.environ, "PYTHONPATH": str(REPO)}

READER = """
import os, sys, time
from audit.store import connect
db, stop = sys.argv[1], sys.argv[2]
n = 0
print("reading", flush=True)
while not os.path.exists(stop):
    with connect(db, read_only=True, timeout=120) as con:
        con.execute("SELECT count(*) FROM questions").fetchall()
        time.sleep(0.3)
    n += 1
print(n, flush=True)
"""


WRITER = """
import sys, time
from typer.testing import CliRunner
from audit.cli import app
from audit.review import add_review
t0 = time.monotonic()
add_review("b", "q2", "bob", "key_correct", db=sys.argv[1])    # the library: imports done, the wait timed
waited = time.monotonic() - t0
r = CliRunner().invoke(app, ["review", "add", "--benchmark", "b", "--question", "q1", "--reviewer", "ann",
                             "--verdict", "key_correct", "--db", sys.argv[1]])
print(r.output, file=sys.stderr)
sys.exit(r.exit_code) if r.exit_code else print(f"{waited:.3f}")
"""


def _seed(db: Path) -> None:
    with connect(db) as con:
        store_questions(con, "b", "questions", [
            Question("b", f"q{i}", "x?", [Option("A", "1"), Option("B", "2")], "A") for i in range(5)])


def _writer_wait(tmp_path: Path, n_readers: int) -> tuple[int, float, str, list[int]]:
    db = tmp_path / f"s{n_readers}.duckdb"
    _seed(db)
    stop = tmp_path / f"stop{n_readers}"
    readers = [subprocess.Popen([sys.executable, "-c", READER, str(db), str(stop)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ENV) for _ in range(n_readers)]
    try:
        for r in readers:
            assert r.stdout.readline().strip() == "reading"
        time.sleep(1.5)     # the readers overlap: the file is never free between two reads
        w = subprocess.run([sys.executable, "-c", WRITER, str(db)], capture_output=True, text=True, env=ENV,
                           timeout=120)
        waited = float(w.stdout.strip().splitlines()[-1]) if w.returncode == 0 else float("inf")
    finally:
        stop.write_text("")
        outs = [r.communicate(timeout=120) for r in readers]
    reads = [int(o[0].strip().splitlines()[-1]) for o in outs]
    assert all(r.returncode == 0 for r in readers), [o[1][-300:] for o in outs]
    return w.returncode, waited, w.stdout + w.stderr, reads


@pytest.mark.slow
@pytest.mark.parametrize("n_readers", [1, 2, 3])
def test_readers_in_a_loop_do_not_starve_a_writer(tmp_path, n_readers):
    rc, waited, out, reads = _writer_wait(tmp_path, n_readers)
    print(f"writer wait with {n_readers} reader process(es) reading 0.3 s in a loop: {waited:.2f} s "
          f"(rc {rc}; reads {reads}; load {os.getloadavg()[0]:.1f})")
    assert rc == 0, out
    assert "review 2 saved" in out
    assert all(n > 0 for n in reads)
    # add_review (imports done: only the wait and the write are timed) waits for the reads already in
    # (0.3 s) plus the writer's backoff; on main the command gave up after 30 s with three readers
    assert waited < 5, waited


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_db_timeout_env_must_be_a_finite_number(db_path, value):
    _seed(db_path)
    before = db_snapshot(db_path)
    t0 = time.monotonic()
    r = run_audit(["review", "add", "--benchmark", "b", "--question", "q1",
                   "--reviewer", "ann", "--verdict", "key_correct", "--db", str(db_path)],
                  env={**ENV, "AUDIT_DB_TIMEOUT": value}, timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "AUDIT_DB_TIMEOUT must be a finite number of seconds" in lines[0], r.stderr
    assert time.monotonic() - t0 < 30
    assert db_snapshot(db_path) == before


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0])
def test_db_timeout_argument_is_checked(db_path, value):
    from audit.errors import AuditError

    with pytest.raises(AuditError, match="finite"):
        with connect(db_path, read_only=True, timeout=value):
            pass


# ---------------------------------------------------------------- further cases (our own attack)

def test_a_stale_writer_marker_delays_a_reader_at_most_two_seconds(db_path):
    """A writer killed while waiting leaves FILE.wait behind: readers ignore it
    once it is 2 s old (it is refreshed while a writer really waits)."""
    _seed(db_path)
    marker = db_path.with_name(db_path.name + ".wait")
    marker.touch()
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-c", "import sys; from audit.store import connect\n"
                        "with connect(sys.argv[1], read_only=True) as c: print(c.execute('SELECT count(*) FROM "
                        "questions').fetchone()[0])", str(db_path)], capture_output=True, text=True, env=ENV,
                       timeout=60)
    took = time.monotonic() - t0
    assert r.returncode == 0 and r.stdout.strip() == "5", r.stderr
    assert took < 15, took


def test_a_marker_that_is_a_folder_does_not_block(db_path):
    _seed(db_path)
    db_path.with_name(db_path.name + ".wait").mkdir()
    os.utime(db_path.with_name(db_path.name + ".wait"), (time.time() - 60, time.time() - 60))
    from audit.review import add_review

    add_review("b", "q1", "ann", "key_correct", db=db_path)
    with connect(db_path, read_only=True, timeout=5) as con:
        assert con.execute("SELECT count(*) FROM reviews").fetchone()[0] == 1


@pytest.mark.slow
def test_in_process_readers_let_a_foreign_writer_in(tmp_path):
    """The workbench case: one process keeps its read connection open
    (keep_reads_open) and its threads read continuously; a writer in another
    process still gets the file within seconds."""
    db = tmp_path / "k.duckdb"
    _seed(db)
    stop = tmp_path / "stop"
    app = subprocess.Popen([sys.executable, "-c", """
import os, sys, threading, time
from audit.store import connect
from audit.store.turns import keep_reads_open
keep_reads_open(30.0)
db, stop = sys.argv[1], sys.argv[2]
def loop():
    while not os.path.exists(stop):
        with connect(db, read_only=True, timeout=120) as con:
            con.execute("SELECT count(*) FROM questions").fetchall()
            time.sleep(0.3)
ts = [threading.Thread(target=loop) for _ in range(3)]
[t.start() for t in ts]
print("reading", flush=True)
[t.join() for t in ts]
""", str(db), str(stop)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        assert app.stdout.readline().strip() == "reading"
        time.sleep(1.0)
        w = subprocess.run([sys.executable, "-c", WRITER, str(db)], capture_output=True, text=True, env=ENV,
                           timeout=120)
    finally:
        stop.write_text("")
        app.communicate(timeout=120)
    assert w.returncode == 0, w.stderr
    waited = float(w.stdout.strip().splitlines()[-1])
    print(f"writer wait with one process of 3 reader threads (reads kept open): {waited:.2f} s")
    assert waited < 5, waited
