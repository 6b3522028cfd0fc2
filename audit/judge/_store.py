"""Reading and writing judge tables (``judge_verdicts``, ``judge_runs``,
``judge_prompts``, ``judge_errors``; schema in migrations/003_judge.sql).

Writers take an open connection (the caller owns the transaction); readers
open the database read-only for one query and return DataFrames.
"""
from __future__ import annotations

import json
import re
from typing import Iterable, Sequence

import duckdb
import pandas as pd

from audit._util.names import NameIndex, identity_name
from audit._util.redact import known_secrets, redact_values
from audit._util.sql import unregister
from audit.errors import InputError, NotFoundError
from audit.llm.runs import update_run as update_run_row
from audit.store import DbPath, connect
from audit.store.benchmarks import resolves_benchmark

VERDICT_COLUMNS = (
    "benchmark", "question_id", "judge", "prompt_version", "answer_key_correct", "correct_answer",
    "explanation", "confidence", "raw_reply", "parse_ok", "parse_error", "prompt_tokens",
    "completion_tokens", "cost_usd", "latency_s", "attempts", "run_id", "source", "cause",
)

RUN_TOTAL_COLUMNS = (
    "n_selected", "n_cached", "n_requested", "n_ok", "n_parse_failed", "n_errors", "n_retries",
    "prompt_tokens", "completion_tokens", "cost_usd",
)


# ---------------------------------------------------------------- writers

def ensure_prompt(con, version: str, template: str) -> None:
    con.execute(
        "INSERT INTO judge_prompts (prompt_version, template) VALUES (?, ?) ON CONFLICT DO NOTHING",
        [version, template],
    )


def check_judge_name(con, judge: str) -> str:
    """*judge* if it passes the identifier rule (:func:`audit._util.names.identity_name`:
    no control or invisible character, not a look-alike of another judge's
    name), else one :class:`~audit.errors.InputError`.  Every run, live or
    imported, starts here."""
    known = [n for (n,) in con.execute("SELECT DISTINCT judge FROM judge_runs UNION "
                                       "SELECT DISTINCT judge FROM judge_verdicts").fetchall()]
    clean = identity_name(judge, kind="judge name", existing=NameIndex(known, ascii_lookalikes=False))
    if clean != judge:
        raise InputError(f"judge name {judge!r} is not written in its normal form {clean!r} (no spaces around "
                         "it, Unicode NFC)")
    return judge


def start_run(con, *, benchmark: str, judge: str, prompt_version: str, source: str,
              config: dict | None = None, file_path: str | None = None) -> int:
    """Insert a judge_runs row with status 'running'; return its id.  The
    judge's name must pass :func:`check_judge_name`."""
    check_judge_name(con, judge)
    return con.execute(
        "INSERT INTO judge_runs (run_id, benchmark, judge, prompt_version, source, status, config, file_path) "
        "VALUES (nextval('judge_run_seq'), ?, ?, ?, ?, 'running', ?, ?) RETURNING run_id",
        [benchmark, judge, prompt_version, source, json.dumps(config or {}, sort_keys=True), file_path],
    ).fetchone()[0]


def update_run(con, run_id: int, **changes) -> None:
    """Set totals (absolute values) and optionally the status."""
    update_run_row(con, "judge_runs", run_id, RUN_TOTAL_COLUMNS, **changes)


#: Free-text columns a verdict keeps as received (secrets of this process's
#: environment are replaced by ``***`` first, for imported text as for replies).
_FREE_TEXT = ("explanation", "raw_reply", "parse_error")


def save_verdicts(con, rows: Sequence[dict]) -> None:
    """Insert (or replace) verdict rows; each dict has VERDICT_COLUMNS keys.
    Free text goes through :func:`audit._util.redact.redact_values` whatever
    its source: a published file may quote the key this process holds."""
    if not rows:
        return
    secrets = known_secrets()

    def clean(c: str, v):
        if c in _FREE_TEXT and isinstance(v, str):
            return redact_values(v, secrets=secrets) if secrets else v
        return v

    df = pd.DataFrame([{c: clean(c, r.get(c)) for c in VERDICT_COLUMNS} for r in rows], columns=list(VERDICT_COLUMNS))
    con.register("_judge_new", df)
    try:
        cols = ", ".join(VERDICT_COLUMNS)
        casts = ", ".join(_cast(c) for c in VERDICT_COLUMNS)
        con.execute(f"INSERT OR REPLACE INTO judge_verdicts ({cols}) SELECT {casts} FROM _judge_new")
    finally:
        unregister(con, "_judge_new")


_TYPES = {
    "answer_key_correct": "BOOLEAN", "parse_ok": "BOOLEAN", "confidence": "DOUBLE", "cost_usd": "DOUBLE",
    "latency_s": "DOUBLE", "prompt_tokens": "INTEGER", "completion_tokens": "INTEGER", "attempts": "INTEGER",
    "run_id": "INTEGER",
}


def _cast(col: str) -> str:
    return f"CAST({col} AS {_TYPES.get(col, 'VARCHAR')})"


def save_error(con, *, run_id: int, benchmark: str, question_id: str, judge: str, error_type: str,
               message: str, attempts: int) -> None:
    con.execute(
        "INSERT INTO judge_errors (run_id, benchmark, question_id, judge, error_type, message, attempts) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [run_id, benchmark, question_id, judge, error_type, message, attempts],
    )


# ---------------------------------------------------------------- selection

#: How the ``parse_error`` of a reply that is asked again by the next run begins:
#: no content, cut off (:func:`audit.llm.provider.reply_problem`), or a verdict contradicting itself
#: (:func:`audit.judge._parse.verdict_from_object`).
REASKED = ("empty reply", "cut off", "contradictory")

def select_items(con, *, benchmark: str, judge: str, prompt_version: str,
                 question_ids: Iterable[str] | None = None, tiers: Iterable[int] | None = None,
                 subjects: Iterable[str] | None = None, limit: int | None = None,
                 retry_unparsed: bool = False) -> tuple[int, pd.DataFrame]:
    """Items matching the filters, and those of them still to be judged.

    Returns ``(n_selected, todo)`` where ``todo`` has columns
    ``question_id, stem, options, answer_key, explanation`` in benchmark
    order.  An item is done when it has a verdict for (judge, prompt version)
    — a parsed one, or an unparsed one unless ``retry_unparsed``; a reply
    that was empty, cut off or contradicted itself (``parse_error`` starting
    with one of :data:`REASKED`) is always asked again.
    ``limit`` caps the selection (before removing done items, so that
    ``--limit 50`` always means "the first 50 items").
    """
    where = ["q.benchmark = ?"]
    params: list = [benchmark]
    if question_ids is not None:
        ids = sorted(set(question_ids))
        where.append("q.question_id IN (SELECT unnest(?::VARCHAR[]))")
        params.append(ids)
    if subjects is not None:
        where.append("q.subject IN (SELECT unnest(?::VARCHAR[]))")
        params.append(sorted(set(subjects)))
    if tiers is not None:
        where.append(
            "q.question_id IN (SELECT question_id FROM current_audit WHERE benchmark = ? "
            "AND tier IN (SELECT unnest(?::INTEGER[])))")
        params += [benchmark, sorted(set(int(t) for t in tiers))]
    lim = f"LIMIT {int(limit)}" if limit is not None else ""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _judge_sel AS SELECT q.question_id, q.seq, q.stem, q.options, "
        f"q.answer_key, q.explanation, q.context FROM questions q WHERE {' AND '.join(where)} ORDER BY q.seq {lim}",
        params,
    )
    n_selected = con.execute("SELECT count(*) FROM _judge_sel").fetchone()[0]
    todo = con.execute(
        "SELECT s.question_id, s.stem, s.options, s.answer_key, s.explanation, s.context FROM _judge_sel s "
        "WHERE NOT EXISTS (SELECT 1 FROM judge_verdicts v WHERE v.benchmark = ? AND v.judge = ? "
        "AND v.prompt_version = ? AND v.question_id = s.question_id"
        + (" AND v.parse_ok" if retry_unparsed else
           " AND (v.parse_ok OR NOT regexp_matches(coalesce(v.parse_error, ''), ?))")
        + ") ORDER BY s.seq",
        [benchmark, judge, prompt_version,
         *([] if retry_unparsed else ["^(?:" + "|".join(re.escape(p) for p in REASKED) + ")"])],
    ).df()
    con.execute("DROP TABLE _judge_sel")
    return n_selected, todo


def item_context(con, benchmark: str, question_ids: list[str]) -> dict[str, dict]:
    """Per item: ``language`` (the benchmark's language, named) and
    ``source`` (the linked original from ``parallel_links`` — its text,
    options and key — rendered for a prompt, or None)."""
    from audit.llm.prompts import language_name, render_source

    if not question_ids:
        return {}
    rows = con.execute(
        "SELECT q.question_id, q.language, p.counterpart_source, p.counterpart_language, p.counterpart_stem, "
        "p.counterpart_options, p.counterpart_key FROM questions q LEFT JOIN parallel_links p "
        "ON p.benchmark = q.benchmark AND p.question_id = q.question_id "
        "WHERE q.benchmark = ? AND q.question_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY q.question_id, "
        "p.counterpart_source", [benchmark, question_ids]).fetchall()
    out: dict[str, dict] = {}
    for qid, lang, src, src_lang, stem, opts, key in rows:
        if qid in out:
            continue  # one source per item (the first by name)
        out[qid] = {"language": language_name(lang),
                    "source": render_source(src, src_lang, stem, opts, key) if src else None}
    return out


# ---------------------------------------------------------------- readers

def resolve_prompt_version(con, benchmark: str, judge: str, prompt_version: str | None = None) -> str:
    """The given version (checked), else the judge's most recently used one."""
    if prompt_version is not None:
        ok = con.execute(
            "SELECT 1 FROM judge_verdicts WHERE benchmark = ? AND judge = ? AND prompt_version = ? LIMIT 1",
            [benchmark, judge, prompt_version]).fetchone()
        if not ok:
            raise NotFoundError(
                f"judge '{judge}' has no verdicts with prompt version {prompt_version} on '{benchmark}'"
            )
        return prompt_version
    row = con.execute(
        "SELECT prompt_version FROM judge_verdicts WHERE benchmark = ? AND judge = ? "
        "GROUP BY prompt_version ORDER BY max(created_at) DESC, prompt_version LIMIT 1",
        [benchmark, judge]).fetchone()
    if row is None:
        known = [r[0] for r in con.execute(
            "SELECT DISTINCT judge FROM judge_verdicts WHERE benchmark = ? ORDER BY 1", [benchmark]).fetchall()]
        hint = f"; judges with verdicts: {', '.join(known)}" if known else "; no judge has verdicts on it yet"
        raise NotFoundError(f"no verdicts of judge '{judge}' on benchmark '{benchmark}'{hint}")
    return row[0]


def load_verdicts(benchmark: str, judge: str | None = None, *, prompt_version: str | None = None,
                  db: DbPath = None) -> pd.DataFrame:
    """Verdict rows (all ``judge_verdicts`` columns) with the item's
    ``answer_key`` and a derived ``judge_answer`` (= the key when judged
    correct, else ``correct_answer``; NULL when unparsed) and ``disputed``
    (parsed and answer_key_correct = false).  With ``judge`` given and no
    ``prompt_version``, the judge's most recent prompt version is used."""
    with connect(db, read_only=True) as con:
        params: list = [benchmark]
        cond = ""
        if judge is not None:
            version = resolve_prompt_version(con, benchmark, judge, prompt_version)
            cond = " AND v.judge = ? AND v.prompt_version = ?"
            params += [judge, version]
        return con.execute(
            "SELECT v.*, q.answer_key, "
            "CASE WHEN NOT v.parse_ok THEN NULL WHEN v.answer_key_correct THEN q.answer_key "
            "     ELSE v.correct_answer END AS judge_answer, "
            "coalesce(v.parse_ok AND NOT v.answer_key_correct, false) AS disputed "
            "FROM judge_verdicts v JOIN questions q USING (benchmark, question_id) "
            f"WHERE v.benchmark = ?{cond} ORDER BY v.judge, v.prompt_version, q.seq",
            params,
        ).df()


def disputed_ids(benchmark: str, judge: str, *, prompt_version: str | None = None, db: DbPath = None) -> set[str]:
    """Question ids the judge disputes (parsed reply, answer_key_correct = false)."""
    df = load_verdicts(benchmark, judge, prompt_version=prompt_version, db=db)
    return set(df.loc[df["disputed"], "question_id"])


def list_judges(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """One row per (benchmark, judge, prompt_version): ``n`` verdicts,
    ``n_parse_ok``, ``n_parse_failed``, ``n_disputed``, tokens, ``cost_usd``,
    ``source``, ``last_at``."""
    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT benchmark, judge, prompt_version, count(*) AS n, count(*) FILTER (parse_ok) AS n_parse_ok, "
            "count(*) FILTER (NOT parse_ok) AS n_parse_failed, "
            "count(*) FILTER (parse_ok AND NOT answer_key_correct) AS n_disputed, "
            "sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, "
            "sum(cost_usd) AS cost_usd, string_agg(DISTINCT source, ',') AS source, max(created_at) AS last_at "
            "FROM judge_verdicts WHERE ? IS NULL OR benchmark = ? GROUP BY ALL ORDER BY benchmark, judge, last_at",
            [benchmark, benchmark],
        ).df()


def list_runs(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """All judge_runs rows, newest first."""
    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT * FROM judge_runs WHERE ? IS NULL OR benchmark = ? ORDER BY run_id DESC",
            [benchmark, benchmark]).df()


@resolves_benchmark
def unparsed_replies(benchmark: str | None, judge: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Replies stored with parse_ok = false: question_id, judge, prompt_version, parse_error, raw_reply."""
    with connect(db, read_only=True) as con:
        return con.execute(
            "SELECT question_id, judge, prompt_version, parse_error, raw_reply, created_at FROM judge_verdicts "
            "WHERE benchmark = ? AND NOT parse_ok AND (? IS NULL OR judge = ?) ORDER BY judge, question_id",
            [benchmark, judge, judge]).df()


def judge_family(con, judge: str) -> str:
    """The judge's family.  A registered model of the same name (or of the
    name without its provider prefixes) gives its family, so
    ``audit models set-family`` overrides; otherwise the family is inferred
    from the most specific part of the name that a family rule recognises
    (``openrouter/google/gemini-2.5-pro`` and ``gemini/gemini-2.5-pro`` →
    google, ``groq/llama-3.1-70b`` → meta), else from the whole name."""
    from audit.ingest.models import infer_family, infer_provider

    parts = judge.split("/")
    suffixes = ["/".join(parts[i:]) for i in range(len(parts) - 1, -1, -1)]
    for name in reversed(suffixes):
        row = con.execute("SELECT family FROM models WHERE name = ?", [name]).fetchone()
        if row:
            return row[0]
    for name in suffixes:
        if infer_provider(name) is not None:
            return infer_family(name)
    return infer_family(judge)


def _table_columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ?", [table]
    ).fetchall()}
