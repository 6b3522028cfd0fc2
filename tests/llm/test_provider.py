"""audit.llm.provider: talking to a provider through litellm.  Pins
``safe_url`` (no user info, query or fragment), the call parameters
(the key only from the named variable, prices, ``max_cost`` needing a
price, extra parameters last), what a reply holds (content, separate
reasoning or thinking blocks, finish reason, token counts that are whole
numbers >= 0 and under 2**31) and when a reply cannot count.  Parsing uses
litellm's own ``ModelResponse``; no request is sent (tests/judge/test_run.py
and tests/predict/test_run.py drive the real request path against a local
server).  litellm takes seconds to import on a busy machine: the tests that
need it are marked slow."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from audit.errors import AuditError
from audit.llm.provider import (
    FATAL,
    MAX_TOKENS_COUNT,
    RETRYABLE,
    call_params,
    message_parts,
    reply_problem,
    safe_url,
    token_count,
)


@pytest.mark.parametrize("url, safe", [
    ("https://user:pw@host:8/v1?key=abc#frag", "https://host:8/v1"),
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ("http://tok@localhost/v1/", "http://localhost/v1/"),
    (None, None), ("", ""),
])
def test_safe_url(url, safe):
    assert safe_url(url) == safe


def test_error_classes_are_disjoint():
    assert not set(RETRYABLE) & set(FATAL)
    assert "RateLimitError" in RETRYABLE and "AuthenticationError" in FATAL


def _params(**kw):
    args = dict(api_base=None, api_key_env=None, timeout=30.0, temperature=0.0, max_tokens=None,
                input_cost_per_token=None, output_cost_per_token=None, max_cost=None)
    args.update(kw)
    return args


def test_call_params_with_a_named_key_and_custom_prices_never_consult_litellm(monkeypatch):
    """With ``api_key_env`` and both prices given, neither the credentials nor
    the price list are looked up (``litellm`` is not touched: None here)."""
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-local-123456")
    params, key, known, custom = call_params(
        None, "openai/local", **_params(api_base="http://127.0.0.1:9/v1", api_key_env="LOCAL_LLM_KEY",
                                        max_tokens=64, input_cost_per_token=1e-6, output_cost_per_token=2e-6,
                                        max_cost=1.0, extra_params={"top_p": 0.5, "timeout": 5}))
    assert key == "sk-local-123456" and known and custom
    assert params == {"model": "openai/local", "timeout": 5, "max_retries": 0, "drop_params": True,
                      "api_base": "http://127.0.0.1:9/v1", "api_key": "sk-local-123456", "temperature": 0.0,
                      "max_tokens": 64, "input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "top_p": 0.5}


def test_call_params_without_temperature(monkeypatch):
    monkeypatch.setenv("K", "x")
    params, *_ = call_params(None, "m", **_params(api_key_env="K", temperature=None, input_cost_per_token=0.0))
    assert "temperature" not in params and "max_tokens" not in params and "api_base" not in params


def test_an_unset_key_variable_is_one_line(monkeypatch):
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    with pytest.raises(AuditError, match="^the environment variable NOT_SET_KEY \\(--api-key-env\\) is not set$"):
        call_params(None, "m", **_params(api_key_env="NOT_SET_KEY"))


def _response(message: dict, finish="stop", usage=None):
    msg = SimpleNamespace(content=message.get("content"), reasoning_content=message.get("reasoning_content"),
                          thinking_blocks=message.get("thinking_blocks"))
    return SimpleNamespace(choices=[SimpleNamespace(message=msg, finish_reason=finish)], usage=usage)


def test_message_parts_of_reply_shapes():
    usage = SimpleNamespace(prompt_tokens=12, completion_tokens=3)
    assert message_parts(_response({"content": "Answer: ཁ"}, usage=usage)) == {
        "content": "Answer: ཁ", "reasoning": None, "finish_reason": "stop", "prompt_tokens": 12,
        "completion_tokens": 3, "choices": 1}
    thinking = _response({"content": "B", "thinking_blocks": [{"thinking": "one"}, {"type": "x"},
                                                              {"thinking": "two"}]})
    assert message_parts(thinking)["reasoning"] == "one\n\ntwo"
    assert message_parts(_response({"content": "B", "reasoning_content": "why"}))["reasoning"] == "why"
    assert message_parts(_response({"content": ["part"]}))["content"] == "['part']"
    empty = message_parts(SimpleNamespace(choices=[], usage=None))
    assert empty == {"content": None, "reasoning": None, "finish_reason": None, "prompt_tokens": None,
                     "completion_tokens": None, "choices": 0}
    assert message_parts(None)["content"] is None


@pytest.mark.parametrize("value, count", [
    (0, 0), (5, 5), (5.0, 5), (MAX_TOKENS_COUNT, MAX_TOKENS_COUNT), (MAX_TOKENS_COUNT + 1, None), (-1, None),
    (2.5, None), (math.nan, None), (math.inf, None), (True, None), ("12", None), (None, None),
])
def test_token_count(value, count):
    assert token_count(value) == count


@pytest.mark.parametrize("parts, problem", [
    ({"content": "B", "finish_reason": "stop"}, None),
    ({"content": "B", "finish_reason": None}, None),
    ({"content": " \n\t", "finish_reason": "stop"}, "empty reply (no content)"),
    ({"content": "", "finish_reason": "length"}, "empty reply (no content)"),
    ({"content": "partial", "finish_reason": "content_filter"},
     "cut off by the provider's content filter (finish_reason 'content_filter')"),
    ({}, "empty reply (no content)"),
])
def test_reply_problem(parts, problem):
    assert reply_problem(parts) == problem


@pytest.mark.slow
def test_with_the_real_litellm(monkeypatch):
    from audit.llm.provider import check_credentials, litellm_module, price_known

    litellm = litellm_module()
    assert price_known(litellm, "gpt-4o") is True
    assert price_known(litellm, "openai/no-such-model-for-this-test") is False
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AuditError, match="no API key for 'openai/gpt-4o': set OPENAI_API_KEY"):
        check_credentials(litellm, "openai/gpt-4o", None)
    check_credentials(litellm, "ollama/llama3", None)          # configured by a base URL, not a key: not blocked
    with pytest.raises(AuditError, match="--max-cost needs a price"):
        monkeypatch.setenv("K", "x")
        call_params(litellm, "openai/no-such-model-for-this-test", **_params(api_key_env="K", max_cost=1.0))
    resp = litellm.ModelResponse(
        choices=[{"message": {"role": "assistant", "content": "Answer: B", "reasoning_content": "think"},
                  "finish_reason": "length"}],
        usage={"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13})
    parts = message_parts(resp)
    assert parts == {"content": "Answer: B", "reasoning": "think", "finish_reason": "length", "prompt_tokens": 10,
                     "completion_tokens": 3, "choices": 1}
    assert reply_problem(parts) == "cut off by the length limit (finish_reason 'length')"
