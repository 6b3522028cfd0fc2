"""The case "the busy message shows twice": one wait on a holder gives ONE
"waiting for the database (held by …)" line, also when the program waits
on it twice in a row (a command that waits to read and then to write, a
workbench page whose reads each wait).  Real processes, a real database
file: the holder is another process using ``audit.store.connect``.
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
from audit.store.turns import set_wait_notice
from tests.conftest import REPO

ENV = {**os.environ, "PYTHONPATH": str(REPO)}

# A holder driven through stdin: "hold" takes the write lock (waiting for it
# like any writer) and answers "holding"; "release" lets go and answers
# "released".
HOLDER = """
import sys
from audit.store import connect
for cmd in sys.stdin:
    if cmd.strip() == "hold":
        with connect(sys.argv[1], timeout=120):
            print("holding", flush=True)
            sys.stdin.readline()             # "release"
        print("released", flush=True)
"""


def _seed(db: Path) -> None:
    with connect(db) as con:
        store_questions(con, "b", "questions", [
            Question("b", f"q{i}", "x?", [Option("A", "1"), Option("B", "2")], "A") for i in range(3)])


class _Holder:
    def __init__(self, db: Path):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)

    def say(self, cmd: str, expect: str | None = None) -> None:
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        if expect is not None:
            assert self.proc.stdout.readline().strip() == expect

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.mark.slow
def test_waiting_to_read_then_to_write_on_one_holder_says_so_once(tmp_path):
    """The holder blocks a read (line 1), lets it in, takes the file again
    and blocks the following write of the same program for > 2 s: without
    the fix that printed a second identical line."""
    db = tmp_path / "n.duckdb"
    _seed(db)
    lines: list[str] = []
    set_wait_notice(lines.append)
    holder = _Holder(db)
    inside, leave = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            with connect(db, read_only=True, timeout=60) as con:
                con.execute("SELECT count(*) FROM questions").fetchall()
                inside.set()
                leave.wait(60)
        except BaseException as exc:  # noqa: BLE001 — reported by the assertion below
            errors.append(exc)
            inside.set()

    try:
        holder.say("hold", "holding")
        t = threading.Thread(target=reader)
        t.start()
        deadline = time.monotonic() + 30
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(lines) == 1, lines                  # the read waited > 2 s and said so
        holder.say("release", "released")
        assert inside.wait(30) and not errors, errors  # the read got in
        holder.say("hold")                             # waits for the reader to let go
        leave.set()
        t.join(30)
        assert holder.proc.stdout.readline().strip() == "holding"
        release = threading.Timer(3.5, holder.say, args=("release",))
        release.start()
        t0 = time.monotonic()
        with connect(db, timeout=60) as con:           # waits > 2 s on the same holder
            con.execute("INSERT INTO benchmarks (name, source) VALUES ('n', 'test')")
        waited = time.monotonic() - t0
        release.join()
    finally:
        set_wait_notice(None)
        holder.stop()
    assert waited >= 2.5, waited                       # the write really waited past the notice delay
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"waiting for the database {db.resolve()} (held by PID {holder.proc.pid}")


@pytest.mark.slow
def test_a_new_holder_is_announced(tmp_path):
    """The notice is not swallowed for good: a wait on another process is
    announced again."""
    db = tmp_path / "m.duckdb"
    _seed(db)
    lines: list[str] = []
    set_wait_notice(lines.append)
    try:
        for _ in range(2):
            holder = _Holder(db)
            try:
                holder.say("hold", "holding")
                release = threading.Timer(2.8, holder.say, args=("release",))
                release.start()
                with connect(db, timeout=60) as con:
                    con.execute("SELECT 1").fetchall()
                release.join()
            finally:
                holder.stop()
    finally:
        set_wait_notice(None)
    assert len(lines) == 2, lines
    assert lines[0] != lines[1]  # two holders, two PIDs


@pytest.mark.slow
@pytest.mark.parametrize("command", [["review", "add", "--benchmark", "b", "--question", "q1", "--reviewer", "ann",
                                      "--verdict", "key_correct"]])
def test_cli_prints_the_line_once(tmp_path, command):
    """The CLI: the line goes to stderr once (not also through a logger),
    and the command then succeeds."""
    db = tmp_path / "c.duckdb"
    _seed(db)
    holder = _Holder(db)
    try:
        holder.say("hold", "holding")
        cli = subprocess.Popen([sys.executable, "-m", "audit.cli", *command, "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        first = cli.stderr.readline()
        time.sleep(1.0)   # a second line, if any, would come now
        holder.say("release")
        out, rest = cli.communicate(timeout=120)
    finally:
        holder.stop()
    assert first.startswith("waiting for the database "), first + rest
    assert "waiting for the database" not in rest, rest
    assert cli.returncode == 0 and "review 1 saved" in out, (out, rest)
