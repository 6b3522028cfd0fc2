"""A review step under a second: the workbench keeps its shared
read-only connection open between page runs (``keep_reads_open``), and an
idle kept-open connection still never makes another program's writer wait:
it lets go within a moment when a writer in another process asks for the
file.  Real processes on a real DuckDB file."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from audit.ingest.storing import store_questions
from audit.review import add_review, list_reviews
from audit.store import connect
from audit.store.records import Option, Question
from tests.conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO)}

IDLE_APP = """
import sys, time
from audit.store import connect
from audit.store.turns import keep_reads_open
keep_reads_open(600)                     # far longer than the writer below may wait
with connect(sys.argv[1], read_only=True) as con:
    con.execute("SELECT count(*) FROM questions").fetchall()
print("read", flush=True)
time.sleep(120)                          # idle, connection kept open
"""


def test_an_idle_kept_open_read_connection_lets_a_foreign_writer_in(tmp_path):
    db = tmp_path / "i.duckdb"
    with connect(db) as con:
        store_questions(con, "b", "questions", [Question("b", "q1", "x?", [Option("A", "1"), Option("B", "2")], "A")])
    app = subprocess.Popen([sys.executable, "-c", IDLE_APP, str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=ENV)
    try:
        assert app.stdout.readline().strip() == "read"
        # the app holds the file read-only: a plain read-write open is refused now
        import duckdb

        try:
            duckdb.connect(str(db)).close()
            held = False
        except duckdb.Error:
            held = True
        assert held, "the idle app should still hold its read connection"
        t = time.monotonic()
        add_review("b", "q1", "Pema", "key_correct", db=db)
        waited = time.monotonic() - t
        assert waited < 5, f"the writer waited {waited:.1f} s for an idle reader"
        assert len(list_reviews("b", db=db)) == 1
    finally:
        app.kill()
        app.wait(timeout=10)
