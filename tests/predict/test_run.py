"""``audit predict run``: a model answering a benchmark through litellm's real
request path, against a scripted OpenAI-compatible server on 127.0.0.1
(tests/support/judge_server.py).  Covers storage and extraction on insert, the cache
(a rerun sends 0 requests), --max-cost, 429 then success, 5xx, reasoning
content kept apart, a SIGKILL mid-run (replies sent vs rows stored), the
status of a killed run, a run with no reply at all, and key secrecy.

Subprocesses restore SIGINT/SIGTERM to their defaults, so the tests pass
when pytest itself runs in the background with SIGINT ignored.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from audit.errors import AuditError
from audit.predict import list_predict_runs, run_predict
from tests.support.common import rows, run_cli
from tests.support.judge_server import JudgeServer, make_benchmark

MODEL = "openai/test-model"
KEY = "sk-test-9a8b7c6d5e4f3a2b"
IN_COST, OUT_COST = 1e-5, 2e-5
CALL_COST = 100 * IN_COST + 20 * OUT_COST   # the server reports 100 prompt / 20 completion tokens


def answer_of(qid: str) -> tuple[str, str]:
    """A reply that commits to a letter after discussing another one."""
    i = int(qid[1:])
    letter = "ABCD"[i % 4]
    other = "ABCD"[(i + 1) % 4]
    return ("text", f"Option {other} is tempting but wrong.\n\nAnswer: {letter}")


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer(default_reply=answer_of) as s:
        yield s


def predict(db, server, **kw):
    args = dict(benchmark="jb", db=db, api_base=server.base, concurrency=4, timeout=5.0, max_retries=3,
                backoff_base=0.05, input_cost_per_token=IN_COST, output_cost_per_token=OUT_COST, progress=False)
    args.update(kw)
    return run_predict(MODEL, **args)


def calls(db):
    return {r[0]: r[1:] for r in rows(db, "SELECT question_id, response, reasoning, answer, method, attempts, "
                                          "prompt_tokens, completion_tokens, cost_usd FROM model_calls ORDER BY 1")}


@pytest.mark.slow
def test_run_stores_calls_and_predictions_then_cache(db_path, server):
    ids = make_benchmark(db_path, n=8)
    s = predict(db_path, server)
    assert (s.status, s.n_selected, s.n_cached, s.n_requested, s.n_ok) == ("finished", 8, 0, 8, 8)
    assert server.total == 8
    got = calls(db_path)
    assert sorted(got) == ids
    for qid, (response, reasoning, answer, method, attempts, pt, ct, cost) in got.items():
        assert answer == "ABCD"[int(qid[1:]) % 4] and method == "final" and attempts == 1
        assert response.endswith(f"Answer: {answer}") and reasoning is None
        assert (pt, ct) == (100, 20) and cost == pytest.approx(CALL_COST)
    preds = rows(db_path, "SELECT question_id, model, run, answer, method, valid FROM predictions ORDER BY 1")
    assert preds == [(q, MODEL, "default", "ABCD"[int(q[1:]) % 4], "final", True) for q in ids]
    assert s.cost_usd == pytest.approx(8 * CALL_COST)
    # the default prompt is TLUE's zero-shot format: the question and its options, nothing else
    assert server.prompts[0].startswith("Question QID=") and "\nA. option A of" in server.prompts[0]
    # a rerun sends no request
    s2 = predict(db_path, server)
    assert (s2.n_cached, s2.n_requested, s2.status) == (8, 0, "finished") and server.total == 8
    # another run name or prompt is another cache key
    s3 = predict(db_path, server, run="r2", style="reasoning", instructions="zh", limit=2)
    assert s3.n_requested == 2 and server.total == 10
    assert "单项选择题" in server.prompts[-1] and "答案：X" in server.prompts[-1]
    runs = list_predict_runs("jb", db=db_path)
    assert list(runs["status"]) == ["finished"] * 3 and list(runs["n_ok"]) == [2, 0, 8]


@pytest.mark.slow
def test_max_cost_stops_cleanly(db_path, server):
    make_benchmark(db_path, n=10)
    s = predict(db_path, server, concurrency=1, max_cost=2.5 * CALL_COST)
    assert s.status == "max_cost" and s.n_requested == 3 and server.total == 3 and s.n_not_sent == 7
    assert len(calls(db_path)) == 3
    with pytest.raises(AuditError, match="needs a price"):   # (litellm remembers the custom price of MODEL)
        run_predict("openai/unpriced-model", benchmark="jb", db=db_path, api_base=server.base, max_cost=1.0)
    assert server.total == 3


@pytest.mark.slow  # waits out the server's Retry-After
def test_429_then_success_and_5xx(db_path, server):
    make_benchmark(db_path, n=3)
    server.script["q000"] = [("status", 429), ("status", 429), ("text", "Answer: C")]
    server.script["q001"] = [("status", 503)]
    s = predict(db_path, server, max_retries=2)
    assert server.requests["q000"] == 3 and server.requests["q001"] == 3
    got = calls(db_path)
    assert got["q000"][2] == "C" and got["q000"][4] == 3   # answer, attempts
    assert "q001" not in got                              # a failed request is not a reply
    assert s.n_errors == 1 and s.n_retries == 4 and s.status == "finished"
    err = rows(db_path, "SELECT question_id, attempts FROM predict_errors")
    assert err == [("q001", 3)]
    assert rows(db_path, "SELECT count(*) FROM predictions WHERE question_id = 'q001'") == [(0,)]
    # asked again next time
    server.script["q001"] = [("text", "B")]
    s2 = predict(db_path, server)
    assert s2.n_requested == 1 and calls(db_path)["q001"][2] == "B"


def test_reasoning_content_is_stored_apart_and_not_extracted(db_path, server):
    make_benchmark(db_path, n=2)
    server.script["q000"] = [("reason", "Maybe A? The answer is A... no, wait.", "Answer: D")]
    server.script["q001"] = [("reason", "The answer is B, clearly.", "I cannot decide.")]
    predict(db_path, server)
    got = calls(db_path)
    assert got["q000"][:3] == ("Answer: D", "Maybe A? The answer is A... no, wait.", "D")
    assert got["q001"][1] == "The answer is B, clearly." and got["q001"][2] is None   # never read from reasoning


def test_prompt_names_the_language_and_custom_template(db_path, server, tmp_path):
    make_benchmark(db_path, n=2)
    from audit.store import connect, transaction

    with connect(db_path) as con, transaction(con):
        con.execute("UPDATE questions SET language = 'bo'")
    predict(db_path, server, style="reasoning", instructions="bo")
    assert all("Tibetan" in p and "ལན། X" in p for p in server.prompts)
    tpl = tmp_path / "t.txt"
    tpl.write_text("[${language}] ${question}\n${options}\nOne of ${labels}.", encoding="utf-8")
    s = predict(db_path, server, prompt=tpl, run="custom")
    assert s.n_requested == 2 and server.prompts[-1].startswith("[Tibetan] Question QID=")
    assert rows(db_path, "SELECT count(*) FROM predict_prompts WHERE prompt_version = ?", [s.prompt_version]) == [(1,)]


def test_no_reply_at_all_exits_non_zero_and_key_is_never_stored(db_path, server, capsys):
    make_benchmark(db_path, n=2)
    for q in ("q000", "q001"):
        server.script[q] = [("status", 500)]
    code, out, err = run_cli(capsys, "predict", "run", "--model", MODEL, "-b", "jb", "--db", db_path,
                             "--api-base", server.base, "--max-retries", "0", "--no-progress")
    assert code == 1 and "status: no_reply" in out
    assert rows(db_path, "SELECT status FROM predict_runs") == [("no_reply",)]
    dump = " ".join(map(str, rows(db_path, "SELECT * FROM predict_runs"))) + " ".join(
        map(str, rows(db_path, "SELECT * FROM predict_errors")))
    assert KEY not in dump and KEY not in out + err


# ---------------------------------------------------------------- a killed run (real process)

def _default_signals():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _cli(db, server, *extra):
    env = dict(os.environ, OPENAI_API_KEY=KEY, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, "-m", "audit", "predict", "run", "--model", MODEL, "--benchmark", "jb", "--db", str(db),
         "--api-base", server.base, "--concurrency", "2", "--input-cost-per-token", str(IN_COST),
         "--output-cost-per-token", str(OUT_COST), "--no-progress", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=_default_signals)


def _wait_for(pred, timeout=150.0):  # a loaded machine needs long to import litellm
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise AssertionError("timed out")
        time.sleep(0.02)


@pytest.mark.slow
def test_sigkill_mid_run_keeps_replies_and_next_run_corrects_status(db_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    ids = make_benchmark(db_path, n=20)
    with JudgeServer(delay=0.3, default_reply=answer_of) as server:
        proc = _cli(db_path, server)
        seen = 0

        def committed() -> int:
            nonlocal seen
            try:
                seen = len(calls(db_path))
            except Exception:       # the run holds the file for a moment while it commits
                pass
            return seen

        # rows appear while the run goes on: replies are committed as they arrive
        _wait_for(lambda: committed() >= 6)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        sent = server.sent
        stored = set(calls(db_path))
        # nothing committed is lost; what is lost are replies not yet committed, at most one per
        # concurrency slot (tests/llm/test_runner.py measures that bound exactly)
        assert 6 <= seen <= len(stored) <= sent < 20, (seen, len(stored), sent)
        print(f"SIGKILL: server sent {sent} replies, {len(stored)} rows stored")
        assert rows(db_path, "SELECT count(*) FROM predictions") == [(len(stored),)]
        assert rows(db_path, "SELECT status FROM predict_runs") == [("running",)]   # what the kill left
        s = predict(db_path, server, concurrency=4)
        status = dict(rows(db_path, "SELECT run_id, status FROM predict_runs"))
        assert status[1] == "killed" and status[s.run_id] == "finished"
        assert "corrected by run" in rows(db_path, "SELECT stop_reason FROM predict_runs WHERE run_id = 1")[0][0]
        assert s.n_cached == len(stored) and s.n_requested == 20 - len(stored)
        assert all(server.requests[q] == 1 for q in stored)        # stored replies were never asked again
        assert sorted(calls(db_path)) == ids


def test_cli_run_list_prompt(db_path, server, capsys):
    make_benchmark(db_path, n=3)
    code, out, err = run_cli(capsys, "predict", "run", "--model", MODEL, "-b", "jb", "--db", db_path,
                             "--api-base", server.base, "--input-cost-per-token", IN_COST,
                             "--output-cost-per-token", OUT_COST, "--no-progress")
    assert code == 0, err
    assert "asked now 3" in out and "extracted with 'final': 3" in out and KEY not in out + err
    code, out, _ = run_cli(capsys, "predict", "list", "--db", db_path)
    assert code == 0 and "finished" in out and MODEL in out
    code, out, _ = run_cli(capsys, "predict", "prompt", "--style", "reasoning")
    assert code == 0 and 'Answer: X' in out and "prompt version p" in out
    code, _, err = run_cli(capsys, "predict", "run", "--model", MODEL, "-b", "jb", "--db", db_path,
                           "--instructions", "xx", "--api-base", server.base)
    assert code == 1 and err.startswith("error: ") and "no shipped instructions in 'xx'" in err


def test_llm_extractor_after_a_run(db_path, server):
    make_benchmark(db_path, n=3)
    server.script["q001"] = [("text", "Hmm, hard to say."), ("text", "B")]   # the model, then the extractor
    s = run_predict(MODEL, benchmark="jb", db=db_path, api_base=server.base, progress=False,
                    input_cost_per_token=IN_COST, output_cost_per_token=OUT_COST, llm_extractor="openai/extractor")
    # the extractor is asked once, about q001 only (its prompt quotes the reply)
    assert server.total == 4 and s.extraction.llm_asked == 1 and s.extraction.llm_answered == 1
    assert "Hmm, hard to say." in server.prompts[-1] and "Which single option" in server.prompts[-1]
    got = rows(db_path, "SELECT question_id, answer, method FROM predictions ORDER BY 1")
    assert got == [("q000", "A", "final"), ("q001", "B", "llm"), ("q002", "C", "final")]
    assert rows(db_path, "SELECT raw_reply FROM llm_extractions") == [("B",)]
    assert rows(db_path, "SELECT answer FROM model_calls WHERE question_id = 'q001'") == [(None,)]
