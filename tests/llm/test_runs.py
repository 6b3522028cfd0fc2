"""audit.llm.runs: run bookkeeping on a real database (``predict_runs``).
Pins which 'running' rows are corrected to 'killed' (this machine's dead
process: yes; a live process or another machine: no), the note naming the
correcting run, ``update_run`` setting only allowed totals, ``claim_run``
recording this process, and the summary lines."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from types import SimpleNamespace

import pytest

from audit.llm.runs import claim_run, correct_stale_runs, update_run, usage_lines
from audit.store import connect

TOTALS = ("n_ok", "n_errors", "cost_usd", "prompt_tokens")


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def add_run(con, run_id, pid, host, status="running"):
    con.execute("INSERT INTO predict_runs (run_id, benchmark, model, run, prompt_version, method, status, pid, host) "
                "VALUES (?, 'b', 'm', 'r', 'p1', 'letter', ?, ?, ?)", [run_id, status, pid, host])


def test_correct_stale_runs(db_path):
    here = socket.gethostname()
    with connect(db_path) as con:
        add_run(con, 1, dead_pid(), here)              # died: corrected
        add_run(con, 2, os.getpid(), here)             # alive: kept
        add_run(con, 3, 12345, "another-machine")     # cannot tell: kept
        add_run(con, 4, None, None)                    # no owner recorded: corrected
        add_run(con, 5, dead_pid(), here, "finished")  # not running: untouched
        n = correct_stale_runs(con, "predict_runs", "benchmark = ?", ["b"], by_run=9)
        rows = dict(con.execute("SELECT run_id, status FROM predict_runs ORDER BY run_id").fetchall())
        note = con.execute("SELECT stop_reason FROM predict_runs WHERE run_id = 1").fetchone()[0]
    assert n == 2
    assert rows == {1: "killed", 2: "running", 3: "running", 4: "killed", 5: "finished"}
    assert note == "the process stopped without finishing (killed); status corrected by run 9"


def test_correct_stale_runs_only_where_asked(db_path):
    with connect(db_path) as con:
        add_run(con, 1, dead_pid(), socket.gethostname())
        assert correct_stale_runs(con, "predict_runs", "benchmark = ?", ["other"]) == 0
        assert correct_stale_runs(con, "predict_runs", "benchmark = ?", ["b"]) == 1
        note = con.execute("SELECT stop_reason FROM predict_runs").fetchone()[0]
    assert note.endswith("status corrected")


def test_update_run_and_claim(db_path):
    with connect(db_path) as con:
        add_run(con, 7, None, None)
        claim_run(con, "predict_runs", 7)
        update_run(con, "predict_runs", 7, TOTALS, n_ok=3, cost_usd=0.25)
        update_run(con, "predict_runs", 7, TOTALS, n_ok=5, status="finished", stop_reason="done", finished=True)
        update_run(con, "predict_runs", 7, TOTALS)                       # nothing to set: no statement
        with pytest.raises(ValueError, match="unknown predict_runs total 'n_retries'"):
            update_run(con, "predict_runs", 7, TOTALS, n_retries=1)
        row = con.execute("SELECT pid, host, n_ok, cost_usd, status, stop_reason, finished_at IS NOT NULL "
                          "FROM predict_runs WHERE run_id = 7").fetchone()
    assert row == (os.getpid(), socket.gethostname(), 5, 0.25, "finished", "done", True)


def test_usage_lines():
    s = SimpleNamespace(prompt_tokens=1200, completion_tokens=30, cost_usd=0.012345, elapsed_s=3.14159,
                        status="max_cost", stop_reason="cost reached $0.01", errors=["e1", "e2"])
    assert usage_lines(s) == ["tokens 1200 in / 30 out · cost $0.0123 · 3.1 s",
                              "status: max_cost (cost reached $0.01)", "  error: e1", "  error: e2"]
    s = SimpleNamespace(prompt_tokens=0, completion_tokens=0, cost_usd=None, elapsed_s=0, status="finished",
                        stop_reason=None, errors=[])
    assert usage_lines(s) == ["tokens 0 in / 0 out · cost unknown (no price for this model) · 0.0 s",
                              "status: finished"]
