"""Running a model on a benchmark through litellm (``audit predict run``).

``run_predict("openai/gpt-4o", benchmark="tlue")`` asks the model every
selected item that has no reply yet for (model, run, prompt version), and
stores each reply as it arrives:

* ``model_calls``: the raw response; the provider's separate reasoning text
  when it returns one (``reasoning_content`` / thinking blocks) — stored
  apart and never extracted from; tokens, cost, latency, attempts,
  ``finish_reason``; and the letter extracted on insert (default method
  "final", with the item's option texts).
* ``predictions``: the same reply as the (benchmark, item, model, run)
  prediction, so ``audit analyze`` and every report see it at once.

Concurrency, backoff (429, 5xx, timeouts), cost, ``max_cost`` and the
commit-as-it-arrives writer are those of the shared runner
(:mod:`audit.llm`), the same code ``audit judge run`` uses.  Keys come from
the provider's environment variable and are never stored or logged.

Caching: a call is keyed by (benchmark, item, model, run, prompt version);
a rerun asks only items without a row, so a finished run reruns with 0
requests and a killed run resumes.  The run's row in ``predict_runs``
records the process; a run left 'running' by a process that no longer
exists is marked 'killed' by the next run.  A run in which requests were
sent but no reply came back ends with status 'no_reply' (the command exits 1).
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

import pandas as pd

from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest.extract import DEFAULT_METHOD, METHODS, extract_answer
from audit.ingest.models import register_models
from audit.llm import CallRunner, RunOptions
from audit.llm.options import check_selection
from audit.llm.provider import message_parts, reply_problem
from audit.llm.runs import claim_run, correct_stale_runs, note_errors, update_run, usage_lines
from audit.options import MAX_OPTIONS, MIN_OPTIONS
from audit.predict._prompt import PredictPrompt, load_predict_prompt
from audit.predict._reextract import reextract
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import benchmark_name

#: Seconds per request when the options do not say (answers may be long).
DEFAULT_TIMEOUT = 120.0

__all__ = ["PredictRunSummary", "run_predict", "arun_predict", "list_predict_runs", "load_calls"]

RUN_TOTALS = ("n_selected", "n_cached", "n_requested", "n_ok", "n_answered", "n_errors", "n_retries",
              "prompt_tokens", "completion_tokens", "cost_usd")


@dataclass
class PredictRunSummary:
    """What a predict run did.  ``cost_usd`` is None when the price is unknown.

    >>> PredictRunSummary(run_id=1, benchmark="tlue", model="m", run="default", prompt_version="p1",
    ...                   method="final").lines()[-1]
    'status: running'
    """

    run_id: int
    benchmark: str
    model: str
    run: str
    prompt_version: str
    method: str
    prompt_name: str = ""
    status: str = "running"   # finished | max_cost | aborted | interrupted | no_reply
    stop_reason: str | None = None
    n_selected: int = 0
    n_cached: int = 0
    n_requested: int = 0
    n_ok: int = 0
    n_answered: int = 0
    n_errors: int = 0
    n_retries: int = 0
    n_not_sent: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    extraction: Any = None          # a ReextractSummary when an LLM extractor ran after the run

    @property
    def got_no_reply(self) -> bool:
        """Requests were sent and none was answered."""
        return self.n_requested > 0 and self.n_ok == 0

    def lines(self) -> list[str]:
        out = [
            f"model {self.model} · run {self.run} · prompt {self.prompt_version}"
            + (f" ({self.prompt_name})" if self.prompt_name else "")
            + f" · benchmark {self.benchmark} · run id {self.run_id}",
            f"items selected {self.n_selected}: already answered {self.n_cached}, asked now {self.n_requested}"
            + (f", not sent {self.n_not_sent}" if self.n_not_sent else ""),
            f"replies stored {self.n_ok} (answer extracted with '{self.method}': {self.n_answered}), "
            f"failed requests {self.n_errors}, retries {self.n_retries}",
            *usage_lines(self),
        ]
        if self.extraction is not None:
            out += self.extraction.lines()[1:]
        return out


def run_predict(model: str, benchmark: str | None = None, *, db: DbPath = None, name: str | None = None,
                run: str | None = None, prompt: str | os.PathLike | PredictPrompt | None = None,
                style: str = "direct", instructions: str | None = None, method: str = DEFAULT_METHOD,
                llm_extractor: str | None = None, options: RunOptions | None = None, actor=None,
                **option_fields: Any) -> PredictRunSummary:
    """Run a model (blocking wrapper around :func:`arun_predict`).  Ctrl-C
    stops it; every reply received until then is saved.

    ``benchmark`` None: the database's only benchmark.  ``options`` (a
    :class:`~audit.llm.RunOptions`, shared with :func:`audit.run_judge`)
    selects the items and sets concurrency, cost cap, retries and prices;
    keyword arguments named like its fields (``concurrency=4``) override it.

    ``llm_extractor`` (a litellm model string): afterwards, ask that model
    about this run's replies the rules left unanswered
    (:func:`audit.predict.reextract`; same api_base / key / price
    options as the run); the result is in ``summary.extraction``.

    Once the database has accounts a run is a lead's or admin's act
    (``actor``), checked before any request is sent."""
    benchmark = benchmark_name(benchmark, db)
    with connect(db, read_only=True) as con:
        require_role(con, actor, "lead", "running a model")
    opts = RunOptions.of(options, **option_fields).resolved(timeout=DEFAULT_TIMEOUT)
    try:
        s = asyncio.run(arun_predict(model, benchmark=benchmark, db=db, name=name, run=run, prompt=prompt,
                                     style=style, instructions=instructions, method=method, options=opts))
    except KeyboardInterrupt:
        raise KeyboardInterrupt("interrupted; every reply received so far is saved — run again to resume") from None
    if llm_extractor and s.n_ok + s.n_cached:
        keep = ("api_base", "api_key_env", "concurrency", "max_cost", "timeout", "max_retries", "backoff_base",
                "input_cost_per_token", "output_cost_per_token", "progress")
        s.extraction = reextract(benchmark, method=s.method, models=[s.model], runs=[s.run], db=db,
                                 llm_extractor=llm_extractor, actor=actor,
                                 **{k: v for k, v in opts.as_kwargs(timeout=DEFAULT_TIMEOUT).items() if k in keep})
    return s


async def arun_predict(
    model: str,
    *,
    benchmark: str,
    db: DbPath = None,
    name: str | None = None,
    run: str | None = None,
    prompt: str | os.PathLike | PredictPrompt | None = None,
    style: str = "direct",
    instructions: str | None = None,
    method: str = DEFAULT_METHOD,
    options: RunOptions | None = None,
) -> PredictRunSummary:
    """Ask ``model`` (a litellm model string) the selected items of ``benchmark``.

    ``name`` (default: ``model``) is the model name predictions are stored
    under; ``run`` (default 'default') their run.  ``prompt`` is a template
    file (or a :class:`PredictPrompt`); otherwise ``style`` ('direct' or
    'reasoning') and ``instructions`` ('en', 'bo', 'zh') pick a shipped one.
    ``method`` extracts the letter on insert.  ``options`` (a
    :class:`~audit.llm.RunOptions`) select the items and set the shared
    runner (:mod:`audit.llm`); its timeout defaults to 120 s.
    """
    opts = RunOptions.of(options).resolved(timeout=DEFAULT_TIMEOUT)
    opts.validate(model)
    method = method.lower().replace("_", "-")
    if method not in METHODS:
        raise InputError(f"unknown extraction method '{method}' (use one of {', '.join(METHODS)})")
    pp = prompt if isinstance(prompt, PredictPrompt) else load_predict_prompt(
        prompt, style=style, instructions=instructions)
    stored_as = (name or model).strip()
    run_name = (run or "default").strip() or "default"
    litellm, params, api_key, price_known, custom_price = opts.provider(model)
    config = {"model": model, "prompt": pp.name, **opts.stored_config()}
    with connect(db) as con:
        check_selection(con, benchmark, opts.tiers)
        with transaction(con):
            con.execute("INSERT INTO predict_prompts (prompt_version, template) VALUES (?, ?) ON CONFLICT DO NOTHING",
                        [pp.version, pp.template])
            n_selected, todo = _select(con, benchmark=benchmark, model=stored_as, run=run_name,
                                       prompt_version=pp.version, question_ids=opts.question_ids,
                                       tiers=opts.tiers, subjects=opts.subjects, limit=opts.limit)
            run_id = _one(con,
                "INSERT INTO predict_runs (run_id, benchmark, model, run, prompt_version, method, status, config, "
                "n_selected, n_cached) VALUES (nextval('predict_run_seq'), ?, ?, ?, ?, ?, 'running', ?, ?, ?) "
                "RETURNING run_id",
                [benchmark, stored_as, run_name, pp.version, method, json.dumps(config, sort_keys=True),
                 n_selected, n_selected - len(todo)])
            claim_run(con, "predict_runs", run_id)
            correct_stale_runs(con, "predict_runs", "run_id <> ?", [run_id], by_run=run_id)
            register_models(con, [stored_as])

    summary = PredictRunSummary(run_id=run_id, benchmark=benchmark, model=stored_as, run=run_name,
                                prompt_version=pp.version, method=method, prompt_name=pp.name,
                                n_selected=n_selected, n_cached=n_selected - len(todo),
                                cost_usd=0.0 if price_known else None)
    runner = _PredictRunner(litellm=litellm, db=db, summary=summary, prompt=pp, call_params=params,
                            api_key=api_key, price_known=price_known, custom_price=custom_price,
                            **opts.runner_args())
    items = todo.to_dict("records")
    for it in items:
        it["options"] = list(it["options"])
    t0 = time.monotonic()
    try:
        await runner.run(items, opts.progress)
    finally:
        summary.elapsed_s = time.monotonic() - t0
    summary.n_not_sent = runner.n_not_sent
    return summary


def _select(con: Any, *, benchmark: str, model: str, run: str, prompt_version: str,
            question_ids: Iterable[str] | None, tiers: Iterable[int] | None, subjects: Iterable[str] | None,
            limit: int | None) -> tuple[int, pd.DataFrame]:
    """Items matching the filters (benchmark order; ``limit`` caps the
    selection before cached items are removed), and those still to ask."""
    where = ["q.benchmark = ?"]
    params: list = [benchmark]
    if question_ids is not None:
        where.append("q.question_id IN (SELECT unnest(?::VARCHAR[]))")
        params.append(sorted(set(question_ids)))
    if subjects is not None:
        where.append("q.subject IN (SELECT unnest(?::VARCHAR[]))")
        params.append(sorted(set(subjects)))
    if tiers is not None:
        where.append("q.question_id IN (SELECT question_id FROM current_audit WHERE benchmark = ? "
                     "AND tier IN (SELECT unnest(?::INTEGER[])))")
        params += [benchmark, sorted(set(int(t) for t in tiers))]
    if limit is not None and limit < 0:
        raise InputError("--limit must not be negative")
    lim = f"LIMIT {int(limit)}" if limit is not None else ""
    sel = (f"SELECT q.question_id, q.seq, q.stem, q.options, q.language, q.subject, q.context FROM questions q "
           f"WHERE {' AND '.join(where)} ORDER BY q.seq {lim}")
    n_selected = _one(con, f"SELECT count(*) FROM ({sel})", params)
    todo = con.execute(
        f"SELECT s.question_id, s.stem, s.options, s.language, s.subject, s.context FROM ({sel}) s "
        "WHERE NOT EXISTS (SELECT 1 FROM model_calls c WHERE c.benchmark = ? AND c.model = ? AND c.run = ? "
        f"AND c.prompt_version = ? AND c.question_id = s.question_id AND NOT ({UNUSABLE_CALL})) ORDER BY s.seq",
        [*params, benchmark, model, run, prompt_version]).df()
    return n_selected, todo


#: A model_calls row whose reply cannot count (:func:`audit.llm.provider.reply_problem`, in SQL): asked again.
UNUSABLE_CALL = ("c.response IS NULL OR regexp_matches(c.response, '^[\\s\\v\\x{1c}-\\x{1f}\\x{85}\\p{Z}]*$') "
                 "OR coalesce(c.finish_reason, '') IN ('length', 'content_filter')")


def _one(con: Any, sql: str, params: list) -> Any:
    """The first column of the first row of a query."""
    row = con.execute(sql, params).fetchone()
    return None if row is None else row[0]


class _PredictRunner(CallRunner):
    """The predict stage's part of the shared runner: prompt, extraction, tables."""

    def __init__(self, *, summary: PredictRunSummary, prompt: PredictPrompt, **kw: Any):
        super().__init__(**kw)
        self.s = summary
        self.prompt = prompt
        self.desc = f"{summary.model} ({summary.run})"

    def messages(self, item: dict) -> list[dict]:
        text = self.prompt.render(stem=item["stem"], options=item["options"], language=item.get("language"),
                                  subject=item.get("subject"), context=item.get("context"))
        return [{"role": "user", "content": text}]

    def row(self, item: dict, resp: Any, latency: float, attempts: int) -> dict:
        parts = message_parts(resp)
        content = self.scrub(parts["content"])
        problem = reply_problem(parts)
        n = len(item["options"])
        answer = extract_answer(content, n, self.s.method, [o["text"] for o in item["options"]]) \
            if MIN_OPTIONS <= n <= MAX_OPTIONS and problem is None else None
        return {"benchmark": self.s.benchmark, "question_id": item["question_id"], "model": self.s.model,
                "run": self.s.run, "prompt_version": self.s.prompt_version, "response": content,
                "reasoning": self.scrub(parts["reasoning"]), "answer": answer, "method": self.s.method,
                "problem": problem,
                "prompt_tokens": parts["prompt_tokens"], "completion_tokens": parts["completion_tokens"],
                "cost_usd": self.cost(resp), "latency_s": latency, "attempts": attempts,
                "finish_reason": parts["finish_reason"], "run_id": self.s.run_id}

    def postfix(self) -> str | None:
        return None if self.s.cost_usd is None else f"${self.s.cost_usd:.4f}"

    def apply(self, batch: list[tuple[str, dict]]) -> None:
        s = self.s
        rows = [x for k, x in batch if k == "row"]
        # an empty or cut-off reply is kept in model_calls as received, counted as a failed request
        # (predict_errors names the problem) and asked again by the next run; it is never an answer
        errs = [x for k, x in batch if k == "error"] + [
            {"item": r, "error_type": "UnusableReply", "attempts": r["attempts"],
             "message": r["problem"] + (f"; kept in model_calls: {r['response'][:300]!r}" if r["response"] else "")}
            for r in rows if r["problem"]]
        costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
        if s.cost_usd is None and costs:
            s.cost_usd = 0.0
        totals: dict[str, Any] = {
            "n_requested": self.n_requested, "n_ok": s.n_ok + sum(not r["problem"] for r in rows),
            "n_answered": s.n_answered + sum(r["answer"] is not None for r in rows),
            "n_errors": s.n_errors + len(errs), "n_retries": self.n_retries,
            "prompt_tokens": s.prompt_tokens + sum(r["prompt_tokens"] or 0 for r in rows),
            "completion_tokens": s.completion_tokens + sum(r["completion_tokens"] or 0 for r in rows),
            "cost_usd": None if s.cost_usd is None else s.cost_usd + sum(costs),
        }

        def write(con: Any) -> None:
            save_calls(con, rows)
            for e in errs:
                con.execute(
                    "INSERT INTO predict_errors (run_id, benchmark, question_id, model, error_type, message, attempts) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [s.run_id, s.benchmark, e["item"]["question_id"], s.model, e["error_type"], e["message"],
                     e["attempts"]])
            _update_run(con, s.run_id, **totals)

        self.commit(write)
        for k, v in totals.items():
            setattr(s, k, v)
        note_errors(s.errors, errs)

    def finish(self, status: str, reason: str | None) -> None:
        s = self.s
        s.n_requested, s.n_retries = self.n_requested, self.n_retries
        if status == "finished" and s.got_no_reply:
            status, reason = "no_reply", reason or "no request got a reply"
        s.status, s.stop_reason = status, reason
        self.commit(lambda con: _update_run(con, s.run_id, status=status, stop_reason=reason, finished=True,
                                            n_requested=s.n_requested, n_retries=s.n_retries))


CALL_COLUMNS = ("benchmark", "question_id", "model", "run", "prompt_version", "response", "reasoning", "answer",
                "method", "prompt_tokens", "completion_tokens", "cost_usd", "latency_s", "attempts",
                "finish_reason", "run_id")


def save_calls(con: Any, rows: list[dict]) -> None:
    """Insert model_calls rows and replace the items' predictions (one
    (benchmark, item, model, run) prediction each), in the caller's transaction.

    Three set-based statements over one multi-row ``VALUES`` list (the
    runner commits a few replies at a time, where building a DataFrame
    cost more than the statements)."""
    if not rows:
        return
    cols = ", ".join(CALL_COLUMNS)
    row_ph = "(" + ", ".join(["?"] * len(CALL_COLUMNS)) + ")"
    values = ", ".join([row_ph] * len(rows))
    params = [r.get(c) for r in rows for c in CALL_COLUMNS]
    con.execute(f"INSERT OR REPLACE INTO model_calls ({cols}) VALUES {values}", params)
    rows = [r for r in rows if not r.get("problem")]   # an unusable reply never becomes a prediction
    if not rows:
        return
    keys = ", ".join(["(?, ?, ?, ?, ?)"] * len(rows))
    key_params = [r[c] for r in rows for c in ("benchmark", "question_id", "model", "run", "prompt_version")]
    batch = f"(VALUES {keys}) n(benchmark, question_id, model, run, prompt_version)"
    con.execute(f"DELETE FROM predictions p USING {batch} WHERE p.benchmark = n.benchmark "
                "AND p.question_id = n.question_id AND p.model = n.model AND p.run = n.run", key_params)
    con.execute(
        "INSERT INTO predictions (benchmark, question_id, model, run, response, answer, method, valid) "
        "SELECT c.benchmark, c.question_id, c.model, c.run, c.response, c.answer, c.method, c.answer IS NOT NULL "
        f"FROM model_calls c JOIN {batch} USING (benchmark, question_id, model, run, prompt_version)", key_params)


def _update_run(con: Any, run_id: int, **changes: Any) -> None:
    update_run(con, "predict_runs", run_id, RUN_TOTALS, **changes)


# ---------------------------------------------------------------- readers

def list_predict_runs(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """All predict_runs rows, newest first (columns as in the table; ``config`` as JSON text).
    Runs left 'running' by a process that no longer exists are shown as 'killed'."""
    with connect(db) as con, transaction(con):
        correct_stale_runs(con, "predict_runs", "TRUE", [])
    with connect(db, read_only=True) as con:
        return con.execute("SELECT * FROM predict_runs WHERE ? IS NULL OR benchmark = ? ORDER BY run_id DESC",
                           [benchmark, benchmark]).df()


def load_calls(benchmark: str, model: str | None = None, *, run: str | None = None, db: DbPath = None) -> pd.DataFrame:
    """model_calls rows of a benchmark (optionally one model / run), in benchmark order."""
    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT c.* FROM model_calls c JOIN questions q USING (benchmark, question_id) WHERE c.benchmark = ? "
            "AND (? IS NULL OR c.model = ?) AND (? IS NULL OR c.run = ?) ORDER BY c.model, c.run, q.seq",
            [benchmark, model, model, run, run]).df()
