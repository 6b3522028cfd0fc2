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

Concurrency, backoff, cost, commits and run ownership are those of the
shared runner :mod:`audit.llm` (the same code ``audit predict run`` uses);
this module adds the judge's prompt, reply parsing and tables.  A run left
'running' by a killed process is marked 'killed' by the next run of the
same judge on the benchmark.

litellm's own retries are switched off (``max_retries=0``) so the policy
above is the only one.  ``LITELLM_LOCAL_MODEL_COST_MAP`` is set (unless the
user set it) so importing litellm does not fetch the price list from the
internet; litellm's bundled price list is used.
"""
from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from dataclasses import dataclass, field
from typing import Any

from audit._util.redact import redact
from audit.accounts import require_role
from audit.judge import _store as jstore
from audit.judge._parse import ParsedVerdict, parse_reply
from audit.judge._prompt import JudgePrompt, load_prompt, source_prompt
from audit.llm import CallRunner, RunOptions
from audit.llm.options import check_selection
from audit.llm.provider import message_parts, reply_problem, safe_url
from audit.llm.runs import claim_run, correct_stale_runs, note_errors, usage_lines
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import benchmark_name

#: Seconds per request when the options do not say.
DEFAULT_TIMEOUT = 60.0
#: Suffix of the prompt version under which a permuted-order pass stores its verdicts.
PERMUTED_SUFFIX = "-rotated"

__all__ = ["JudgeRunSummary", "run_judge", "arun_judge", "redact", "safe_url", "PERMUTED_SUFFIX", "rotate_options"]


def rotate_options(options: list[dict]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The options shown in another order for the permuted-order pass: each
    option moves one place up (the first goes last), so no option keeps its
    label — a judge that answers by position gives another item label.
    Returns the (label, text) pairs as shown and the map shown label → item
    label.

    >>> shown, back = rotate_options([{"label": "A", "text": "x"}, {"label": "B", "text": "y"},
    ...                               {"label": "C", "text": "z"}])
    >>> shown, back
    ([('A', 'y'), ('B', 'z'), ('C', 'x')], {'A': 'B', 'B': 'C', 'C': 'A'})
    """
    labels = [o["label"] for o in options]
    text = {o["label"]: o["text"] for o in options}
    order = labels[1:] + labels[:1]
    return [(labels[i], text[order[i]]) for i in range(len(labels))], dict(zip(labels, order))


# ---------------------------------------------------------------- summary

@dataclass
class JudgeRunSummary:
    """What a judge run did.  ``cost_usd`` is None when the price is unknown.

    >>> JudgeRunSummary(run_id=1, benchmark="tlue", judge="j", prompt_version="p1").lines()[-1]
    'status: running'
    """

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
        return [
            f"judge {self.judge} · prompt {self.prompt_version} · benchmark {self.benchmark} · run {self.run_id}",
            f"items selected {self.n_selected}: already judged {self.n_cached}, asked now {self.n_requested}"
            + (f", not sent {self.n_not_sent}" if self.n_not_sent else ""),
            f"replies parsed {self.n_ok} (key disputed {self.n_disputed}), unparseable {self.n_parse_failed} "
            f"(stored raw), failed requests {self.n_errors}, retries {self.n_retries}",
            *usage_lines(self),
        ]


# ---------------------------------------------------------------- the run

def run_judge(model: str, benchmark: str | None = None, *, db: DbPath = None, judge_name: str | None = None,
              prompt: str | os.PathLike | JudgePrompt | None = None, retry_unparsed: bool = False,
              options: RunOptions | None = None, permute: bool = False, actor=None,
              **option_fields: Any) -> JudgeRunSummary:
    """Run a judge (blocking wrapper around :func:`arun_judge`).  Ctrl-C
    stops it; every reply received until then is already saved.

    ``benchmark`` None: the database's only benchmark.  ``options`` (a
    :class:`~audit.llm.RunOptions`) selects the items and sets concurrency,
    cost cap, retries and prices; keyword arguments named like its fields
    (``concurrency=4``) override it (any other name is a TypeError).
    ``permute``: the permuted-order pass (see :func:`arun_judge`).
    Once the database has accounts a run is a lead's or admin's act
    (``actor``), checked before any request is sent.
    """
    benchmark = benchmark_name(benchmark, db)
    with connect(db, read_only=True) as con:
        require_role(con, actor, "lead", "running a judge")
    opts = RunOptions.of(options, **option_fields)
    try:
        return asyncio.run(arun_judge(model, benchmark=benchmark, db=db, judge_name=judge_name, prompt=prompt,
                                      retry_unparsed=retry_unparsed, options=opts, permute=permute))
    except KeyboardInterrupt:
        raise KeyboardInterrupt("interrupted; every reply received so far is saved — run again to resume") from None


async def arun_judge(
    model: str,
    *,
    benchmark: str,
    db: DbPath = None,
    judge_name: str | None = None,
    prompt: str | os.PathLike | JudgePrompt | None = None,
    retry_unparsed: bool = False,
    options: RunOptions | None = None,
    permute: bool = False,
) -> JudgeRunSummary:
    """Ask ``model`` about the selected items of ``benchmark`` (see the module
    docstring for caching, concurrency, backoff and cost rules).

    ``judge_name`` (default: ``model``) is the name verdicts are stored
    under.  ``options`` (a :class:`~audit.llm.RunOptions`) select the items
    (``tiers``: current audit) and set the shared runner; its timeout
    defaults to 60 s, its ``progress`` None to a tqdm bar on stderr when it
    is a terminal.  Returns a :class:`JudgeRunSummary`; the same totals are
    stored in ``judge_runs``.

    ``permute``: the permuted-order pass: every item's options are shown
    rotated (:func:`rotate_options`), the verdict is mapped back to the
    item's labels and stored under the prompt version plus
    :data:`PERMUTED_SUFFIX`, so how often a judge's verdict flips with the
    order of the options is measured (:mod:`audit.judge.card`).
    """
    opts = RunOptions.of(options).resolved(timeout=DEFAULT_TIMEOUT)
    opts.validate(model)
    judge = judge_name or model
    jp = prompt if isinstance(prompt, JudgePrompt) else load_prompt(prompt)
    if prompt is None and _has_sources(db, benchmark):
        jp = source_prompt()
    litellm, params, api_key, price_known, custom_price = opts.provider(model)
    version = jp.version + (PERMUTED_SUFFIX if permute else "")
    config = {"model": model, "retry_unparsed": retry_unparsed, "permuted": permute, **opts.stored_config()}
    with connect(db) as con:
        check_selection(con, benchmark, opts.tiers)
        with transaction(con):
            jstore.ensure_prompt(con, version, jp.template)
            n_selected, todo = jstore.select_items(
                con, benchmark=benchmark, judge=judge, prompt_version=version, question_ids=opts.question_ids,
                tiers=opts.tiers, subjects=opts.subjects, limit=opts.limit, retry_unparsed=retry_unparsed)
            run_id = jstore.start_run(con, benchmark=benchmark, judge=judge, prompt_version=version,
                                      source="litellm", config=config)
            claim_run(con, "judge_runs", run_id)
            correct_stale_runs(con, "judge_runs", "benchmark = ? AND judge = ? AND run_id <> ?",
                               [benchmark, judge, run_id], by_run=run_id)
            jstore.update_run(con, run_id, n_selected=n_selected, n_cached=n_selected - len(todo))
            context = jstore.item_context(con, benchmark, list(todo["question_id"])) if jp.needs_context else {}

    summary = JudgeRunSummary(run_id=run_id, benchmark=benchmark, judge=judge, prompt_version=version,
                              n_selected=n_selected, n_cached=n_selected - len(todo),
                              cost_usd=0.0 if price_known else None)
    runner = _JudgeRunner(litellm=litellm, db=db, summary=summary, prompt=jp, call_params=params,
                          api_key=api_key, price_known=price_known, custom_price=custom_price, context=context,
                          permute=permute, **opts.runner_args())
    t0 = time.monotonic()
    try:
        items = todo.to_dict("records")
        for it in items:
            it["options"] = list(it["options"])
        await runner.run(items, opts.progress)
        summary.n_not_sent = runner.n_not_sent
    finally:
        summary.elapsed_s = time.monotonic() - t0
    return summary


def _has_sources(db: DbPath, benchmark: str) -> bool:
    """Whether any item of ``benchmark`` has a linked original."""
    with connect(db, read_only=True) as con:
        return (
            con.execute("SELECT 1 FROM parallel_links WHERE benchmark = ? LIMIT 1", [benchmark]).fetchone() is not None
        )


class _JudgeRunner(CallRunner):
    """The judge stage's part of the shared runner: prompt, parsing, tables."""

    def __init__(self, *, summary: JudgeRunSummary, prompt: JudgePrompt, context: dict[str, dict],
                 permute: bool = False, **kw: Any):
        super().__init__(**kw)
        self.s = summary
        self.prompt = prompt
        self.context = context
        self.permute = permute
        self.desc = f"judge {summary.judge}"

    def shown(self, item: dict) -> tuple[list, str, dict[str, str]]:
        """(options as shown, the key as shown, shown label → item label)."""
        if not self.permute:
            return item["options"], item["answer_key"], {o["label"]: o["label"] for o in item["options"]}
        pairs, back = rotate_options(item["options"])
        fwd = {v: k for k, v in back.items()}
        return pairs, fwd.get(item["answer_key"], item["answer_key"]), back

    def messages(self, item: dict) -> list[dict]:
        ctx = self.context.get(item["question_id"], {})
        options, key, _ = self.shown(item)
        text = self.prompt.render(stem=item["stem"], options=options, answer_key=key,
                                  explanation=item["explanation"], language=ctx.get("language"),
                                  source=ctx.get("source"), context=item.get("context"))
        return [{"role": "user", "content": text}]

    def row(self, item: dict, resp: Any, latency: float, attempts: int) -> dict:
        parts = message_parts(resp)
        content = self.scrub(parts["content"])
        labels = [o["label"] for o in item["options"]]
        _, key, back = self.shown(item)
        problem = reply_problem(parts)
        # an empty or cut-off reply is stored raw as what it is (asked again by the next run), never parsed
        parsed = ParsedVerdict(parse_ok=False, parse_error=problem) if problem else \
            parse_reply(content, labels=labels, answer_key=key)
        if self.permute and parsed.correct_answer is not None:   # back to the item's own labels
            parsed = dataclasses.replace(parsed, correct_answer="".join(back.get(c, c) for c in parsed.correct_answer))
        return {
            "benchmark": self.s.benchmark, "question_id": item["question_id"], "judge": self.s.judge,
            "prompt_version": self.s.prompt_version, "answer_key_correct": parsed.answer_key_correct,
            "correct_answer": parsed.correct_answer, "explanation": self.scrub(parsed.explanation),
            "confidence": parsed.confidence, "raw_reply": content, "parse_ok": parsed.parse_ok,
            "parse_error": parsed.parse_error, "cause": parsed.cause,
            "prompt_tokens": parts["prompt_tokens"],
            "completion_tokens": parts["completion_tokens"],
            "cost_usd": self.cost(resp), "latency_s": latency, "attempts": attempts,
            "run_id": self.s.run_id, "source": "litellm",
        }

    def postfix(self) -> str | None:
        return None if self.s.cost_usd is None else f"${self.s.cost_usd:.4f}"

    def apply(self, batch: list[tuple[str, dict]]) -> None:
        """Commit one batch of results and the run totals (worker thread)."""
        s = self.s
        rows = [x for k, x in batch if k == "row"]
        errs = [x for k, x in batch if k == "error"]
        delta = {"n_ok": sum(r["parse_ok"] for r in rows), "n_parse_failed": sum(not r["parse_ok"] for r in rows),
                 "n_errors": len(errs), "prompt_tokens": sum(r["prompt_tokens"] or 0 for r in rows),
                 "completion_tokens": sum(r["completion_tokens"] or 0 for r in rows),
                 "n_disputed": sum(bool(r["parse_ok"] and not r["answer_key_correct"]) for r in rows)}
        costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
        cost = sum(costs)
        if s.cost_usd is None and costs:      # litellm priced it after all
            s.cost_usd = 0.0
        s.n_requested = self.n_requested
        s.n_retries = self.n_retries

        def write(con: Any) -> None:
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

        self.commit(write)
        s.n_ok += delta["n_ok"]
        s.n_parse_failed += delta["n_parse_failed"]
        s.n_errors += delta["n_errors"]
        s.n_disputed += delta["n_disputed"]
        s.prompt_tokens += delta["prompt_tokens"]
        s.completion_tokens += delta["completion_tokens"]
        if s.cost_usd is not None:
            s.cost_usd += cost
        note_errors(s.errors, errs)

    def finish(self, status: str, reason: str | None) -> None:
        s = self.s
        s.status, s.stop_reason = status, reason
        s.n_requested, s.n_retries = self.n_requested, self.n_retries
        self.commit(lambda con: jstore.update_run(con, s.run_id, status=status, stop_reason=reason, finished=True,
                                                  n_requested=s.n_requested, n_retries=s.n_retries))
