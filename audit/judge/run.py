"""Running an LLM judge over a benchmark through litellm.

``run_judge("gemini/gemini-2.5-pro", benchmark="tlue")`` asks the judge about
every selected item that has no verdict yet for (judge, prompt version):

* **Any provider** litellm supports (``provider/model`` strings, optional
  ``api_base`` for OpenAI-compatible servers).  Keys come from the provider's
  usual environment variables (``OPENAI_API_KEY``, ``GEMINI_API_KEY``,
  ``ANTHROPIC_API_KEY`` …) or from the variable named by ``api_key_env``.
  Keys are never stored; error messages are redacted before they are stored
  or printed.
* **Caching / resumption.**  Each result is committed as it arrives (a
  writer drains whatever results are ready and commits them in one short
  transaction, opening the database only for that moment), so an interrupted
  or killed run keeps everything it received and the next run asks only the
  remaining items.  A rerun of a finished run sends no request.
* **Concurrency** with an ``asyncio.Semaphore``; **backoff** on 429, 5xx,
  connection errors and timeouts: attempt *k* (0-based) waits
  ``min(backoff_max, backoff_base · 2**k)`` scaled by a random factor in
  [0.5, 1] (or the server's ``Retry-After`` when longer), at most
  ``max_retries`` retries.  Authentication / permission / unknown-model
  errors abort the run (no further requests); other 4xx fail the item only.
  Failed items get no verdict (they are asked again next time) and are
  recorded in ``judge_errors``.
* **Cost**: tokens from ``response.usage``; cost from litellm
  (``response._hidden_params["response_cost"]``, else
  ``litellm.completion_cost``).  For models litellm has no price for (local
  servers) pass ``input_cost_per_token`` / ``output_cost_per_token``.
  ``max_cost`` (USD) stops cleanly: once the cost of the received replies
  reaches it no new request is sent; requests already in flight finish and
  are kept (so the total can exceed the cap by at most ``concurrency - 1``
  calls).  ``max_cost`` needs a known price and is refused otherwise.

litellm's own retries are switched off (``max_retries=0``) so the policy
above is the only one.  ``LITELLM_LOCAL_MODEL_COST_MAP`` is set (unless the
user set it) so importing litellm does not fetch the price list from the
internet; litellm's bundled price list is used.
"""
from __future__ import annotations

import asyncio
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import urlsplit, urlunsplit

from audit.errors import AuditError, DatabaseLockedError, InputError, NotFoundError
from audit.judge import store as jstore
from audit.judge.parse import parse_reply
from audit.judge.prompt import JudgePrompt, load_prompt
from audit.store import connect, transaction

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASS|CREDENTIALS?)$", re.IGNORECASE)


def _litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import logging

    import litellm

    litellm.suppress_debug_info = True
    # litellm logs notes (e.g. about custom prices) on the "LiteLLM" logger;
    # the run's own summary says what matters.
    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    return litellm


# ---------------------------------------------------------------- secrets

def redact(text: str | None, extra: Iterable[str] = ()) -> str | None:
    """Replace secret values (env vars named *_KEY, *_TOKEN, *_SECRET, …, and
    ``extra``) by ``***``.

    >>> redact("bad key sk-verysecret123 given", extra=["sk-verysecret123"])
    'bad key *** given'
    """
    if not text:
        return text
    secrets = [v for k, v in os.environ.items() if _SECRET_NAME.search(k) and v and len(v) >= 6]
    secrets += [s for s in extra if s and len(s) >= 6]
    for s in sorted(set(secrets), key=len, reverse=True):
        text = text.replace(s, "***")
    return text


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


# ---------------------------------------------------------------- summary

@dataclass
class JudgeRunSummary:
    """What a judge run did.  ``cost_usd`` is None when the price is unknown."""

    run_id: int
    benchmark: str
    judge: str
    prompt_version: str
    status: str = "running"           # finished | max_cost | aborted | interrupted
    stop_reason: str | None = None
    n_selected: int = 0
    n_cached: int = 0
    n_requested: int = 0
    n_ok: int = 0
    n_parse_failed: int = 0
    n_errors: int = 0
    n_retries: int = 0
    n_disputed: int = 0
    n_not_sent: int = 0               # left for a later run (max cost reached, abort, interrupt)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)   # first few error lines (redacted)

    def lines(self) -> list[str]:
        cost = "unknown (no price for this model)" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        out = [
            f"judge {self.judge} · prompt {self.prompt_version} · benchmark {self.benchmark} · run {self.run_id}",
            f"items selected {self.n_selected}: already judged {self.n_cached}, asked now {self.n_requested}"
            + (f", not sent {self.n_not_sent}" if self.n_not_sent else ""),
            f"replies parsed {self.n_ok} (key disputed {self.n_disputed}), unparseable {self.n_parse_failed} "
            f"(stored raw), failed requests {self.n_errors}, retries {self.n_retries}",
            f"tokens {self.prompt_tokens} in / {self.completion_tokens} out · cost {cost} · {self.elapsed_s:.1f} s",
            f"status: {self.status}" + (f" ({self.stop_reason})" if self.stop_reason else ""),
        ]
        out += [f"  error: {e}" for e in self.errors]
        return out


class _Fatal(Exception):
    """An error after which no further request makes sense (bad key, unknown model)."""


# ---------------------------------------------------------------- the run

def run_judge(model: str, *, benchmark: str, db=None, **kwargs) -> JudgeRunSummary:
    """Run a judge (blocking wrapper around :func:`arun_judge`; same arguments).
    Ctrl-C stops it; every reply received until then is already saved."""
    try:
        return asyncio.run(arun_judge(model, benchmark=benchmark, db=db, **kwargs))
    except KeyboardInterrupt:
        raise KeyboardInterrupt("interrupted; every reply received so far is saved — run again to resume") from None


async def arun_judge(
    model: str,
    *,
    benchmark: str,
    db=None,
    judge_name: str | None = None,
    prompt: str | os.PathLike | JudgePrompt | None = None,
    question_ids: Iterable[str] | None = None,
    tiers: Iterable[int] | None = None,
    subjects: Iterable[str] | None = None,
    limit: int | None = None,
    retry_unparsed: bool = False,
    concurrency: int = 8,
    max_cost: float | None = None,
    api_base: str | None = None,
    api_key_env: str | None = None,
    timeout: float = 60.0,
    max_retries: int = 5,
    backoff_base: float = 1.0,
    backoff_max: float = 30.0,
    temperature: float | None = 0.0,
    max_tokens: int | None = None,
    input_cost_per_token: float | None = None,
    output_cost_per_token: float | None = None,
    extra_params: dict[str, Any] | None = None,
    progress: bool | None = None,
) -> JudgeRunSummary:
    """Ask ``model`` about the selected items of ``benchmark`` (see the module
    docstring for caching, concurrency, backoff and cost rules).

    ``judge_name`` (default: ``model``) is the name verdicts are stored
    under.  ``question_ids`` / ``tiers`` (current audit) / ``subjects`` /
    ``limit`` select items.  ``progress``: None = a tqdm bar on stderr when
    it is a terminal.  Returns a :class:`JudgeRunSummary`; the same totals
    are stored in ``judge_runs``.
    """
    if not model or not model.strip():
        raise InputError("--model must name a litellm model, e.g. openai/gpt-4o or gemini/gemini-2.5-pro")
    if concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    if max_cost is not None and max_cost < 0:
        raise InputError("--max-cost must not be negative")
    if timeout <= 0:
        raise InputError("--timeout must be positive")
    judge = judge_name or model
    jp = prompt if isinstance(prompt, JudgePrompt) else load_prompt(prompt)
    litellm = _litellm()

    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise AuditError(f"the environment variable {api_key_env} (--api-key-env) is not set")
    else:
        _check_credentials(litellm, model, api_base)
    custom_price = input_cost_per_token is not None or output_cost_per_token is not None
    price_known = custom_price or _price_known(litellm, model)
    if max_cost is not None and not price_known:
        raise AuditError(
            f"--max-cost needs a price, and litellm has none for '{model}'; "
            "pass --input-cost-per-token and --output-cost-per-token")

    config = {
        "model": model, "api_base": safe_url(api_base), "api_key_env": api_key_env,
        "concurrency": concurrency, "max_cost": max_cost, "timeout": timeout, "max_retries": max_retries,
        "backoff_base": backoff_base, "backoff_max": backoff_max, "temperature": temperature,
        "max_tokens": max_tokens, "input_cost_per_token": input_cost_per_token,
        "output_cost_per_token": output_cost_per_token, "retry_unparsed": retry_unparsed,
        "filters": {"question_ids": sorted(set(question_ids)) if question_ids is not None else None,
                    "tiers": sorted(set(tiers)) if tiers is not None else None,
                    "subjects": sorted(set(subjects)) if subjects is not None else None, "limit": limit},
        "extra_params": sorted((extra_params or {}).keys()),
    }
    with connect(db) as con:
        if not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
            raise NotFoundError(f"no benchmark named '{benchmark}'")
        if tiers is not None and not con.execute(
                "SELECT 1 FROM audit_runs WHERE benchmark = ? LIMIT 1", [benchmark]).fetchone():
            raise NotFoundError(f"--tier needs an audit run; run 'audit analyze --benchmark {benchmark}' first")
        with transaction(con):
            jstore.ensure_prompt(con, jp.version, jp.template)
            n_selected, todo = jstore.select_items(
                con, benchmark=benchmark, judge=judge, prompt_version=jp.version, question_ids=question_ids,
                tiers=tiers, subjects=subjects, limit=limit, retry_unparsed=retry_unparsed)
            run_id = jstore.start_run(con, benchmark=benchmark, judge=judge, prompt_version=jp.version,
                                      source="litellm", config=config)
            jstore.update_run(con, run_id, n_selected=n_selected, n_cached=n_selected - len(todo))

    summary = JudgeRunSummary(run_id=run_id, benchmark=benchmark, judge=judge, prompt_version=jp.version,
                              n_selected=n_selected, n_cached=n_selected - len(todo),
                              cost_usd=0.0 if price_known else None)
    # drop_params: litellm leaves out parameters a provider rejects (e.g. temperature for reasoning models)
    call_params: dict[str, Any] = {"model": model, "timeout": timeout, "max_retries": 0, "drop_params": True}
    if api_base:
        call_params["api_base"] = api_base
    if api_key:
        call_params["api_key"] = api_key
    if temperature is not None:
        call_params["temperature"] = temperature
    if max_tokens is not None:
        call_params["max_tokens"] = max_tokens
    if input_cost_per_token is not None:
        call_params["input_cost_per_token"] = input_cost_per_token
    if output_cost_per_token is not None:
        call_params["output_cost_per_token"] = output_cost_per_token
    call_params.update(extra_params or {})

    runner = _Runner(litellm=litellm, db=db, summary=summary, prompt=jp, call_params=call_params,
                     concurrency=concurrency, max_cost=max_cost, max_retries=max_retries,
                     backoff_base=backoff_base, backoff_max=backoff_max, api_key=api_key,
                     price_known=price_known, custom_price=custom_price)
    t0 = time.monotonic()
    try:
        await runner.run(todo, progress)
    finally:
        summary.elapsed_s = time.monotonic() - t0
    return summary


def _check_credentials(litellm, model: str, api_base: str | None) -> None:
    """Fail before any request when the provider's key variable is unset
    (litellm would report it as a 500 for every item).  Only credential
    variables (…_KEY, …_TOKEN) are required here; providers configured
    otherwise (Vertex project, Ollama base URL, local servers) are not
    blocked."""
    try:
        env = litellm.validate_environment(model=model, api_base=api_base)
    except Exception:
        return
    missing = list(env.get("missing_keys") or [])
    if env.get("keys_in_environment") or not missing:
        return
    if all(_SECRET_NAME.search(k) for k in missing):
        raise AuditError(
            f"no API key for '{model}': set {' or '.join(missing)} in the environment "
            "(or name another variable with --api-key-env; a local server accepts any value)")


def _price_known(litellm, model: str) -> bool:
    try:
        litellm.cost_per_token(model=model, prompt_tokens=1000, completion_tokens=1000)
    except Exception:
        return False
    return True


_RETRYABLE = ("RateLimitError", "Timeout", "InternalServerError", "ServiceUnavailableError", "BadGatewayError",
              "APIConnectionError")
_FATAL = ("AuthenticationError", "PermissionDeniedError", "NotFoundError", "PaymentRequiredError",
          "BudgetExceededError")


class _Runner:
    def __init__(self, *, litellm, db, summary: JudgeRunSummary, prompt: JudgePrompt, call_params: dict,
                 concurrency: int, max_cost: float | None, max_retries: int, backoff_base: float,
                 backoff_max: float, api_key: str | None, price_known: bool, custom_price: bool):
        self.litellm = litellm
        self.db = db
        self.s = summary
        self.prompt = prompt
        self.call_params = call_params
        self.concurrency = concurrency
        self.max_cost = max_cost
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.secrets = [api_key] if api_key else []
        self.price_known = price_known
        self.custom_price = custom_price
        self.spent = 0.0                # cost of replies received (gates --max-cost)
        self.stop: str | None = None    # set when no new request may start
        self.status = "finished"
        self.queue: asyncio.Queue = asyncio.Queue()
        self.bar: Any = None

    # -- classification -------------------------------------------------
    def _kind(self, exc: BaseException) -> str:
        if isinstance(exc, asyncio.TimeoutError):
            return "retry"
        if "missing credentials" in str(exc).lower():
            return "fatal"
        for cls in type(exc).__mro__:
            if cls.__name__ in _FATAL and cls.__module__.startswith(("litellm", "openai")):
                return "fatal"
            if cls.__name__ in _RETRYABLE:
                return "retry"
        code = getattr(exc, "status_code", None)
        if isinstance(code, int) and (code == 429 or code >= 500 or code == 408):
            return "retry"
        return "item"

    def _delay(self, attempt: int, exc: BaseException) -> float:
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

    # -- one item -------------------------------------------------------
    async def _ask(self, item: dict) -> dict:
        text = self.prompt.render(stem=item["stem"], options=item["options"], answer_key=item["answer_key"],
                                  explanation=item["explanation"])
        messages = [{"role": "user", "content": text}]
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
                kind = self._kind(exc)
                if kind == "retry" and attempt < self.max_retries and not self.stop:
                    await asyncio.sleep(self._delay(attempt, exc))
                    attempt += 1
                    self.s.n_retries += 1
                    continue
                return {"kind": "error", "fatal": kind == "fatal", "item": item, "attempts": attempt + 1,
                        "error_type": type(exc).__name__,
                        "message": redact(str(exc), self.secrets)[:2000]}
            latency = time.monotonic() - t0
            return {"kind": "reply", "item": item, "response": resp, "attempts": attempt + 1, "latency": latency}

    def _cost(self, resp) -> float | None:
        cost = None
        hidden = getattr(resp, "_hidden_params", None) or {}
        if hidden.get("response_cost") is not None:
            cost = float(hidden["response_cost"])
        elif self.price_known and not self.custom_price:
            try:
                cost = float(self.litellm.completion_cost(completion_response=resp))
            except Exception:
                cost = None
        return cost

    def _verdict_row(self, r: dict) -> dict:
        item, resp = r["item"], r["response"]
        try:
            content = resp.choices[0].message.content
        except (AttributeError, IndexError):
            content = None
        labels = [o["label"] for o in item["options"]]
        parsed = parse_reply(content, labels=labels, answer_key=item["answer_key"])
        usage = getattr(resp, "usage", None)
        return {
            "benchmark": self.s.benchmark, "question_id": item["question_id"], "judge": self.s.judge,
            "prompt_version": self.s.prompt_version, "answer_key_correct": parsed.answer_key_correct,
            "correct_answer": parsed.correct_answer, "explanation": parsed.explanation,
            "confidence": parsed.confidence, "raw_reply": content, "parse_ok": parsed.parse_ok,
            "parse_error": parsed.parse_error,
            "prompt_tokens": getattr(usage, "prompt_tokens", None),
            "completion_tokens": getattr(usage, "completion_tokens", None),
            "cost_usd": self._cost(resp), "latency_s": r["latency"], "attempts": r["attempts"],
            "run_id": self.s.run_id, "source": "litellm",
        }

    async def _worker(self, item: dict, sem: asyncio.Semaphore) -> None:
        try:
            r = await self._ask(item)
            if r["kind"] == "reply":
                row = self._verdict_row(r)
                if row["cost_usd"] is not None:
                    self.spent += row["cost_usd"]
                if self.max_cost is not None and self.spent >= self.max_cost and not self.stop:
                    self.stop = f"the cost cap ${self.max_cost:g} was reached"
                    self.status = "max_cost"
                await self.queue.put(("verdict", row))
            else:
                if r["fatal"] and not self.stop:
                    self.stop = f"{r['error_type']}: {r['message'][:300]}"
                    self.status = "aborted"
                await self.queue.put(("error", r))
        finally:
            sem.release()

    # -- writing ----------------------------------------------------------
    def _apply(self, batch: list) -> None:
        """Commit one batch of results and the run totals (worker thread)."""
        s = self.s
        rows = [x for k, x in batch if k == "verdict"]
        errs = [x for k, x in batch if k == "error"]
        delta = {"n_ok": sum(r["parse_ok"] for r in rows), "n_parse_failed": sum(not r["parse_ok"] for r in rows),
                 "n_errors": len(errs), "prompt_tokens": sum(r["prompt_tokens"] or 0 for r in rows),
                 "completion_tokens": sum(r["completion_tokens"] or 0 for r in rows),
                 "n_disputed": sum(bool(r["parse_ok"] and not r["answer_key_correct"]) for r in rows)}
        costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
        cost = sum(costs)
        if s.cost_usd is None and costs:      # litellm priced it after all
            s.cost_usd = 0.0

        def write(con):
            jstore.save_verdicts(con, rows)
            for e in errs:
                jstore.save_error(con, run_id=s.run_id, benchmark=s.benchmark, question_id=e["item"]["question_id"],
                                  judge=s.judge, error_type=e["error_type"], message=e["message"],
                                  attempts=e["attempts"])
            jstore.update_run(
                con, s.run_id, n_requested=s.n_requested, n_ok=s.n_ok + delta["n_ok"],
                n_parse_failed=s.n_parse_failed + delta["n_parse_failed"], n_errors=s.n_errors + delta["n_errors"],
                n_retries=s.n_retries, prompt_tokens=s.prompt_tokens + delta["prompt_tokens"],
                completion_tokens=s.completion_tokens + delta["completion_tokens"],
                cost_usd=None if s.cost_usd is None else s.cost_usd + cost)

        self._commit(write)
        s.n_ok += delta["n_ok"]
        s.n_parse_failed += delta["n_parse_failed"]
        s.n_errors += delta["n_errors"]
        s.n_disputed += delta["n_disputed"]
        s.prompt_tokens += delta["prompt_tokens"]
        s.completion_tokens += delta["completion_tokens"]
        if s.cost_usd is not None:
            s.cost_usd += cost
        for e in errs:
            if len(s.errors) < 5:
                s.errors.append(f"{e['item']['question_id']}: {e['error_type']} after {e['attempts']} attempt(s): "
                                f"{e['message'][:200]}")

    async def _writer(self) -> None:
        done = False
        while not done:
            batch = [await self.queue.get()]
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            done = any(k == "end" for k, _ in batch)
            batch = [b for b in batch if b[0] != "end"]
            if batch:
                await asyncio.to_thread(self._apply, batch)
                if self.bar is not None:
                    self.bar.update(len(batch))
                    if self.s.cost_usd is not None:
                        self.bar.set_postfix_str(f"${self.s.cost_usd:.4f}", refresh=False)

    def _commit(self, fn) -> None:
        """Run ``fn(con)`` in one transaction on a connection opened for it;
        wait (up to 2 minutes) while another process holds the database."""
        deadline = time.monotonic() + 120.0
        while True:
            try:
                with connect(self.db) as con, transaction(con):
                    fn(con)
                return
            except DatabaseLockedError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)

    def _finish(self, status: str, reason: str | None) -> None:
        s = self.s
        s.status, s.stop_reason = status, reason
        self._commit(lambda con: jstore.update_run(con, s.run_id, status=status, stop_reason=reason, finished=True,
                                                   n_requested=s.n_requested, n_retries=s.n_retries))

    async def run(self, todo, progress: bool | None) -> None:
        from tqdm.auto import tqdm

        items = todo.to_dict("records")
        for it in items:
            it["options"] = list(it["options"])
        self.bar = tqdm(total=len(items), desc=f"judge {self.s.judge}", unit="item", file=sys.stderr,
                        disable=(None if progress is None else not progress), dynamic_ncols=True)
        writer = asyncio.create_task(self._writer())
        sem = asyncio.Semaphore(self.concurrency)
        tasks: set[asyncio.Task] = set()
        status, reason = "finished", None
        try:
            for it in items:
                await sem.acquire()
                if self.stop or writer.done():
                    sem.release()
                    break
                self.s.n_requested += 1
                t = asyncio.create_task(self._worker(it, sem))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            if tasks:
                await asyncio.gather(*tasks)
            await self.queue.put(("end", None))
            await writer
            status, reason = self.status, self.stop
        except asyncio.CancelledError:
            status, reason = "interrupted", "interrupted by the user"
            for t in list(tasks):
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self._drain(writer)
            self._finish_quietly(status, reason)
            raise
        except BaseException as exc:
            for t in list(tasks):
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if not writer.done():
                await self._drain(writer)
            self._finish_quietly("aborted", redact(f"{type(exc).__name__}: {exc}", self.secrets)[:500])
            raise
        finally:
            self.bar.close()
        self.s.n_not_sent = len(items) - self.s.n_requested
        self._finish(status, reason)

    async def _drain(self, writer: asyncio.Task) -> None:
        """Commit results that arrived before an interruption."""
        if writer.done():
            return
        await self.queue.put(("end", None))
        try:
            await asyncio.shield(writer)
        except BaseException:
            pass

    def _finish_quietly(self, status: str, reason: str) -> None:
        try:
            self._finish(status, reason)
        except Exception:
            pass
