"""Model and judge runs against a misbehaving provider: a local
OpenAI-compatible server (tests/support/judge_server.py) reached through litellm's
real request path.

Each case fails on main and passes here: the right result, or one line,
exit 1, the database byte-identical (``db_snapshot``) and no request sent.

* a provider echoing the API key back: the key never reaches
  model_calls.response, predictions.response, judge_verdicts.explanation or
  judge_verdicts.raw_reply;
* empty replies (``choices: []``, ``content: null``) and replies cut off by
  the length limit are stored as such, never as answers, and asked again;
* judge verdicts contradicting themselves are stored as such and asked again;
* ``--max-cost`` with no usage, negative usage, textual usage;
* NaN / Infinity / out-of-range options refused at the boundary;
* extraction never blocks the runner's event loop.
"""
from __future__ import annotations

import json
import time

import pytest

from audit.judge import run_judge
from audit.predict import run_predict
from tests.conftest import db_snapshot
from tests.support.common import rows, run_cli
from tests.support.judge_server import JudgeServer, make_benchmark

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

MODEL = "openai/test-model"
KEY = "sk-attack-7f6e5d4c3b2a1908"
IN_COST, OUT_COST = 1e-5, 2e-5


def answer_b(qid: str) -> tuple:
    return ("text", "Let me think.\n\nAnswer: B")


@pytest.fixture
def server(monkeypatch):
    """The scripted provider; unscripted items answer "Answer: B" (``judge_server``: a valid verdict)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer(default_reply=answer_b) as s:
        yield s


@pytest.fixture
def judge_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer() as s:
        yield s


def _run(fn, model, db, server, kw):
    """``fn`` (run_predict / run_judge) on benchmark jb with quick retries and a known price."""
    args = {"benchmark": "jb", "db": db, "api_base": server.base, "concurrency": 4, "timeout": 5.0,
            "max_retries": 2, "backoff_base": 0.01, "input_cost_per_token": IN_COST,
            "output_cost_per_token": OUT_COST, "progress": False, **kw}
    return fn(model, **args)


def predict(db, server, **kw):
    return _run(run_predict, MODEL, db, server, kw)


def judge(db, server, **kw):
    return _run(run_judge, MODEL, db, server, kw)


def _text_columns(db) -> str:
    return json.dumps(
        rows(db, "SELECT response, reasoning FROM model_calls")
        + rows(db, "SELECT response FROM predictions")
        + rows(db, "SELECT explanation, raw_reply FROM judge_verdicts")
    )


# ---------------------------------------------------------------- secrets

@pytest.mark.slow
def test_key_echoed_by_the_provider_is_never_stored(db_path, server):
    make_benchmark(db_path, n=3)
    server.script["q000"] = [("echo", "I received {auth}. Answer: B")]
    server.script["q001"] = [("reason", f"my key is {KEY}", "Answer: C")]
    s = predict(db_path, server)
    assert s.n_ok == 3
    stored = _text_columns(db_path)
    assert KEY not in stored
    assert "I received Bearer ***. Answer: B" in stored
    assert rows(db_path, "SELECT answer FROM predictions ORDER BY question_id") == [("B",), ("C",), ("B",)]


@pytest.mark.slow
def test_key_echoed_to_a_judge_is_never_stored(db_path, judge_server):
    make_benchmark(db_path, n=2)
    judge_server.script["q000"] = [("echo", '{"answer_key_correct": true, "explanation": "header {auth}"}')]
    judge_server.script["q001"] = [("echo", '{"answer_key_correct": false, "correct_answer": "B", '
                                            '"explanation": "sent with {auth}", "cause": "key_slip"}')]
    s = judge(db_path, judge_server)
    assert s.n_ok == 2
    stored = _text_columns(db_path)
    assert KEY not in stored
    assert rows(db_path, "SELECT explanation FROM judge_verdicts ORDER BY question_id") == [
        ("header Bearer ***",), ("sent with Bearer ***",)]


def test_key_from_api_key_env_is_never_stored(db_path, server, monkeypatch):
    monkeypatch.setenv("MY_LOCAL_LLM", "local-9f8e7d6c5b4a")   # a name redaction could not guess
    make_benchmark(db_path, n=1)
    server.script["q000"] = [("echo", "{auth} Answer: A")]
    predict(db_path, server, api_key_env="MY_LOCAL_LLM")
    assert "local-9f8e7d6c5b4a" not in _text_columns(db_path)


# ---------------------------------------------------------------- unusable replies

EMPTY_CHOICES = ("raw", {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [],
                         "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}})
NULL_CONTENT = ("raw", {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": None},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}})
CUT_OFF = ("finish", "length", ("text", "Option A looks right, but the answer is B"))


@pytest.mark.parametrize("reply", [EMPTY_CHOICES, NULL_CONTENT, ("text", "   \n "), CUT_OFF],
                         ids=["choices-empty", "content-null", "whitespace", "length"])
def test_unusable_model_reply_is_kept_visible_never_an_answer_and_asked_again(db_path, server, reply):
    make_benchmark(db_path, n=3)
    server.script["q001"] = [reply, ("text", "Answer: D")]
    s = predict(db_path, server)
    assert (s.n_ok, s.n_errors) == (2, 1)
    assert any("q001: UnusableReply" in e for e in s.errors), s.errors
    # visible: the call as received; not an answer: no prediction for it
    assert rows(db_path, "SELECT answer FROM model_calls WHERE question_id = 'q001'") == [(None,)]
    assert rows(db_path, "SELECT count(*) FROM predictions WHERE question_id = 'q001'") == [(0,)]
    assert rows(db_path, "SELECT count(*) FROM predict_errors WHERE question_id = 'q001' "
                         "AND error_type = 'UnusableReply'") == [(1,)]
    # asked again by the next run, and only that item
    s2 = predict(db_path, server)
    assert (s2.n_cached, s2.n_requested, s2.n_ok) == (2, 1, 1)
    assert server.requests["q001"] == 2
    assert rows(db_path, "SELECT answer FROM predictions WHERE question_id = 'q001'") == [("D",)]
    assert predict(db_path, server).n_requested == 0


@pytest.mark.parametrize("reply", [EMPTY_CHOICES, NULL_CONTENT, ("finish", "length", ("text", '{"answer_key_corr'))],
                         ids=["choices-empty", "content-null", "length"])
def test_unusable_judge_reply_is_stored_as_such_and_asked_again(db_path, judge_server, reply):
    make_benchmark(db_path, n=2)
    judge_server.script["q000"] = [reply, ("json", {"answer_key_correct": False, "correct_answer": "C"})]
    s = judge(db_path, judge_server)
    assert (s.n_ok, s.n_parse_failed) == (1, 1)
    [(ok, key_ok, err)] = rows(db_path, "SELECT parse_ok, answer_key_correct, parse_error FROM judge_verdicts "
                                        "WHERE question_id = 'q000'")
    assert ok is False and key_ok is None and err.startswith(("empty reply", "cut off")), err
    s2 = judge(db_path, judge_server)
    assert (s2.n_requested, s2.n_ok) == (1, 1)
    assert rows(db_path, "SELECT answer_key_correct, correct_answer FROM judge_verdicts "
                         "WHERE question_id = 'q000'") == [(False, "C")]


@pytest.mark.parametrize("reply", [
    '{"answer_key_correct": true, "answer_key_correct": false, "correct_answer": "C"}',
    '{"answer_key_correct": false, "correct_answer": "C", "correct_answer": "D"}',
    '{"answer_key_correct": true, "cause": "translation", "explanation": "the key is fine"}',
    '{"answer_key_correct": false, "correct_answer": "A"}',
], ids=["key-twice", "answer-twice", "cause-on-correct", "wrong-but-key"])
def test_self_contradicting_verdict_is_stored_as_such_and_asked_again(db_path, judge_server, reply):
    make_benchmark(db_path, n=2)
    judge_server.script["q000"] = [("text", reply), ("json", {"answer_key_correct": True})]
    s = judge(db_path, judge_server)
    assert (s.n_ok, s.n_parse_failed, s.n_disputed) == (1, 1, 0)
    [(ok, err, raw)] = rows(db_path, "SELECT parse_ok, parse_error, raw_reply FROM judge_verdicts "
                                     "WHERE question_id = 'q000'")
    assert ok is False and err.startswith("contradictory") and raw == reply, err
    assert judge(db_path, judge_server).n_requested == 1
    assert rows(db_path, "SELECT parse_ok, answer_key_correct FROM judge_verdicts WHERE question_id = 'q000'") == [
        (True, True)]


# ---------------------------------------------------------------- the cost cap

NO_USAGE = ("usage", None, ("text", "Answer: B"))
NEGATIVE = ("usage", {"prompt_tokens": -6_000_000_000, "completion_tokens": -5, "total_tokens": -1},
            ("text", "Answer: B"))
TEXTUAL = ("usage", {"prompt_tokens": "lots", "completion_tokens": "x", "total_tokens": "y"}, ("text", "Answer: B"))


@pytest.mark.parametrize("reply", [NO_USAGE, NEGATIVE, TEXTUAL], ids=["no-usage", "negative", "string"])
def test_max_cost_is_honoured_when_no_call_can_be_priced(db_path, server, reply):
    make_benchmark(db_path, n=30)
    server.default_reply = lambda qid: reply
    s = predict(db_path, server, concurrency=1, max_cost=0.01)
    assert s.status == "max_cost", s.lines()
    assert "cannot be honoured" in s.stop_reason
    assert server.total == 1 and s.n_not_sent == 29
    assert s.cost_usd is not None and s.cost_usd >= 0


@pytest.mark.parametrize("reply", [NO_USAGE, NEGATIVE, TEXTUAL], ids=["no-usage", "negative", "string"])
def test_an_unpriceable_call_counts_as_the_most_expensive_seen(db_path, server, reply):
    make_benchmark(db_path, n=30)
    call = 100 * IN_COST + 20 * OUT_COST        # the server's normal usage: 100 in, 20 out
    server.script["q000"] = [("text", "Answer: A")]
    server.default_reply = lambda qid: reply
    cap = 4.5 * call
    s = predict(db_path, server, concurrency=1, max_cost=cap)
    assert s.status == "max_cost", s.lines()
    # one priced call, then unpriceable ones each counted as that call: the cap is reached after 5 calls
    assert server.total == 5, server.total
    assert s.cost_usd == pytest.approx(call)    # what was really priced; the unpriced calls stay unknown
    assert rows(db_path, "SELECT count(*) FROM model_calls WHERE cost_usd < 0") + \
        rows(db_path, "SELECT count(*) FROM model_calls WHERE prompt_tokens < 0") == [(0,), (0,)]


def test_judge_max_cost_without_usage(db_path, judge_server):
    make_benchmark(db_path, n=20)
    judge_server.default_reply = lambda qid: ("usage", None, ("json", {"answer_key_correct": True}))
    s = judge(db_path, judge_server, concurrency=1, max_cost=0.01)
    assert s.status == "max_cost" and judge_server.total == 1, s.lines()


# ---------------------------------------------------------------- numbers at the boundary

BAD_OPTIONS = [
    ("--max-cost", "nan"), ("--max-cost", "inf"), ("--max-cost", "-1"),
    ("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "0"), ("--timeout", "1e9"),
    ("--temperature", "nan"), ("--temperature", "inf"), ("--temperature", "-0.5"), ("--temperature", "7"),
    ("--input-cost-per-token", "nan"), ("--output-cost-per-token", "-1e-6"),
    ("--backoff-base", "nan"), ("--max-tokens", "0"), ("--concurrency", "0"), ("--max-retries", "-1"),
]


@pytest.mark.parametrize("command", ["predict", "judge"])
@pytest.mark.parametrize("option,value", BAD_OPTIONS, ids=[f"{o}={v}" for o, v in BAD_OPTIONS])
def test_bad_numbers_are_refused_before_any_request(db_path, server, capsys, command, option, value):
    make_benchmark(db_path, n=2)
    before = db_snapshot(db_path)
    t0 = time.monotonic()
    code, out, err = run_cli(capsys, command, "run", "--model", MODEL, "--benchmark", "jb", "--api-base", server.base,
                             "--input-cost-per-token", "1e-6", "--output-cost-per-token", "1e-6",
                             option, value, "--db", db_path)
    assert code == 1, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0], err
    assert server.total == 0
    assert time.monotonic() - t0 < 20
    assert db_snapshot(db_path) == before


# ---------------------------------------------------------------- the event loop

def test_slow_extraction_does_not_block_the_event_loop(db_path, server, monkeypatch):
    """Replies are extracted in worker threads: four replies whose extraction
    takes 1 s each (an adversarial reply) are extracted side by side, and the
    runner keeps sending and committing meanwhile (on main, in the event
    loop, they took 4 s one after another)."""
    import audit.predict._run as mod

    real = mod.extract_answer

    def slow(*args, **kw):
        time.sleep(1.0)
        return real(*args, **kw)

    monkeypatch.setattr(mod, "extract_answer", slow)
    make_benchmark(db_path, n=4)
    t0 = time.monotonic()
    s = predict(db_path, server, concurrency=4)
    took = time.monotonic() - t0
    assert s.n_answered == 4
    assert took < 3.0, took


# ---------------------------------------------------------------- further cases (our own attack)

def _body(message: dict, usage: dict | None = None, n: int = 1) -> tuple:
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": i, "message": message, "finish_reason": "stop"} for i in range(n)]}
    body["usage"] = usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return ("raw", body)


UNREADABLE = {
    "content-list": _body({"role": "assistant", "content": [{"type": "text", "text": "Answer: B"}]}),
    "content-number": _body({"role": "assistant", "content": 3}),
    "usage-nan": _body({"role": "assistant", "content": "Answer: B"},
                       {"prompt_tokens": float("nan"), "completion_tokens": 5, "total_tokens": 15}),
    "not-json": ("raw", "not json"),
}


@pytest.mark.parametrize("reply", list(UNREADABLE.values()), ids=list(UNREADABLE))
def test_unreadable_reply_is_a_failed_request_in_one_line_never_an_answer(db_path, server, reply):
    make_benchmark(db_path, n=2)
    server.script["q000"] = [reply]
    s = predict(db_path, server)
    assert (s.n_ok, s.n_errors) == (1, 1)
    [(msg,)] = rows(db_path, "SELECT message FROM predict_errors WHERE question_id = 'q000'")
    assert "Traceback" not in msg and "\n  File " not in msg, msg
    assert rows(db_path, "SELECT count(*) FROM predictions WHERE question_id = 'q000'") == [(0,)]
    assert predict(db_path, server).n_requested == 1      # asked again


def test_absurd_token_counts_are_unpriced_not_a_crash(db_path, server):
    make_benchmark(db_path, n=3)
    server.script["q000"] = [("usage", {"prompt_tokens": 10**15, "completion_tokens": 5, "total_tokens": 10**15},
                              ("text", "Answer: B"))]
    s = predict(db_path, server, concurrency=1)
    assert s.status == "finished" and s.n_ok == 3
    assert rows(db_path, "SELECT prompt_tokens, cost_usd FROM model_calls WHERE question_id = 'q000'") == [(None, None)]


def test_max_cost_zero_sends_nothing(db_path, server):
    make_benchmark(db_path, n=3)
    s = predict(db_path, server, max_cost=0.0)
    assert server.total == 0 and s.status == "max_cost" and s.n_not_sent == 3


def test_content_filter_stop_is_not_an_answer(db_path, server):
    make_benchmark(db_path, n=2)
    server.script["q000"] = [("finish", "content_filter", ("text", "Answer: B")), ("text", "Answer: C")]
    s = predict(db_path, server)
    assert (s.n_ok, s.n_errors) == (1, 1)
    assert predict(db_path, server).n_requested == 1
    assert rows(db_path, "SELECT answer FROM predictions WHERE question_id = 'q000'") == [("C",)]


def test_nul_characters_and_a_second_choice(db_path, server):
    make_benchmark(db_path, n=2)
    server.script["q000"] = [("text", "Answer: B\x00\x00 done")]
    server.script["q001"] = [_body({"role": "assistant", "content": "Answer: C"}, n=2)]
    predict(db_path, server)
    assert rows(db_path, "SELECT question_id, response, answer FROM model_calls ORDER BY 1") == [
        ("q000", "Answer: B\x00\x00 done", "B"), ("q001", "Answer: C", "C")]


def test_one_megabyte_reply_is_stored_and_extracted(db_path, server):
    make_benchmark(db_path, n=1)
    server.script["q000"] = [("text", "x" * 1_000_000 + "\n\nAnswer: C")]
    t0 = time.monotonic()
    s = predict(db_path, server)
    assert s.n_answered == 1 and time.monotonic() - t0 < 30
    assert rows(db_path, "SELECT length(response), answer FROM model_calls") == [(1_000_011, "C")]


ADVERSARIAL_JUDGE = {
    "deep-list": "[" * 100_000,
    "deep-object": '{"a":' * 100_000,
    "braces": "{" * 200_000,
    "nested-unclosed": 'Verdict: {"a": {"a": ' * 20_000,
    "many-objects": '{"x": 1} ' * 5_000,
}


@pytest.mark.parametrize("reply", list(ADVERSARIAL_JUDGE.values()), ids=list(ADVERSARIAL_JUDGE))
def test_adversarial_judge_reply_fails_parsing_quickly(db_path, judge_server, reply):
    """main: RecursionError (the run crashed) or 33 s for 200,000 '{'."""
    make_benchmark(db_path, n=2)
    judge_server.script["q000"] = [("text", reply)]
    t0 = time.monotonic()
    s = judge(db_path, judge_server)
    assert time.monotonic() - t0 < 15
    assert (s.status, s.n_ok, s.n_parse_failed) == ("finished", 1, 1)
    [(ok, err)] = rows(db_path, "SELECT parse_ok, parse_error FROM judge_verdicts WHERE question_id = 'q000'")
    assert ok is False and err


def test_judge_confidence_nan_and_infinity_are_not_numbers(db_path, judge_server):
    make_benchmark(db_path, n=2)
    judge_server.script["q000"] = [("text", '{"answer_key_correct": true, "confidence": NaN}')]
    judge_server.script["q001"] = [("text", '{"answer_key_correct": true, "confidence": Infinity}')]
    judge(db_path, judge_server)
    assert rows(db_path, "SELECT parse_ok, confidence FROM judge_verdicts ORDER BY question_id") == [
        (True, None), (True, None)]


def test_key_inside_a_structured_explanation_is_redacted(db_path, judge_server):
    make_benchmark(db_path, n=1)
    judge_server.script["q000"] = [("echo", '{"answer_key_correct": true, "explanation": {"auth": "{auth}"}}')]
    judge(db_path, judge_server)
    assert KEY not in _text_columns(db_path)
    assert rows(db_path, "SELECT explanation FROM judge_verdicts") == [('{"auth": "Bearer ***"}',)]
