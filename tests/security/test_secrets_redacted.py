"""Secrets never leave the process in clear: every line the tool prints or
writes beside the database goes through ``redact()`` (which knows the flag
form ``--api-key VALUE``), and imported text is stored with the values of
secret environment variables replaced, as the run path already does.

Before: the "waiting for the database" line printed the lock holder's
command line, where ``redact()`` missed ``--api-key VALUE``; ``import judge``
stored ``$OPENAI_API_KEY`` found in an imported explanation."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.attack import REPO
from tests.support.cli_process import run_audit
from tests.support.common import rows

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

SECRET = "sk-proj-Zq81xTT4vbn2LmQp"        # OpenAI-style: the pattern rule alone hides it
PLAIN = "Zq81xTT4vbn2LmQpWw7e3Rk"          # no recognisable shape: only the flag tells it is a secret

HOLDER = """
import sys, time
from audit.store import connect
with connect(sys.argv[-1]):
    print("ready", flush=True)
    time.sleep(float(sys.argv[-2]))
"""


def _hold(tmp_path: Path, db: Path, flags: list[str], seconds: float = 8.0) -> subprocess.Popen:
    """A process holding the database for writing, with ``flags`` on its command line."""
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    p = subprocess.Popen([sys.executable, str(script), *flags, str(seconds), str(db)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path)
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def _wait_behind(db: Path, timeout: float = 3.5) -> subprocess.CompletedProcess:
    """An ``audit`` writer that waits for the file, says so, and gives up."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY",)}
    env.update(PYTHONPATH=str(REPO), AUDIT_DB_TIMEOUT=str(timeout))
    return run_audit(["models", "set-family", "m", "f", "--db", str(db)], env=env, cwd=REPO, timeout=120)


@pytest.mark.parametrize("flags,secret", [
    (["--api-key", PLAIN], PLAIN),
    (["--password", PLAIN], PLAIN),
    (["--hf-token", PLAIN], PLAIN),
    (["--api-key", SECRET], SECRET),
], ids=["api-key", "password", "hf-token", "sk-form"])
def test_the_waiting_line_never_shows_a_secret_flag_value(tmp_path, db_path, flags, secret):
    holder = _hold(tmp_path, db_path, flags)
    try:
        r = _wait_behind(db_path)
    finally:
        holder.kill()
        holder.wait()
    assert "waiting for the database" in r.stderr or "is in use by" in r.stderr, r.stderr   # the lines exist
    assert secret not in r.stderr and secret not in r.stdout, r.stderr


def test_the_queue_file_beside_the_database_never_holds_a_secret(tmp_path, db_path):
    """Our own case: the ``.lock`` file (readable by others) records the
    holder's command line for the next waiter."""
    holder = _hold(tmp_path, db_path, ["--api-key", PLAIN], seconds=3)
    try:
        time.sleep(0.2)
        lock = Path(str(db_path) + ".lock")
        text = lock.read_text(errors="replace") if lock.exists() else ""
    finally:
        holder.kill()
        holder.wait()
    assert PLAIN not in text, text


# ---------------------------------------------------------------- imported text

@pytest.fixture
def bench(db_path, monkeypatch):
    from tests.support.judge_server import make_benchmark

    monkeypatch.setenv("OPENAI_API_KEY", PLAIN)
    make_benchmark(db_path, "jb", n=3)
    return db_path


def _dump(db, table: str) -> str:
    return " ".join(map(str, rows(db, f"SELECT * FROM {table}")))


def test_import_judge_never_stores_the_api_key_of_the_environment(bench, tmp_path):
    from audit.judge import import_judge

    f = tmp_path / "j.jsonl"
    f.write_text(json.dumps({"loc": "q001", "llm_validation": {
        "answer_key_correct": False, "correct_answer": "C", "confidence": 0.9,
        "answer_explanation": f"I was called with key {PLAIN}; the key is wrong"}}) + "\n")
    import_judge(f, judge="j1", benchmark="jb", db=bench)
    stored = _dump(bench, "judge_verdicts") + _dump(bench, "judge_runs")
    assert "the key is wrong" in stored                 # the explanation is kept ...
    assert PLAIN not in stored                          # ... without the secret


def test_a_verdict_table_never_stores_the_api_key_of_the_environment(bench, tmp_path):
    """Our own case: the other judge importer (plain verdict tables)."""
    from audit.judge import import_detectors

    f = tmp_path / "v.csv"
    f.write_text(f"question_id,judge,key_correct,correct_answer,explanation\nq001,j2,false,C,echo {PLAIN} here\n")
    import_detectors(f, benchmark="jb", db=bench)
    stored = _dump(bench, "judge_verdicts")
    assert "echo" in stored and PLAIN not in stored


def test_imported_raw_responses_never_store_the_api_key_of_the_environment(bench, tmp_path):
    """Our own case: a prediction file whose responses echo the key (as a
    provider echoing the request would); the run path redacts them."""
    from audit.ingest import import_predictions

    f = tmp_path / "p.csv"
    f.write_text("question_id,model,response\n" + "".join(f"q00{i},m1,Key {PLAIN}. Answer: B\n" for i in range(3)))
    import_predictions(f, benchmark="jb", db=bench)
    stored = _dump(bench, "predictions")
    assert "Answer: B" in stored and PLAIN not in stored


def test_an_error_line_quoting_a_flag_value_is_redacted():
    """The one redaction rule, as a unit: the flag forms are hidden in any
    line the CLI prints."""
    from audit._util.redact import redact

    for line in (f"held by PID 7: audit ls push --api-key {PLAIN} -b tlue",
                 f"held by PID 7: tool --password {PLAIN}",
                 f"held by PID 7: tool --token {PLAIN}",
                 f"held by PID 7: tool --hf-token {PLAIN}"):
        assert PLAIN not in redact(line), redact(line)


def test_the_redacted_forms_that_already_held(tmp_path):
    """Correct results that must stay: ``--api-key=VALUE``, URLs with
    passwords, bearer headers."""
    from audit._util.redact import redact

    assert PLAIN not in redact(f"x --api-key={PLAIN} y")
    assert PLAIN not in redact(f"GET https://u:{PLAIN}@h/x")
    assert PLAIN not in redact(f"Authorization: Bearer {PLAIN}")
