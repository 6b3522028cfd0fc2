"""A SIGKILL loses at most the replies in flight, for both stages of the one
runner (audit/llm.py): ``audit predict run`` and ``audit judge run``, each a
real process talking to the scripted OpenAI-compatible server
(tests/support/judge_server.py) through litellm.

"In flight", measured exactly: the server records, under one lock, the
instant the last byte of each 200 reply is written and the requests it has
received and not yet answered.  :meth:`JudgeServer.snapshot` taken just
before the kill gives ``sent`` (the items whose reply the client had been
sent) and ``open`` (requests waiting at the server).  Each of the run's
``C`` concurrency slots is at that instant either waiting at the server
(one of ``open``), or holding a reply it received but that is not yet
committed, or between the two (building a request, backing off).  So the
replies sent but lost to the kill are at most ``C - open``::

    |sent \\ stored|  <=  C - open

The old writer (results queued, slot freed at once, batches committed
behind each other) broke this as soon as a commit was slow: replies kept
arriving, were acknowledged to the run and queued, and a kill lost all of
them.  The "slow commit" case makes that happen for certain: the test itself
holds the database file (as another process would) while the run goes on.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from tests.support.judge_server import JudgeServer, make_benchmark

KEY = "sk-test-0d1e2a3d4b5e6e7f"
C = 4          # the run's concurrency
N = 40         # items


def _text_reply(qid: str) -> tuple[str, str]:
    return ("text", f"Option B is tempting but wrong.\n\nAnswer: {'ABCD'[int(qid[1:]) % 4]}")


STAGES = {
    # stage: (CLI words, model, stored table, server default reply)
    "predict": (["predict", "run"], "openai/test-model", "model_calls", _text_reply),
    "judge": (["judge", "run"], "openai/test-judge", "judge_verdicts", None),
}


def _default_signals():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start(stage: str, db, server) -> subprocess.Popen:
    words, model, _, _ = STAGES[stage]
    env = dict(os.environ, OPENAI_API_KEY=KEY, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, "-m", "audit", *words, "--model", model, "--benchmark", "jb", "--db", str(db),
         "--api-base", server.base, "--concurrency", str(C), "--input-cost-per-token", "1e-6",
         "--output-cost-per-token", "2e-6", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
        preexec_fn=_default_signals)


def _stored(stage: str, db) -> set[str] | None:
    """The items stored by the run, None while the run holds the file."""
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return None
    try:
        return {r[0] for r in con.execute(f"SELECT question_id FROM {STAGES[stage][2]}").fetchall()}
    finally:
        con.close()


def _wait_for(pred, timeout=150.0):  # a loaded machine needs long to import litellm
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.02)


def _hold(db) -> duckdb.DuckDBPyConnection:
    """Open the database for writing, as another process would, once the run
    lets go of it (it holds the file only while it commits)."""
    t0 = time.monotonic()
    while True:
        try:
            return duckdb.connect(str(db))
        except duckdb.Error:
            if time.monotonic() - t0 > 60:
                raise
            time.sleep(0.005)


@pytest.mark.slow
@pytest.mark.parametrize("slow_commit", [True, False], ids=["slow-commit", "plain"])
@pytest.mark.parametrize("stage", list(STAGES))
def test_sigkill_loses_at_most_the_replies_in_flight(db_path, stage, slow_commit):
    make_benchmark(db_path, n=N)
    with JudgeServer(delay=0.05, default_reply=STAGES[stage][3]) as server:
        proc = _start(stage, db_path, server)
        holder = None
        try:
            _wait_for(lambda: len(_stored(stage, db_path) or ()) >= 3)    # replies are committed as they come
            if slow_commit:
                holder = _hold(db_path)
                # the run cannot commit now; give it time to receive (and, with the old writer,
                # queue) the replies of every item it would go on asking
                time.sleep(2.0)
            sent, open_ = server.snapshot()
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            if holder is not None:
                holder.close()
        stored = _stored(stage, db_path)
        assert stored is not None
        lost = set(sent) - stored
        print(f"{stage} {'slow commit' if slow_commit else 'plain'}: server sent {len(sent)} replies "
              f"({open_} requests open) before the kill; {len(stored)} stored, {len(lost)} lost")
        assert len(sent) < N or not slow_commit, "the run went on asking while it could not commit"
        assert len(lost) <= C - open_, (sorted(lost), open_)
        assert stored <= set(server.requests)
