"""Talking to a provider through litellm: the module, credentials, call
parameters, what a reply holds and whether it can count."""
from __future__ import annotations

import math
import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from audit._util.redact import is_secret_name
from audit.errors import AuditError

RETRYABLE = ("RateLimitError", "Timeout", "InternalServerError", "ServiceUnavailableError", "BadGatewayError",
             "APIConnectionError")
FATAL = ("AuthenticationError", "PermissionDeniedError", "NotFoundError", "PaymentRequiredError",
         "BudgetExceededError")


def litellm_module() -> Any:
    """litellm, imported with the bundled price list (no download) and quiet logs."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import logging

    import litellm

    litellm.suppress_debug_info = True
    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    return litellm


# ---------------------------------------------------------------- secrets
# (error messages go through audit._util.redact.redact: the one redaction rule)

def safe_url(url: str | None) -> str | None:
    """``api_base`` without user info, query or fragment (they may carry tokens).

    >>> safe_url("https://user:pw@host:8/v1?key=abc")
    'https://host:8/v1'
    """
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def check_credentials(litellm: Any, model: str, api_base: str | None) -> None:
    """Fail before any request when the provider's key variable is unset
    (litellm would report it as a 500 for every item).  Only credential
    variables (…_KEY, …_TOKEN) are required here; providers configured
    otherwise (Vertex project, Ollama base URL) are not blocked."""
    try:
        env = litellm.validate_environment(model=model, api_base=api_base)
    except Exception:
        return
    missing = list(env.get("missing_keys") or [])
    if env.get("keys_in_environment") or not missing:
        return
    if all(is_secret_name(k) for k in missing):
        raise AuditError(
            f"no API key for '{model}': set {' or '.join(missing)} in the environment "
            "(or name another variable with --api-key-env; a local server accepts any value)")


def price_known(litellm: Any, model: str) -> bool:
    """Whether litellm has a price for ``model``."""
    try:
        litellm.cost_per_token(model=model, prompt_tokens=1000, completion_tokens=1000)
    except Exception:
        return False
    return True


def call_params(litellm: Any, model: str, *, api_base: str | None, api_key_env: str | None, timeout: float,
                temperature: float | None, max_tokens: int | None, input_cost_per_token: float | None,
                output_cost_per_token: float | None, max_cost: float | None,
                extra_params: dict[str, Any] | None = None) -> tuple[dict[str, Any], str | None, bool, bool]:
    """The litellm call parameters, the API key (only when ``api_key_env``
    names one), whether the price is known and whether it is a custom price.
    Refuses a run without credentials, or ``max_cost`` without a price."""
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise AuditError(f"the environment variable {api_key_env} (--api-key-env) is not set")
    else:
        check_credentials(litellm, model, api_base)
    custom = input_cost_per_token is not None or output_cost_per_token is not None
    known = custom or price_known(litellm, model)
    if max_cost is not None and not known:
        raise AuditError(
            f"--max-cost needs a price, and litellm has none for '{model}'; "
            "pass --input-cost-per-token and --output-cost-per-token")
    # drop_params: litellm leaves out parameters a provider rejects (e.g. temperature for reasoning models)
    params: dict[str, Any] = {"model": model, "timeout": timeout, "max_retries": 0, "drop_params": True}
    if api_base:
        params["api_base"] = api_base
    if api_key:
        params["api_key"] = api_key
    if temperature is not None:
        params["temperature"] = temperature
    if max_tokens is not None:
        params["max_tokens"] = max_tokens
    if input_cost_per_token is not None:
        params["input_cost_per_token"] = input_cost_per_token
    if output_cost_per_token is not None:
        params["output_cost_per_token"] = output_cost_per_token
    params.update(extra_params or {})
    return params, api_key, known, custom


def message_parts(resp: Any) -> dict[str, Any]:
    """content, reasoning (the provider's separate reasoning text, or None),
    finish_reason, prompt/completion tokens of a litellm response, and
    ``choices``: how many different answers it holds.  One completion is
    asked for; a reply with several choices that say different things has
    no content here (litellm numbers the choices by their place in the list,
    so which one the provider numbered 0 cannot be told: :func:`reply_problem`
    names it); copies of one answer are that answer."""
    content = reasoning = finish = None
    try:
        n_choices = len({str(getattr(c.message, "content", None)) for c in resp.choices})
    except (AttributeError, TypeError):
        n_choices = 0
    try:
        choice = resp.choices[0]
        msg = choice.message
        content = msg.content
        finish = getattr(choice, "finish_reason", None)
        reasoning = getattr(msg, "reasoning_content", None)
        if not reasoning:
            blocks = getattr(msg, "thinking_blocks", None) or []
            texts = [str(b["thinking"]) for b in blocks if isinstance(b, dict) and b.get("thinking")]
            reasoning = "\n\n".join(texts) or None
    except (AttributeError, IndexError, TypeError):
        pass
    usage = getattr(resp, "usage", None)
    if n_choices > 1:
        content = reasoning = None
    return {"content": content if isinstance(content, str) or content is None else str(content),
            "reasoning": reasoning or None, "finish_reason": finish, "choices": n_choices,
            "prompt_tokens": token_count(getattr(usage, "prompt_tokens", None)),
            "completion_tokens": token_count(getattr(usage, "completion_tokens", None))}


def token_count(value: Any) -> int | None:
    """A token count as the provider reported it, or None when it is not a
    whole number >= 0 (a negative or textual count is no count)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if 0 <= value <= MAX_TOKENS_COUNT and value == int(value) else None


#: The largest token count of one call taken at face value (a 32-bit count; a reply claiming more is
#: a provider's error, and unpriceable).
MAX_TOKENS_COUNT = 2**31 - 1


def reply_problem(parts: dict[str, Any]) -> str | None:
    """Why a reply (:func:`message_parts`) cannot count as an answer, or
    None: no content at all (``choices: []``, ``content: null``, only
    whitespace), or cut off (``finish_reason`` 'length': the token limit;
    'content_filter': the provider's filter).  Such replies are stored as
    what they are and asked again by the next run.

    >>> reply_problem({"content": "Answer: B", "finish_reason": "stop"}) is None
    True
    >>> reply_problem({"content": "Answer: B is", "finish_reason": "length"})
    "cut off by the length limit (finish_reason 'length')"
    >>> reply_problem({"content": None, "finish_reason": None})
    'empty reply (no content)'
    """
    if (parts.get("choices") or 0) > 1:
        return (f"empty reply ({parts['choices']} different choices for one request: which one answers cannot "
                "be told)")
    content = parts.get("content")
    if content is None or not str(content).strip():
        return "empty reply (no content)"
    finish = parts.get("finish_reason")
    if finish == "length":
        return "cut off by the length limit (finish_reason 'length')"
    if finish == "content_filter":
        return "cut off by the provider's content filter (finish_reason 'content_filter')"
    return None


# ---------------------------------------------------------------- run ownership


__all__ = [
    "call_params",
    "check_credentials",
    "litellm_module",
    "message_parts",
    "price_known",
    "reply_problem",
    "safe_url",
]
