"""The one runner for LLM calls through litellm, shared by ``audit predict
run`` (models answering a benchmark, ingest stage) and ``audit judge run``
(judges, judge stage).  Stage-neutral: it imports only the store, so both
stages can use it without breaking the data-flow order.

What it does for a list of items, each asked once:

* **Any provider** litellm supports (``provider/model``; ``api_base`` for
  OpenAI-compatible servers such as vLLM, Ollama, llama.cpp).  Keys come from
  the provider's usual environment variable (or the one named by
  ``api_key_env``); they are never stored, and error messages are redacted
  (:func:`redact`) before they are stored or printed.
* **Concurrency** with an ``asyncio.Semaphore``.
* **Backoff** on 429, 5xx, connection errors and timeouts: attempt *k*
  (0-based) waits ``min(backoff_max, backoff_base · 2**k)`` × a random factor
  in [0.5, 1] (or the server's ``Retry-After`` when longer), at most
  ``max_retries`` retries.  Authentication / permission / unknown-model
  errors stop the run; other 4xx fail the item only.  litellm's own retries
  are off (``max_retries=0``).
* **Cost**: from litellm (``response._hidden_params["response_cost"]``, else
  ``litellm.completion_cost``); custom prices for local models.
  ``max_cost`` stops cleanly: once the replies received cost that much no
  new request starts; requests in flight finish and are kept.  A reply the
  provider gives no usable usage for (none, negative, textual or absurd
  token counts, a negative or NaN cost) is stored with cost NULL and counted
  against ``max_cost`` as the most expensive reply seen; before any reply
  could be priced it stops the run with a clear reason (:meth:`CallRunner.charge`).
  ``max_cost`` 0 sends nothing.
* **Replies checked before they count** (:func:`reply_problem`): an empty
  reply (``choices: []``, ``content: null``, only whitespace) or one cut off
  (``finish_reason`` 'length' or 'content_filter') is stored as what it is
  and asked again by the next run, never taken as an answer.
* **Secrets**: every stored reply, reasoning text and explanation goes
  through :meth:`CallRunner.scrub` (the run's key and every secret
  environment variable replaced by ``***``), since a provider may echo the
  key back.
* **Numbers at the boundary**: :meth:`RunOptions.validate` refuses NaN,
  Infinity and out-of-range values of every numeric option
  (:func:`check_number`) before anything is sent or stored.
* **Extraction off the event loop**: the stage's ``row`` (parsing, answer
  extraction) runs in a worker thread, so a slow reply never stalls the
  other requests or the writer.
* **Every reply durable before its slot moves on**: a worker hands its
  result to the writer task and waits until the writer has committed it; only
  then does it free its concurrency slot for the next item.  The writer
  commits whatever results are waiting in one short transaction (group
  commit: :meth:`CallRunner.apply`; :meth:`CallRunner.commit` opens the
  database for it, and keeps it open for the next commit only while more
  results are already waiting, at most ``HOLD_S`` = 1 s in a row), so a reply
  that arrives during a commit is committed by the next one, workers keep
  their requests overlapping, and the file is free whenever the writer has
  nothing to write.
  Hence at any moment each of the ``concurrency`` slots holds at most one
  reply not yet committed, and a SIGKILL loses at most the replies in flight:
  requests sent but not yet answered, plus replies received but not yet
  committed, together at most ``concurrency`` (and a slow commit, e.g. a
  database held by another process, stops new requests instead of piling up
  uncommitted replies).
* **Run ownership**: :func:`claim_run` records the process id in the run's
  row and :func:`correct_stale_runs` marks runs left ``running`` by a
  process that no longer exists as ``killed`` (the next run does it).

The stage subclasses :class:`CallRunner` and provides ``messages(item)``,
``row(item, response, latency, attempts)``, ``apply(batch)`` and
``finish(status, reason)``; caching (which items still need a call) is the
stage's selection query.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import math
import os
import random
import socket
import sys
import time
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit, urlunsplit

from audit.redact import is_secret_name, redact, redact_values
from audit.errors import AuditError, DatabaseLockedError, InputError, NotFoundError
from audit.store import connect, transaction
from audit.store import DbPath

__all__ = ["litellm_module", "redact", "safe_url", "check_credentials", "price_known", "CallRunner",
           "claim_run", "correct_stale_runs", "call_params", "validate_run_args", "message_parts", "check_number",
           "reply_problem"]


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
# (error messages go through audit.redact.redact: the one redaction rule)

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



@dataclass(frozen=True)
class RunOptions:
    """How a model run (:func:`audit.run_predict`) or a judge run
    (:func:`audit.run_judge`) selects items and talks to the provider: the
    options both share.

    Selection: ``question_ids`` / ``tiers`` (latest audit run) / ``subjects``
    / ``limit``.  Requests: ``concurrency`` in flight, ``max_cost`` (USD,
    stop once replies cost that much), ``api_base`` (an OpenAI-compatible
    server), ``api_key_env`` (the variable holding the key), ``timeout``
    seconds per request (None: the stage's default, 60 s for judges, 120 s
    for models), ``max_retries`` with backoff ``backoff_base`` doubling up
    to ``backoff_max``; sampling ``temperature`` and ``max_tokens``; prices
    for models litellm does not know; ``extra_params`` passed to litellm;
    ``progress`` (None: a bar when stderr is a terminal).

    >>> opts = RunOptions(concurrency=4, tiers=[1, 2])
    >>> opts.concurrency, opts.tiers, opts.timeout
    (4, (1, 2), None)
    >>> opts.merged(limit=10).limit
    10
    >>> RunOptions().merged(colour="red")
    Traceback (most recent call last):
    ...
    TypeError: unknown run option 'colour'
    """

    question_ids: Iterable[str] | None = None  # stored as a tuple (None: no filter)
    tiers: Iterable[int] | None = None
    subjects: Iterable[str] | None = None
    limit: int | None = None
    concurrency: int = 8
    max_cost: float | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    temperature: float | None = 0.0
    max_tokens: int | None = None
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None
    extra_params: dict[str, Any] | None = None
    progress: bool | None = None

    def __post_init__(self) -> None:
        # lists from a caller or the command line become tuples; empty selections mean "no filter"
        for name in ("question_ids", "tiers", "subjects"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value) or None)

    def merged(self, **changes: Any) -> "RunOptions":
        """A copy with *changes* (each must be a field of this class)."""
        known = {f.name for f in fields(self)}
        for name in changes:
            if name not in known:
                raise TypeError(f"unknown run option '{name}'")
        return replace(self, **changes)

    def as_kwargs(self, *, timeout: float) -> dict[str, Any]:
        """The keyword arguments of the stage's run function (``timeout``: its default)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if out["timeout"] is None:
            out["timeout"] = timeout
        return out

    @classmethod
    def of(cls, options: "RunOptions | None" = None, **changes: Any) -> "RunOptions":
        """*options* (default: the defaults) with *changes*."""
        return (options or cls()).merged(**changes)

    def resolved(self, *, timeout: float) -> "RunOptions":
        """These options with the stage's default ``timeout`` filled in."""
        return self if self.timeout is not None else replace(self, timeout=timeout)

    def validate(self, model: str) -> None:
        """The checks every run makes before touching the database: every
        number finite and in range (NaN, Infinity refused)."""
        validate_run_args(model, self.concurrency, self.max_cost, self.timeout)
        check_number("--limit", self.limit, low=0, integer=True)
        check_number("--max-retries", self.max_retries, low=0, high=100, integer=True)
        check_number("--backoff-base", self.backoff_base, low=0, high=3600)
        check_number("--backoff-max", self.backoff_max, low=0, high=3600)
        check_number("--temperature", self.temperature, low=0, high=2)
        check_number("--max-tokens", self.max_tokens, low=1, integer=True)
        check_number("--input-cost-per-token", self.input_cost_per_token, low=0)
        check_number("--output-cost-per-token", self.output_cost_per_token, low=0)

    def provider(self, model: str) -> tuple[Any, dict[str, Any], str | None, bool, bool]:
        """litellm, the call parameters, the API key, whether the price is
        known and whether it is a custom price (see :func:`call_params`)."""
        litellm = litellm_module()
        return (litellm, *call_params(
            litellm, model, api_base=self.api_base, api_key_env=self.api_key_env, timeout=self.timeout,
            temperature=self.temperature, max_tokens=self.max_tokens,
            input_cost_per_token=self.input_cost_per_token, output_cost_per_token=self.output_cost_per_token,
            max_cost=self.max_cost, extra_params=self.extra_params))

    def stored_config(self) -> dict[str, Any]:
        """What a run records of these options: never a key (only the name
        of its variable), the URL without credentials, the names of the
        extra parameters."""
        def ids(values: Iterable[Any] | None) -> list[Any] | None:
            return sorted(set(values)) if values is not None else None

        return {
            "api_base": safe_url(self.api_base), "api_key_env": self.api_key_env,
            "concurrency": self.concurrency, "max_cost": self.max_cost, "timeout": self.timeout,
            "max_retries": self.max_retries, "backoff_base": self.backoff_base, "backoff_max": self.backoff_max,
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "input_cost_per_token": self.input_cost_per_token, "output_cost_per_token": self.output_cost_per_token,
            "filters": {"question_ids": ids(self.question_ids), "tiers": ids(self.tiers),
                        "subjects": ids(self.subjects), "limit": self.limit},
            "extra_params": sorted((self.extra_params or {}).keys()),
        }

    def runner_args(self) -> dict[str, Any]:
        """The :class:`CallRunner` arguments these options set."""
        return {"concurrency": self.concurrency, "max_cost": self.max_cost, "max_retries": self.max_retries,
                "backoff_base": self.backoff_base, "backoff_max": self.backoff_max}


def check_selection(con: Any, benchmark: str, tiers: Iterable[int] | None) -> None:
    """The benchmark exists, and ``tiers`` has an audit run to select from."""
    if not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
        raise NotFoundError(f"no benchmark named '{benchmark}'")
    if tiers is not None and not con.execute(
            "SELECT 1 FROM audit_runs WHERE benchmark = ? LIMIT 1", [benchmark]).fetchone():
        raise NotFoundError(f"--tier needs an audit run; run 'audit analyze --benchmark {benchmark}' first")


__all__ += ["RunOptions"]


def check_number(option: str, value: Any, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, integer: bool = False) -> None:
    """Refuse ``value`` of ``option`` (named as on the command line) unless
    it is a finite number in [``low``, ``high``] (``low_open``: above
    ``low``); ``integer``: a whole number.  None is allowed (the option is
    unset).  NaN and Infinity never pass.

    >>> check_number("--timeout", 5.0, low=0, low_open=True)
    >>> check_number("--timeout", float("nan"), low=0, low_open=True)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: --timeout must be a finite number, not nan
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{option} must be a number, not {value!r}")
    if not math.isfinite(value):
        raise InputError(f"{option} must be a finite number, not {value}")
    if integer and value != int(value):
        raise InputError(f"{option} must be a whole number, not {value}")
    if low is not None and (value <= low if low_open else value < low):
        raise InputError(f"{option} must be {'above' if low_open else 'at least'} {low:g}, not {value:g}")
    if high is not None and value > high:
        raise InputError(f"{option} must be at most {high:g}, not {value:g}")


#: The longest request timeout accepted (seconds): a day.
MAX_TIMEOUT = 86400.0


def validate_run_args(model: str, concurrency: int, max_cost: float | None, timeout: float) -> None:
    """The argument checks every run makes before touching the database."""
    if not model or not model.strip():
        raise InputError("--model must name a litellm model, e.g. openai/gpt-4o or gemini/gemini-2.5-pro")
    check_number("--concurrency", concurrency, low=1, high=10_000, integer=True)
    check_number("--max-cost", max_cost, low=0)
    check_number("--timeout", timeout, low=0, low_open=True, high=MAX_TIMEOUT)


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
    finish_reason, prompt/completion tokens of a litellm response."""
    content = reasoning = finish = None
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
    return {"content": content if isinstance(content, str) or content is None else str(content),
            "reasoning": reasoning or None, "finish_reason": finish,
            "prompt_tokens": _count(getattr(usage, "prompt_tokens", None)),
            "completion_tokens": _count(getattr(usage, "completion_tokens", None))}


def _count(value: Any) -> int | None:
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

def _alive(pid: int | None, host: str | None) -> bool:
    if pid is None or host != socket.gethostname():
        return host is not None and host != socket.gethostname()  # another machine: cannot tell, keep it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def correct_stale_runs(con: Any, table: str, where: str, params: list, by_run: int | None = None) -> int:
    """Mark runs of ``table`` (``judge_runs`` or ``predict_runs``) matching
    ``where`` that are still 'running' but whose process is gone as
    'killed' (a SIGKILL or power loss leaves them so).  Returns how many."""
    rows = con.execute(f"SELECT run_id, pid, host FROM {table} WHERE status = 'running' AND {where}",
                       params).fetchall()
    stale = [r[0] for r in rows if not _alive(r[1], r[2])]
    for run_id in stale:
        note = "the process stopped without finishing (killed); status corrected" + (
            f" by run {by_run}" if by_run is not None else "")
        con.execute(f"UPDATE {table} SET status = 'killed', stop_reason = ? WHERE run_id = ?", [note, run_id])
    return len(stale)


def update_run(con: Any, table: str, run_id: int, totals_allowed: Iterable[str], *, status: str | None = None,
               stop_reason: str | None = None, finished: bool = False, **totals: Any) -> None:
    """Set totals (absolute values) of a ``table`` run row, and optionally its
    status, stop reason and finishing time."""
    sets, params = [], []
    for k, v in totals.items():
        if k not in totals_allowed:
            raise ValueError(f"unknown {table} total {k!r}")
        sets.append(f"{k} = ?")
        params.append(v)
    if status is not None:
        sets.append("status = ?")
        params.append(status)
    if stop_reason is not None:
        sets.append("stop_reason = ?")
        params.append(stop_reason)
    if finished:
        sets.append("finished_at = now()")
    if sets:
        con.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE run_id = ?", [*params, run_id])


def usage_lines(summary: Any) -> list[str]:
    """The lines a predict or judge run summary ends with: tokens, cost and
    time, the status, the first errors."""
    cost = "unknown (no price for this model)" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    return [f"tokens {summary.prompt_tokens} in / {summary.completion_tokens} out · cost {cost} · "
            f"{summary.elapsed_s:.1f} s",
            f"status: {summary.status}" + (f" ({summary.stop_reason})" if summary.stop_reason else ""),
            *(f"  error: {e}" for e in summary.errors)]


def claim_run(con: Any, table: str, run_id: int) -> None:
    """Record this process as the one running ``run_id``."""
    con.execute(f"UPDATE {table} SET pid = ?, host = ? WHERE run_id = ?", [os.getpid(), socket.gethostname(), run_id])


# ---------------------------------------------------------------- the runner

class CallRunner:
    """Asks one model about many items; see the module docstring.

    Subclasses implement :meth:`messages`, :meth:`row`, :meth:`apply` and
    :meth:`finish`.  ``row`` must return a dict with a ``cost_usd`` key.
    """

    desc = "calls"
    HOLD_S = 1.0   # longest time the writer keeps the database open across back-to-back commits
    GROUP_S = 0.01  # a reply arriving while others are in flight waits this long for them: one commit for a burst

    def __init__(self, *, litellm: Any, db: DbPath, call_params: dict[str, Any], concurrency: int,
                 max_cost: float | None, max_retries: int, backoff_base: float, backoff_max: float,
                 api_key: str | None, price_known: bool, custom_price: bool):
        self.litellm = litellm
        self.db = db
        self.call_params = call_params
        self.concurrency = concurrency
        self.max_cost = max_cost
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.secrets = [api_key] if api_key else []
        self.stop: str | None = None    # set when no new request may start
        self.status = "finished"
        if max_cost is not None and max_cost <= 0:   # nothing may be spent: nothing is sent
            self.stop, self.status = f"the cost cap ${max_cost:g} allows no request", "max_cost"
        self.max_seen: float | None = None   # the most expensive priced reply so far
        self.n_unpriced = 0             # replies the provider gave no usable usage for
        self.price_known = price_known
        self.custom_price = custom_price
        self.spent = 0.0                # cost of replies received (gates max_cost)
        self.n_requested = 0
        self.n_retries = 0
        self.n_replies = 0
        self.n_not_sent = 0
        self.n_handed = 0               # results queued for the writer
        self.queue: asyncio.Queue = asyncio.Queue()
        self._writer_task: asyncio.Task | None = None
        self._held: tuple[Any, Any, float] | None = None   # (context manager, connection, opened at)
        self._more_waiting: Callable[[], bool] | None = None
        self.bar: Any = None
        self.on_batch: Callable[[int], None] | None = None

    # -- stage hooks ------------------------------------------------------
    def messages(self, item: dict) -> list[dict]:
        raise NotImplementedError

    def row(self, item: dict, resp: Any, latency: float, attempts: int) -> dict:
        raise NotImplementedError

    def apply(self, batch: list[tuple[str, dict]]) -> None:
        """Commit ("row", row) and ("error", error) results (worker thread)."""
        raise NotImplementedError

    def finish(self, status: str, reason: str | None) -> None:
        raise NotImplementedError

    def postfix(self) -> str | None:
        return None

    # -- classification ---------------------------------------------------
    def kind(self, exc: BaseException) -> str:
        """'retry', 'fatal' or 'item' for an exception litellm raised."""
        if isinstance(exc, asyncio.TimeoutError):
            return "retry"
        if "missing credentials" in str(exc).lower():
            return "fatal"
        for cls in type(exc).__mro__:
            if cls.__name__ in FATAL and cls.__module__.startswith(("litellm", "openai")):
                return "fatal"
            if cls.__name__ in RETRYABLE:
                return "retry"
        code = getattr(exc, "status_code", None)
        if isinstance(code, int) and (code == 429 or code >= 500 or code == 408):
            return "retry"
        return "item"

    def delay(self, attempt: int, exc: BaseException) -> float:
        """Backoff before retry ``attempt`` (0-based)."""
        d = min(self.backoff_max, self.backoff_base * 2 ** attempt) * (0.5 + random.random() / 2)
        retry_after = None
        resp = getattr(exc, "response", None)
        headers = getattr(resp, "headers", None)
        if headers is not None:
            try:
                retry_after = float(headers.get("retry-after"))
            except (TypeError, ValueError):
                retry_after = None
        if retry_after is not None:
            d = max(d, min(retry_after, self.backoff_max))
        return d

    def scrub(self, text: str | None) -> str | None:
        """``text`` (a reply, an explanation) as it may be stored: every
        secret this process knows (the run's key, secret environment
        variables) replaced by ``***`` (a provider may echo the key back)."""
        return redact_values(text, self.secrets)

    def cost(self, resp: Any) -> float | None:
        """The cost of one reply in USD, None when unknown or unpriceable:
        the provider reported no usage (litellm then counts 0 tokens),
        negative or non-numeric token counts, or the price came out
        negative, NaN or not a number."""
        usage = getattr(resp, "usage", None)
        p, c = _count(getattr(usage, "prompt_tokens", None)), _count(getattr(usage, "completion_tokens", None))
        if p is None or c is None or p + c == 0:
            return None
        hidden = getattr(resp, "_hidden_params", None) or {}
        value: Any = hidden.get("response_cost")
        if value is None and self.price_known and not self.custom_price:
            try:
                value = self.litellm.completion_cost(completion_response=resp)
            except Exception:
                return None
        if value is None or isinstance(value, bool):
            return None
        try:
            x = float(value)
        except (TypeError, ValueError):
            return None
        return x if math.isfinite(x) and x >= 0 else None

    def charge(self, cost: float | None) -> None:
        """Count one reply against ``max_cost``.  A reply that cannot be
        priced (:meth:`cost` None) counts as the most expensive reply seen;
        before any reply could be priced the run stops with a clear reason."""
        if cost is not None:
            self.spent += cost
            self.max_seen = cost if self.max_seen is None else max(self.max_seen, cost)
        elif self.max_cost is not None:
            self.n_unpriced += 1
            if self.max_seen is None:
                if not self.stop:
                    self.stop = ("the provider reported no usable usage (token counts or cost) for a reply, so "
                                 f"--max-cost ${self.max_cost:g} cannot be honoured; stopped")
                    self.status = "max_cost"
                return
            self.spent += self.max_seen
        if self.max_cost is not None and self.spent >= self.max_cost and not self.stop:
            self.stop = f"the cost cap ${self.max_cost:g} was reached"
            self.status = "max_cost"

    # -- one item ---------------------------------------------------------
    async def ask(self, item: dict) -> dict:
        messages = self.messages(item)
        attempt = 0
        timeout = float(self.call_params["timeout"])
        while True:
            t0 = time.monotonic()
            try:
                resp = await asyncio.wait_for(
                    self.litellm.acompletion(messages=messages, **self.call_params), timeout=timeout + 5.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # litellm maps provider errors to its exception classes
                kind = self.kind(exc)
                answered = "invalid response object" in str(exc).lower()
                if answered:   # the provider answered with something unreadable: asking again costs again
                    kind = "item"
                if kind == "retry" and attempt < self.max_retries and not self.stop:
                    await asyncio.sleep(self.delay(attempt, exc))
                    attempt += 1
                    self.n_retries += 1
                    continue
                message = str(exc).split("Traceback (most recent call last)")[0].strip()  # not litellm's stack
                return {"kind": "error", "fatal": kind == "fatal", "item": item, "attempts": attempt + 1,
                        "error_type": type(exc).__name__, "answered": answered,
                        "message": (redact(message, self.secrets) or "")[:2000]}
            return {"kind": "reply", "item": item, "response": resp, "attempts": attempt + 1,
                    "latency": time.monotonic() - t0}

    async def _worker(self, item: dict, sem: asyncio.Semaphore) -> None:
        try:
            r = await self.ask(item)
            if r["kind"] == "reply":
                # parsing and extraction run in a thread: a slow reply never blocks the event loop
                row = await asyncio.to_thread(self.row, item, r["response"], r["latency"], r["attempts"])
                self.n_replies += 1
                self.charge(row.get("cost_usd"))
                await self._hand_over("row", row)
            else:
                if r.get("answered"):
                    self.charge(None)
                if r["fatal"] and not self.stop:
                    self.stop = f"{r['error_type']}: {r['message'][:300]}"
                    self.status = "aborted"
                await self._hand_over("error", r)
        finally:
            sem.release()

    async def _hand_over(self, kind: str, result: dict) -> None:
        """Queue one result for the writer and wait until it is committed
        (or the writer has stopped): the slot stays taken until then."""
        done: asyncio.Future = asyncio.get_running_loop().create_future()
        self.n_handed += 1
        await self.queue.put((kind, result, done))
        waits: set[asyncio.Future] = {done}
        if self._writer_task is not None:
            waits.add(self._writer_task)
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)

    # -- writing ----------------------------------------------------------
    async def _writer(self) -> None:
        # one thread for every commit, so that a connection kept open between commits stays in
        # the thread that opened it (the store's locks are per thread)
        loop = asyncio.get_running_loop()
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="audit-writer")
        self._more_waiting = lambda: not self.queue.empty()
        try:
            await self._write_batches(loop, pool)
        finally:
            self._more_waiting = None
            await asyncio.shield(loop.run_in_executor(pool, self.release))
            pool.shutdown(wait=False)

    async def _write_batches(self, loop: asyncio.AbstractEventLoop, pool: concurrent.futures.Executor) -> None:
        done = False
        while not done:
            batch = [await self.queue.get()]
            if batch[0][0] != "end" and self.n_requested > self.n_handed and self.queue.empty():
                # group commit: replies sent together come back together; the slots stay taken meanwhile
                await asyncio.sleep(self.GROUP_S)
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            done = any(b[0] == "end" for b in batch)
            batch = [b for b in batch if b[0] != "end"]
            if done:
                self._more_waiting = None     # the last batch: let go of the file after it
            if batch:
                await loop.run_in_executor(pool, self.apply, [(k, x) for k, x, _ in batch])
                for _, _, fut in batch:     # committed: the workers may take their next items
                    if not fut.done():
                        fut.set_result(None)
                if self.bar is not None:
                    self.bar.update(len(batch))
                    pf = self.postfix()
                    if pf:
                        self.bar.set_postfix_str(pf, refresh=False)

    def commit(self, fn: Callable[[Any], None]) -> None:
        """Run ``fn(con)`` in one transaction; wait (up to 2 minutes) while
        another process holds the database.

        The connection is opened for the commit and closed after it, except
        on the writer's thread while more results are already waiting
        (:attr:`_more_waiting`): then it is kept for the next commit, for at
        most :attr:`HOLD_S` seconds in a row, so back-to-back commits do not
        pay for opening and closing the file each time, and the file is free
        again as soon as the writer has nothing to write."""
        deadline = time.monotonic() + 120.0
        while True:
            try:
                if self._held is None:
                    cm = connect(self.db)
                    self._held = (cm, cm.__enter__(), time.monotonic())
                _, con, since = self._held
                try:
                    with transaction(con):
                        fn(con)
                finally:
                    more = self._more_waiting
                    if not (more is not None and more() and time.monotonic() - since < self.HOLD_S):
                        self.release()
                return
            except DatabaseLockedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)

    def release(self) -> None:
        """Close the connection :meth:`commit` kept open, if any."""
        held, self._held = self._held, None
        if held is not None:
            held[0].__exit__(None, None, None)

    async def run(self, items: list[dict], progress: bool | None) -> None:
        """Ask every item (until a stop), commit the results, then call
        :meth:`finish` with the final status."""
        from tqdm.auto import tqdm

        self.bar = tqdm(total=len(items), desc=self.desc, unit="item", file=sys.stderr,
                        disable=(None if progress is None else not progress), dynamic_ncols=True)
        writer = self._writer_task = asyncio.create_task(self._writer())
        sem = asyncio.Semaphore(self.concurrency)
        tasks: set[asyncio.Task] = set()
        status, reason = "finished", None
        try:
            for it in items:
                await sem.acquire()
                if self.stop or writer.done():
                    sem.release()
                    break
                self.n_requested += 1
                t = asyncio.create_task(self._worker(it, sem))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            if tasks:
                await asyncio.gather(*tasks)
            await self.queue.put(("end", None, None))
            await writer
            status, reason = self.status, self.stop
        except asyncio.CancelledError:
            await self._cancel(tasks, writer)
            self._finish_quietly("interrupted", "interrupted by the user")
            raise
        except BaseException as exc:
            await self._cancel(tasks, writer)
            self._finish_quietly("aborted", (redact(f"{type(exc).__name__}: {exc}", self.secrets) or "")[:500])
            raise
        finally:
            self.bar.close()
        self.n_not_sent = len(items) - self.n_requested
        self.finish(status, reason)

    async def _cancel(self, tasks: set[asyncio.Task], writer: asyncio.Task) -> None:
        for t in list(tasks):
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not writer.done():  # commit results that arrived before the interruption
            await self.queue.put(("end", None, None))
            try:
                await asyncio.shield(writer)
            except BaseException:
                pass

    def _finish_quietly(self, status: str, reason: str) -> None:
        try:
            self.finish(status, reason)
        except Exception:
            pass
