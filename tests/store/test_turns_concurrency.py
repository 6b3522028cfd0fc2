"""The case "writers wait": real processes on a real database file.

* 10 processes × 100 ``audit.review.add_review`` with no retry of their own
  give exactly 1,000 rows and 0 errors;
* a writer that finds the file held prints "waiting for the database (held
  by …)" after 2 s and succeeds once it is free; it gives up with a clear
  error after the configured timeout;
* readers never wait on readers (threads share one read connection);
* a CLI import finishes while app-like reader threads keep reading, and none
  of them sees an error.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from audit.ingest.storing import store_questions
from audit.store import connect
from audit.store.records import Option, Question
from tests.conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _seed(db: Path, n: int = 10) -> None:
    with connect(db) as con:
        store_questions(con, "b", "questions", [
            Question("b", f"q{i}", "x?", [Option("A", "1"), Option("B", "2")], "A") for i in range(n)])


WRITER = """
import sys
from audit.review import add_review
errors = 0
for i in range(100):
    try:
        add_review("b", "q" + str(i % 10), "r" + sys.argv[1], "key_correct", db=sys.argv[2],
                   revision=True)   # a reviewer's later verdicts on an item are revisions
    except Exception as exc:
        errors += 1
        print(type(exc).__name__, exc, file=sys.stderr)
print(errors)
"""


@pytest.mark.slow
def test_ten_processes_times_hundred_verdicts(tmp_path):
    db = tmp_path / "c.duckdb"
    _seed(db)
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(k), str(db)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**ENV, "AUDIT_DB_TIMEOUT": "120"})
             for k in range(10)]
    outs = [p.communicate(timeout=900) for p in procs]
    elapsed = time.monotonic() - t0
    errors = [int(o[0].strip() or -1) for o in outs]
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT count(*), count(DISTINCT review_id) FROM reviews").fetchone()
        per = dict(con.execute("SELECT reviewer, count(*) FROM reviews GROUP BY 1").fetchall())
    print(f"10 x 100 add_review: {rows[0]} rows, {sum(errors)} errors, {elapsed:.1f} s, load {os.getloadavg()[0]:.1f}")
    assert errors == [0] * 10, [o[1][-500:] for o in outs]
    assert rows == (1000, 1000)
    assert per == {f"r{k}": 100 for k in range(10)}


HOLDER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


@pytest.mark.slow
def test_writer_waits_with_a_message_then_succeeds(tmp_path):
    """The holder is killed only once the waiting line has appeared: the
    command then goes on and saves the verdict."""
    db = tmp_path / "w.duckdb"
    _seed(db)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "120"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        cli = subprocess.Popen([sys.executable, "-m", "audit.cli", "review", "add", "--benchmark", "b", "--question",
                                "q1", "--reviewer", "ann", "--verdict", "key_correct", "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        first = cli.stderr.readline()
        t_line = time.monotonic()
        holder.kill()
        out, rest = cli.communicate(timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert first.startswith("waiting for the database "), first + rest
    assert f"(held by PID {holder.pid}: python" in first and "giving up after 30 s" in first, first
    assert cli.returncode == 0, rest
    assert "review 1 saved" in out
    assert time.monotonic() - t_line < 30


@pytest.mark.slow
def test_writer_gives_up_after_the_timeout(tmp_path):
    db = tmp_path / "t.duckdb"
    _seed(db)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), "30"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "audit.cli", "review", "add", "--benchmark", "b", "--question",
                            "q1", "--reviewer", "ann", "--verdict", "key_correct", "--db", str(db)],
                           capture_output=True, text=True, env={**ENV, "AUDIT_DB_TIMEOUT": "3"}, timeout=120)
        waited = time.monotonic() - t0
    finally:
        holder.kill()
        holder.wait()
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the database ") and f"in use by PID {holder.pid}" in last, r.stderr
    assert "gave up after waiting 3 s" in last
    assert 3 <= waited < 60


def test_readers_never_wait_on_readers(tmp_path):
    """Two threads inside read blocks at the same time: the second does not
    wait for the first to finish (one shared read-only connection)."""
    db = tmp_path / "r.duckdb"
    _seed(db)
    inside = threading.Event()
    release = threading.Event()
    got: list[int] = []

    def slow_reader():
        with connect(db, read_only=True) as con:
            con.execute("SELECT count(*) FROM questions").fetchall()
            inside.set()
            release.wait(30)

    t = threading.Thread(target=slow_reader)
    t.start()
    assert inside.wait(30)
    t0 = time.monotonic()
    with connect(db, read_only=True, timeout=5) as con:
        got.append(con.execute("SELECT count(*) FROM questions").fetchone()[0])
    second = time.monotonic() - t0
    release.set()
    t.join()
    assert got == [10] and second < 2, second


APP_READERS = """
import sys, threading, time, random
from audit.store import connect
from audit.store.turns import keep_reads_open
from audit.review import list_reviews
keep_reads_open(1.0)          # as the workbench does
db, stop_file = sys.argv[1], sys.argv[2]
errors, reads = [], [0]
def reviewer(k):
    import os
    while not os.path.exists(stop_file):
        try:
            with connect(db, read_only=True) as con:
                con.execute("SELECT count(*) FROM questions WHERE benchmark = 'b'").fetchall()
            list_reviews("b", db=db)
            reads[0] += 1
        except Exception as exc:
            errors.append(repr(exc))
        time.sleep(random.random() * 0.05)
threads = [threading.Thread(target=reviewer, args=(k,)) for k in range(5)]
[t.start() for t in threads]
print("reading", flush=True)
[t.join() for t in threads]
print(reads[0], len(errors), errors[:3], flush=True)
"""


@pytest.mark.slow
def test_cli_import_while_five_app_readers_read(tmp_path):
    db = tmp_path / "a.duckdb"
    _seed(db)
    stop = tmp_path / "stop"
    app = subprocess.Popen([sys.executable, "-c", APP_READERS, str(db), str(stop)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        assert app.stdout.readline().strip() == "reading"
        time.sleep(1.0)
        q = tmp_path / "more.csv"
        q.write_text("id,question,A,B,answer\n" + "".join(f"n{i},x,a,b,A\n" for i in range(2000)))
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "audit.cli", "import", "questions", str(q), "--benchmark", "b",
                            "--db", str(db)], capture_output=True, text=True, env=ENV, timeout=300)
        took = time.monotonic() - t0
        time.sleep(1.0)
    finally:
        stop.write_text("")
        out, err = app.communicate(timeout=120)
    assert r.returncode == 0, r.stderr
    reads, n_errors = out.strip().splitlines()[-1].split()[:2]
    print(f"CLI import of 2,000 questions with 5 reader threads: {took:.1f} s; {reads} reads, {n_errors} errors; "
          f"load {os.getloadavg()[0]:.1f}")
    assert n_errors == "0", out + err
    assert int(reads) > 0
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM questions").fetchone()[0] == 2010
