"""Re-extracting stored responses with another method, without a re-import
(``audit predictions reextract``), optionally asking an LLM about the
responses the rules leave unanswered (``--llm-extractor``).

Only predictions that carry a raw response and were extracted (method not
'given') change; each gets the letter of the chosen method, ``valid`` and
``method`` updated, all in one transaction.  Letters are extracted in bulk
in Python (the rules are Python); reading and writing are set-based SQL.

With ``llm_extractor`` (a litellm model string) the responses still without
an answer after the rules are sent, one each, to that model with a short
prompt asking which single option the response commits to
(:data:`LLM_PROMPT`); replies go through the shared runner (:mod:`audit.llm`:
concurrency, backoff, cost cap, each reply committed as it arrives).  A reply
that is exactly one option letter sets the prediction's answer with method
'llm'; every reply is kept raw in ``llm_extractions``.  Replies already
stored for (item, model, run, extractor) are not asked again.
"""
from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

import pandas as pd

from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError, NotFoundError
from audit.ingest.extract import LLM_METHOD, METHODS
from audit.ingest.responses import extract_rows, stored_responses, write_letters
from audit.llm import CallRunner
from audit.llm.options import validate_run_args
from audit.llm.prompts import render_options
from audit.llm.provider import call_params, litellm_module, message_parts
from audit.options import LATIN_LABELS
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import resolves_benchmark

__all__ = ["reextract", "extraction_methods", "ReextractSummary", "LLM_PROMPT"]

LLM_PROMPT = (
    "Below is a multiple-choice question and a model's response to it. Which single option does the response "
    "commit to as its final answer? Judge only what the response says, not which option is correct. Reply with "
    "the option letter alone (one of {labels}), or NONE when the response commits to no option or to several.\n\n"
    "Question:\n{question}\n\nOptions:\n{options}\n\nResponse:\n<<<\n{response}\n>>>"
)
_REPLY = re.compile(r"^\W*(?:answer\s*[:：]\s*)?\(?([A-J])\)?\W*$", re.I)


@dataclass
class ReextractSummary:
    """Per (model, run): responses re-extracted, answered before/after, letters changed."""

    benchmark: str
    method: str
    table: pd.DataFrame
    llm_extractor: str | None = None
    llm_asked: int = 0
    llm_answered: int = 0
    llm_cost_usd: float | None = None
    llm_errors: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"re-extracted '{self.benchmark}' with method '{self.method}'"]
        for r in self.table.itertuples(index=False):
            out.append(f"  {r.model} ({r.run}): {r.responses} responses, answered {r.answered_before} → "
                       f"{r.answered_after}, letters changed {r.changed}; methods now: {r.methods}")
        if self.llm_extractor:
            cost = "unknown" if self.llm_cost_usd is None else f"${self.llm_cost_usd:.4f}"
            out.append(f"LLM extractor {self.llm_extractor}: asked {self.llm_asked}, answered {self.llm_answered}, "
                       f"cost {cost}")
            out += [f"  error: {e}" for e in self.llm_errors]
        return out


@resolves_benchmark
def reextract(benchmark: str | None, *, method: str, models: Iterable[str] | None = None,
              runs: Iterable[str] | None = None, db: DbPath = None, llm_extractor: str | None = None,
              actor=None, **llm_options: Any) -> ReextractSummary:
    """Re-extract the stored responses of ``benchmark`` (optionally only
    ``models`` / ``runs``) with ``method``; then, with ``llm_extractor``, ask
    that model about the responses still unanswered (``llm_options``:
    concurrency, max_cost, api_base, api_key_env, timeout, max_retries,
    backoff_base, input/output_cost_per_token, progress).

    Returns a :class:`ReextractSummary` whose ``table`` has one row per
    (model, run): ``responses``, ``answered_before``, ``answered_after``,
    ``changed`` and ``methods`` (the methods now stored, with counts).
    """
    method = str(method).lower().replace("_", "-")
    if method not in METHODS:
        raise InputError(f"unknown extraction method '{method}' (use one of {', '.join(METHODS)})")
    where, params = "p.benchmark = ?", [benchmark]  # type: tuple[str, list[Any]]
    if models is not None:
        where += " AND p.model IN (SELECT unnest(?::VARCHAR[]))"
        params.append(sorted(set(models)))
    if runs is not None:
        where += " AND p.run IN (SELECT unnest(?::VARCHAR[]))"
        params.append(sorted(set(runs)))
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "re-extracting answers")
        if not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
            raise NotFoundError(f"no benchmark named '{benchmark}'")
        df = stored_responses(con, where, params)
        if df.empty:
            raise NotFoundError(f"no stored raw responses to re-extract in '{benchmark}'"
                                + (" for the given models/runs" if models is not None or runs is not None else ""))
        letters = extract_rows(df, method)
        write_letters(con, benchmark, df, letters, method)
    before = df.assign(after=letters)
    summary = ReextractSummary(benchmark, method, pd.DataFrame())
    if llm_extractor:
        todo = before[before["after"].isna()]
        _llm_extract(summary, benchmark, todo, llm_extractor, db, llm_options)
    summary.table = _table(before, benchmark, db)
    return summary


def _table(before: pd.DataFrame, benchmark: str, db: DbPath) -> pd.DataFrame:
    with connect(db, read_only=True) as con:
        con.register("_before", before[["question_id", "model", "run", "answer"]])
        try:
            return con.execute(
                "SELECT b.model, b.run, count(*) AS responses, count(b.answer) AS answered_before, "
                "count(p.answer) AS answered_after, count(*) FILTER (b.answer IS DISTINCT FROM p.answer) AS changed, "
                "string_agg(DISTINCT p.method, ', ' ORDER BY p.method) AS methods "
                "FROM _before b JOIN predictions p ON p.benchmark = ? AND p.question_id = b.question_id "
                "AND p.model = b.model AND p.run = b.run GROUP BY ALL ORDER BY b.model, b.run", [benchmark]).df()
        finally:
            unregister(con, "_before")


@resolves_benchmark
def extraction_methods(benchmark: str | None, *, db: DbPath = None) -> pd.DataFrame:
    """Per (model, run): the extraction method(s) of its predictions with
    counts (``method``, ``n``, ``answered``) — which method a report's
    figures rest on.  Read from ``all_predictions``, the relation every
    report reads (stored rows and sources read in place)."""
    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT model, run, method, count(*) AS n, count(answer) AS answered FROM all_predictions "
            "WHERE benchmark = ? GROUP BY ALL ORDER BY model, run, method", [benchmark]).df()


# ---------------------------------------------------------------- LLM extractor

def parse_llm_letter(reply: str | None, n_options: int) -> str | None:
    """The letter of an extractor reply that is one option letter, else None.

    >>> parse_llm_letter(" (C) ", 4), parse_llm_letter("NONE", 4), parse_llm_letter("E", 4)
    ('C', None, None)
    """
    if not reply:
        return None
    m = _REPLY.match(reply.strip())
    if not m:
        return None
    letter = m.group(1).upper()
    return letter if letter in LATIN_LABELS[:n_options] else None


class _ExtractRunner(CallRunner):
    def __init__(self, *, summary: ReextractSummary, benchmark: str, extractor: str, **kw: Any):
        super().__init__(**kw)
        self.sum = summary
        self.benchmark = benchmark
        self.extractor = extractor
        self.desc = f"LLM extraction ({extractor})"

    def messages(self, item: dict) -> list[dict]:
        opts = [(o["label"], o["text"]) for o in item["opts"]]
        text = LLM_PROMPT.format(labels=", ".join(lab for lab, _ in opts), question=item["stem"],
                                 options=render_options(opts), response=item["response"])
        return [{"role": "user", "content": text}]

    def row(self, item: dict, resp: Any, latency: float, attempts: int) -> dict:
        content = message_parts(resp)["content"]
        return {"question_id": item["question_id"], "model": item["model"], "run": item["run"],
                "raw_reply": content, "answer": parse_llm_letter(content, len(item["opts"])),
                "cost_usd": self.cost(resp)}

    def apply(self, batch: list[tuple[str, dict]]) -> None:
        rows = [x for k, x in batch if k == "row"]
        for k, e in batch:
            if k == "error" and len(self.sum.llm_errors) < 5:
                self.sum.llm_errors.append(f"{e['item']['question_id']}: {e['error_type']}: {e['message'][:200]}")

        def write(con: Any) -> None:
            for r in rows:
                con.execute(
                    "INSERT OR REPLACE INTO llm_extractions (benchmark, question_id, model, run, extractor, answer, "
                    "raw_reply) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [self.benchmark, r["question_id"], r["model"], r["run"], self.extractor, r["answer"],
                     r["raw_reply"]])
                if r["answer"] is not None:
                    con.execute(
                        "UPDATE predictions SET answer = ?, valid = true, method = ? WHERE benchmark = ? "
                        "AND question_id = ? AND model = ? AND run = ?",
                        [r["answer"], LLM_METHOD, self.benchmark, r["question_id"], r["model"], r["run"]])

        if rows:
            self.commit(write)
        self.sum.llm_answered += sum(r["answer"] is not None for r in rows)
        costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
        if costs:
            self.sum.llm_cost_usd = (self.sum.llm_cost_usd or 0.0) + sum(costs)

    def finish(self, status: str, reason: str | None) -> None:
        self.sum.llm_asked = self.n_requested


def _llm_extract(summary: ReextractSummary, benchmark: str, todo: pd.DataFrame, extractor: str, db: DbPath,
                 opts: dict[str, Any]) -> None:
    summary.llm_extractor = extractor
    concurrency = int(opts.get("concurrency", 8))
    timeout = float(opts.get("timeout", 60.0))
    max_cost = opts.get("max_cost")
    validate_run_args(extractor, concurrency, max_cost, timeout)
    litellm = litellm_module()
    params, api_key, known, custom = call_params(
        litellm, extractor, api_base=opts.get("api_base"), api_key_env=opts.get("api_key_env"), timeout=timeout,
        temperature=0.0, max_tokens=opts.get("max_tokens"),
        input_cost_per_token=opts.get("input_cost_per_token"),
        output_cost_per_token=opts.get("output_cost_per_token"), max_cost=max_cost)
    # Replies already stored for this extractor are reused (no request): their
    # answers are applied again after the rules were re-run.
    with connect(db) as con, transaction(con):
        done = {tuple(r[:3]): r[3] for r in con.execute(
            "SELECT question_id, model, run, answer FROM llm_extractions WHERE benchmark = ? AND extractor = ?",
            [benchmark, extractor]).fetchall()}
        con.execute(
            "UPDATE predictions p SET answer = e.answer, valid = true, method = ? FROM llm_extractions e "
            "WHERE p.benchmark = ? AND e.benchmark = p.benchmark AND e.extractor = ? AND e.answer IS NOT NULL "
            "AND e.question_id = p.question_id AND e.model = p.model AND e.run = p.run AND p.answer IS NULL "
            "AND p.response IS NOT NULL AND p.method <> 'given'", [LLM_METHOD, benchmark, extractor])
    items = [r for r in todo.to_dict("records") if (r["question_id"], r["model"], r["run"]) not in done]
    summary.llm_answered += sum(done.get((r["question_id"], r["model"], r["run"])) is not None
                                for r in todo.to_dict("records"))
    for it in items:
        it["opts"] = list(it["opts"])
    runner = _ExtractRunner(summary=summary, benchmark=benchmark, extractor=extractor, litellm=litellm, db=db,
                            call_params=params, concurrency=concurrency, max_cost=max_cost,
                            max_retries=int(opts.get("max_retries", 5)),
                            backoff_base=float(opts.get("backoff_base", 1.0)), backoff_max=30.0, api_key=api_key,
                            price_known=known, custom_price=custom)
    asyncio.run(runner.run(items, opts.get("progress")))
