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
import random
import sys
import time
from typing import Any, Callable

from audit._util.redact import redact, redact_values
from audit.errors import DatabaseLockedError
from audit.llm.provider import FATAL, RETRYABLE, token_count
from audit.store import DbPath, connect, transaction


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
        p, c = (
            token_count(getattr(usage, "prompt_tokens", None)),
            token_count(getattr(usage, "completion_tokens", None)),
        )
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


__all__ = ["CallRunner"]
