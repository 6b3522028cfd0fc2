"""Judge runs through litellm's real request path against a scripted
OpenAI-compatible server on 127.0.0.1: parsing, caching, resumption after an
interrupted / killed run, backoff, cost accounting, --max-cost, secrets."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from audit.errors import AuditError, InputError
from audit.judge import run_judge
from tests.support.judge_server import JudgeServer, make_benchmark, run_cli

MODEL = "openai/test-judge"
KEY = "sk-test-4f1c2a9e7b3d5e8f"
IN_COST, OUT_COST = 1e-5, 2e-5          # USD per token; the server reports 100 in / 20 out
CALL_COST = 100 * IN_COST + 20 * OUT_COST  # 0.0014


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer() as s:
        yield s


def judge(db, server, **kw):
    args = dict(benchmark="jb", db=db, api_base=server.base, concurrency=4, timeout=2.0, max_retries=3,
                backoff_base=0.05, input_cost_per_token=IN_COST, output_cost_per_token=OUT_COST, progress=False)
    args.update(kw)
    return run_judge(MODEL, **args)


def rows(db, sql, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def verdicts(db):
    return {r[0]: r[1:] for r in rows(db, "SELECT question_id, parse_ok, answer_key_correct, correct_answer, "
                                          "parse_error, raw_reply, attempts FROM judge_verdicts ORDER BY 1")}


@pytest.mark.slow
def test_replies_are_parsed_strictly(db_path, server):
    make_benchmark(db_path, n=9)
    S = server.script
    S["q000"] = [("json", {"answer_key_correct": False, "correct_answer": "C", "explanation": "c is right",
                           "confidence": 0.9})]
    S["q001"] = [("text", 'I think so.\n{"answer_key_correct": false, "correct_answer": "B", "explanation": "x"}\nBye')]
    S["q002"] = [("text", '{"answer_key_correct": false, "correct_answer": "B"')]                 # malformed
    S["q003"] = [("text", '```json\n{"answer_key_correct": true, "correct_answer": "A"}\n```')]
    S["q004"] = [("text", '{"answer_key_correct": false, "correct_answer": "B"} or '
                          '{"answer_key_correct": false, "correct_answer": "C"}')]                # ambiguous
    S["q005"] = [("json", {"answer_key_correct": False, "correct_answer": "E"})]                 # not an option
    S["q006"] = [("json", {"answer_key_correct": False, "correct_answer": "ག"})]                 # Tibetan → C
    S["q007"] = [("json", {"correct_answer": "B"})]                                              # field missing
    S["q008"] = [("json", {"answer_key_correct": True, "correct_answer": "D"})]                  # contradictory
    s = judge(db_path, server)
    v = verdicts(db_path)
    assert v["q000"][:3] == (True, False, "C")
    assert v["q001"][:3] == (True, False, "B")
    assert v["q002"][0] is False and v["q002"][1] is None and v["q002"][4] == S["q002"][0][1]  # raw kept
    assert v["q003"][:3] == (True, True, None)
    assert v["q004"][0] is False and "ambiguous" in v["q004"][3]
    assert v["q005"][0] is False and "not one of this item's options" in v["q005"][3]
    assert v["q006"][:3] == (True, False, "C")
    assert v["q007"][0] is False and "answer_key_correct is missing" in v["q007"][3]
    assert v["q008"][0] is False and "contradictory" in v["q008"][3]
    assert (s.n_ok, s.n_parse_failed, s.n_disputed) == (4, 5, 3)
    # the prompt carried the item: stem, options and the key
    p = next(x for x in server.prompts if "QID=q000" in x)
    assert "A. option A of 0" in p and "Provided answer key: A" in p
    run = rows(db_path, "SELECT n_ok, n_parse_failed, status FROM judge_runs")[0]
    assert run == (4, 5, "finished")


def test_second_run_makes_no_requests(db_path, server):
    make_benchmark(db_path, n=12)
    s1 = judge(db_path, server)
    assert s1.n_requested == 12 and server.total == 12
    s2 = judge(db_path, server)
    assert server.total == 12, "already-judged items must not be asked again"
    assert (s2.n_selected, s2.n_cached, s2.n_requested) == (12, 12, 0)
    assert s2.cost_usd == 0
    # a different prompt is a different version: asked again
    tpl = "Q: ${question}\n${options}\nKey: ${answer_key}\nJSON please."
    s3 = judge(db_path, server, prompt=_write(db_path.parent / "p.txt", tpl), limit=3)
    assert s3.prompt_version != s1.prompt_version and s3.n_requested == 3 and server.total == 15


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_backoff_on_429_500_and_timeout(db_path, server):
    make_benchmark(db_path, n=4)
    ok = ("json", {"answer_key_correct": True})
    server.script["q000"] = [("status", 429), ("status", 429), ok]
    server.script["q001"] = [("status", 500)]                   # always fails
    server.script["q002"] = [("slow", 2.5, ok), ok]            # beyond the 1 s timeout once
    t0 = time.monotonic()
    s = judge(db_path, server, timeout=1.0, max_retries=2, backoff_base=0.2)
    elapsed = time.monotonic() - t0
    assert server.requests["q000"] == 3          # two 429s then success
    assert server.requests["q001"] == 3          # 1 + max_retries, then given up
    assert server.requests["q002"] == 2
    assert server.requests["q003"] == 1
    v = verdicts(db_path)
    assert v["q000"][5] == 3 and v["q002"][5] == 2
    assert "q001" not in v                       # failed requests are not verdicts
    assert s.n_errors == 1 and s.n_retries == 2 + 2 + 1
    # exponential backoff: q000 waited at least 0.5·(0.2 + 0.4) s
    assert elapsed >= 0.3
    err = rows(db_path, "SELECT question_id, error_type, attempts FROM judge_errors")
    assert err == [("q001", "InternalServerError", 3)]
    # the failed item is asked again next time, the others are not
    server.script["q001"] = [ok]
    s2 = judge(db_path, server)
    assert s2.n_requested == 1 and server.requests["q001"] == 4


def test_cost_accounting(db_path, server):
    make_benchmark(db_path, n=7)
    s = judge(db_path, server)
    assert s.prompt_tokens == 700 and s.completion_tokens == 140
    assert s.cost_usd == pytest.approx(7 * CALL_COST)
    per_call = rows(
        db_path, "SELECT DISTINCT prompt_tokens, completion_tokens, round(cost_usd, 12) FROM judge_verdicts"
    )
    assert per_call == [(100, 20, round(CALL_COST, 12))]
    run = rows(db_path, "SELECT prompt_tokens, completion_tokens, cost_usd, n_requested FROM judge_runs")[0]
    assert run[:2] == (700, 140) and run[2] == pytest.approx(7 * CALL_COST) and run[3] == 7
    assert any("cost $0.0098" in line for line in s.lines())


def test_max_cost_stops_cleanly(db_path, server):
    make_benchmark(db_path, n=10)
    cap = 3.5 * CALL_COST                       # reached by the 4th reply
    s = judge(db_path, server, concurrency=1, max_cost=cap)
    assert server.total == 4 and s.n_requested == 4 and s.n_not_sent == 6
    assert s.status == "max_cost" and "cost cap" in s.stop_reason
    assert len(verdicts(db_path)) == 4          # finished results kept
    assert rows(db_path, "SELECT status FROM judge_runs")[0][0] == "max_cost"
    s2 = judge(db_path, server)                 # resume without a cap
    assert s2.n_cached == 4 and s2.n_requested == 6 and server.total == 10


def test_max_cost_needs_a_price(db_path, server):
    make_benchmark(db_path, n=2)
    # a model name never given a price in this process (litellm keeps custom prices globally)
    unpriced = dict(input_cost_per_token=None, output_cost_per_token=None)
    with pytest.raises(AuditError, match="needs a price"):
        run_judge("openai/unpriced-judge", benchmark="jb", db=db_path, api_base=server.base, max_cost=1.0,
                  progress=False, **unpriced)
    assert server.total == 0
    # without a cap an unknown price is fine: cost reported as unknown
    s = run_judge("openai/unpriced-judge", benchmark="jb", db=db_path, api_base=server.base, progress=False,
                  **unpriced)
    assert s.cost_usd is None and s.n_ok == 2
    assert any("unknown" in line for line in s.lines())


def test_concurrency_is_bounded(db_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    make_benchmark(db_path, n=12)
    with JudgeServer(delay=0.2) as server:
        judge(db_path, server, concurrency=3)
        assert server.max_in_flight == 3


def test_key_used_but_never_stored(db_path, server):
    make_benchmark(db_path, n=3)
    server.script["q001"] = [("status", 401)]
    s = judge(db_path, server, concurrency=1)
    assert all(h == f"Bearer {KEY}" for h in server.auth_headers)
    assert s.status == "aborted" and server.total == 2      # no request after the auth failure
    assert "q002" not in server.requests
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall():
            dump = repr(con.execute(f'SELECT * FROM "{t}"').fetchall())
            assert KEY not in dump, t
    finally:
        con.close()


def test_auth_error_message_is_redacted(db_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    make_benchmark(db_path, n=1)
    with JudgeServer() as server:
        # a server that echoes the key in its error message
        orig = server._send

        def echo_key(h, status, obj):
            if status == 401:
                obj = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
            orig(h, status, obj)
        server._send = echo_key
        server.script["q000"] = [("status", 401)]
        s = judge(db_path, server)
    msg = rows(db_path, "SELECT message FROM judge_errors")[0][0]
    assert KEY not in msg and "***" in msg
    assert all(KEY not in e for e in s.errors)


def test_bad_options(db_path, server):
    make_benchmark(db_path, n=2)
    with pytest.raises(InputError):
        judge(db_path, server, concurrency=0)
    with pytest.raises(AuditError, match="no benchmark"):
        judge(db_path, server, benchmark="nope")
    with pytest.raises(AuditError, match="needs an audit run"):
        judge(db_path, server, tiers=[1, 2])
    with pytest.raises(InputError, match="placeholder"):
        judge(db_path, server, prompt=_write(db_path.parent / "bad.txt", "${question} ${oops}"))
    assert server.total == 0


def test_rationale_and_filters(db_path, server):
    make_benchmark(db_path, n=6, explanation="because the text says so")
    s = judge(db_path, server, subjects=["s1"], limit=None)
    assert s.n_selected == 3 and sorted(server.requests) == ["q000", "q002", "q004"]
    assert all("Rationale given with the key: because the text says so" in p for p in server.prompts)
    s = judge(db_path, server, question_ids=["q001"])
    assert s.n_selected == 1 and server.requests["q001"] == 1


# ---------------------------------------------------------------- interrupted runs (real process)

def _restore_sigint():
    # A shell starting the suite in the background (``pytest &``, no terminal)
    # makes the children ignore SIGINT, and an ignored signal stays ignored
    # across exec: restore the default so Python installs KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(db, server, *extra):
    env = dict(os.environ, OPENAI_API_KEY=KEY)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "audit",
            "judge",
            "run",
            "--model",
            MODEL,
            "--benchmark",
            "jb",
            "--db",
            str(db),
            "--api-base",
            server.base,
            "--concurrency",
            "2",
            "--input-cost-per-token",
            str(IN_COST),
            "--output-cost-per-token",
            str(OUT_COST),
            "--no-progress",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        preexec_fn=_default_signals,
    )


def _default_signals():
    """The child gets default SIGINT/SIGTERM handling even when pytest runs in
    the background with SIGINT ignored (an ignored signal is inherited)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _wait_for(pred, timeout=150.0):  # a loaded machine needs long to import litellm
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.02)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_resume_after_interrupted_run(db_path, monkeypatch, sig):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    ids = make_benchmark(db_path, n=16)
    with JudgeServer(delay=0.3) as server:
        proc = _cli(db_path, server)
        _wait_for(lambda: server.total >= 7)
        time.sleep(0.15)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        stored = set(verdicts(db_path))
        # results were committed as they arrived, not at the end
        assert 1 <= len(stored) < 16, (out, err)
        requested_before = set(server.requests)
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and "resume" in err
            assert rows(db_path, "SELECT status FROM judge_runs")[0][0] == "interrupted"
        s = judge(db_path, server)
        assert s.n_cached == len(stored) and s.n_requested == 16 - len(stored)
        # stored items were asked exactly once in all
        assert all(server.requests[q] == 1 for q in stored)
        assert set(verdicts(db_path)) == set(ids)
        assert stored <= requested_before


def test_cli_max_cost_and_list(db_path, server, capsys, monkeypatch):
    make_benchmark(db_path, n=8)
    cap = 2.5 * CALL_COST
    cmd = ["judge", "run", "--model", MODEL, "-b", "jb", "--db", db_path, "--api-base", server.base, "-c", "1",
           "--input-cost-per-token", IN_COST, "--output-cost-per-token", OUT_COST, "--no-progress"]
    code, out, err = run_cli(capsys, *cmd, "--max-cost", cap)
    assert code == 0, err
    assert "status: max_cost" in out and "asked now 3" in out and server.total == 3
    assert KEY not in out + err
    code, out, _ = run_cli(capsys, "judge", "list", "--runs", "--db", db_path)
    assert code == 0 and "max_cost" in out
    # no key in the environment: refused before any request, one line, exit 1
    monkeypatch.delenv("OPENAI_API_KEY")
    code, out, err = run_cli(capsys, *cmd)
    assert code == 1 and server.total == 3
    assert err.count("\n") == 1 and err.startswith("error: ") and "OPENAI_API_KEY" in err


def test_tier_filter_uses_current_audit(db_path, server, tmp_path):
    from audit.analyze import analyze_benchmark
    from tests.judge.test_bias import build

    build(db_path, tmp_path)
    analyze_benchmark("meth", db=db_path, t1=5, t2=4)
    want = {r[0] for r in rows(db_path, "SELECT question_id FROM current_audit WHERE tier IN (1, 2)")}
    assert want
    s = judge(db_path, server, benchmark="meth", tiers=[1, 2], judge_name="tiered")
    assert s.n_selected == len(want) and s.n_ok == len(want)
    got = {r[0] for r in rows(db_path, "SELECT question_id FROM judge_verdicts WHERE judge = 'tiered'")}
    assert got == want
