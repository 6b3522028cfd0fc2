"""Recording expert verdicts: one validated, append-only code path shared by
the workbench, the CLI (``audit review add`` / ``audit review import``) and
Label Studio sync.

Rows of ``reviews`` are only ever inserted.  A reviewer who changes their
mind saves a new row; their latest row is their current verdict and the full
history stays visible.

Time and order.  ``created_at`` is always the database clock when the row is
inserted, and the order of verdicts ("latest") is the insertion order
(``review_id``).  A time given by an imported file or a Label Studio
annotation is kept as ``claimed_at``; one that lies in the future is
refused, so no file can make its verdict outrank later ones.

Question ids are NFC-normalised before they are looked up (a file typing a
Tibetan id in another Unicode spelling finds the item).
"""
from __future__ import annotations

import os
from datetime import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

from audit._sql import defaults_benchmark, resolves_benchmark
from audit._version import __version__
from audit.errors import AuditError, InputError, NotFoundError, PermissionDeniedError
from audit.labels import normalize_label
from audit.records import Review
from audit._read import nfc
from audit.review._common import clean_name, clean_text, to_utc
from audit.review._accounts import may_adjudicate
from audit.review._settings import leads_from
from audit.store import connect, transaction
from audit.vocab import CAUSES, REVIEW_SOURCES, VERDICTS
from audit.store import DbPath

REVIEW_COLUMNS = [
    "review_id", "benchmark", "question_id", "reviewer", "created_at", "verdict", "corrected_answer",
    "cause", "rationale", "proposed_fix", "is_adjudication", "source", "app_version", "external_id",
    "claimed_at",
]
IMPORT_REQUIRED = ["question_id", "reviewer", "verdict"]
IMPORT_ALLOWED = {
    "question_id", "reviewer", "verdict", "corrected_answer", "cause", "rationale",
    "proposed_fix", "created_at", "claimed_at", "is_adjudication",
}
#: Clock difference tolerated between a client and the database (seconds).
_CLOCK_SLACK = pd.Timedelta(seconds=120)


def db_now(con) -> datetime:
    """The database clock in UTC, naive (how ``reviews.created_at`` is stored)."""
    return con.execute("SELECT timezone('UTC', now())::TIMESTAMP").fetchall()[0][0]
_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"", "0", "false", "no", "n", "f"}


def _vocab_key(value) -> str:
    """'Key wrong', 'key-wrong', ' KEY_WRONG ' → 'key_wrong'."""
    return "_".join(str(value).strip().lower().replace("-", " ").split())


@dataclass
class _Where:
    """Where a row came from, for error messages (file:line or nothing)."""

    path: str | None = None
    line: int | None = None

    def fail(self, message: str, *, not_found: bool = False):
        if self.path is None and not_found:
            return NotFoundError(message)
        return InputError(message, path=self.path, line=self.line)


def _is_blank(v) -> bool:
    if v is None:
        return True
    try:
        if pd.isna(v):
            return True
    except (TypeError, ValueError):
        pass
    return isinstance(v, str) and not v.strip()


def _truthy(v) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in _TRUE
    return not _is_blank(v) and bool(v)


def _validate(con, benchmark: str, rows: list[dict], wheres: list[_Where],
              problems: list | None = None) -> list[dict]:
    """Check every row against the vocabulary, the item and the lead list;
    return the rows ready to insert.  Raises at the first bad row, or, when
    ``problems`` is a list, appends each row's reason (None when valid) to
    it and returns only the valid rows."""
    if not con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchall()[0][0]:
        raise NotFoundError(f"unknown benchmark '{benchmark}'")
    ids = sorted({nfc(str(r.get("question_id")).strip()) or "" for r in rows if not _is_blank(r.get("question_id"))})
    items = {
        qid: (key, labels)
        for qid, key, labels in con.execute(
            "SELECT question_id, answer_key, list_transform(options, lambda o: o.label) FROM questions "
            "WHERE benchmark = ? AND question_id IN (SELECT unnest(?::VARCHAR[]))",
            [benchmark, ids],
        ).fetchall()
    }
    leads = leads_from(con)
    adjudicators: dict[str, bool] = {}
    # Who already gave a (non-adjudication) verdict on the items adjudicated
    # here: their verdict is part of the dispute, so they may not settle it.
    adj_ids = sorted({nfc(str(r.get("question_id")).strip()) for r in rows if _truthy(r.get("is_adjudication"))})
    parties = {(q, n.casefold()) for q, n in con.execute(
        "SELECT DISTINCT question_id, reviewer FROM reviews WHERE benchmark = ? AND NOT is_adjudication "
        "AND verdict <> 'skip' AND question_id IN (SELECT unnest(?::VARCHAR[]))", [benchmark, adj_ids]).fetchall()
    } if adj_ids else set()
    known_external = set()
    ext = sorted({str(r["external_id"]) for r in rows if not _is_blank(r.get("external_id"))})
    if ext:
        known_external = {e for (e,) in con.execute(
            "SELECT external_id FROM reviews WHERE benchmark = ? AND external_id IN (SELECT unnest(?::VARCHAR[]))",
            [benchmark, ext]).fetchall()}
    now = db_now(con)
    out = []

    def one(row: dict, where: _Where) -> dict:
        qid = "" if _is_blank(row.get("question_id")) else nfc(str(row["question_id"]).strip())
        if not qid:
            raise where.fail("question_id is empty")
        if qid not in items:
            raise where.fail(f"unknown question '{qid}' in benchmark '{benchmark}'", not_found=True)
        key, labels = items[qid]
        reviewer = clean_name(row.get("reviewer"))
        if not reviewer:
            raise where.fail("reviewer name is empty; every verdict is attributed")
        raw_verdict = row.get("verdict")
        verdict = "" if _is_blank(raw_verdict) else _vocab_key(raw_verdict)
        if verdict not in VERDICTS:
            raise where.fail(f"unknown verdict '{'' if raw_verdict is None else raw_verdict}' "
                             f"(use one of: {', '.join(VERDICTS)})")
        raw_cause = row.get("cause")
        cause = None if _is_blank(raw_cause) else _vocab_key(raw_cause)
        if cause is not None and cause not in CAUSES:
            raise where.fail(f"unknown cause '{raw_cause}' (use one of: {', '.join(CAUSES)})")
        raw_answer = row.get("corrected_answer")
        answer = None
        if not _is_blank(raw_answer):
            answer = normalize_label(str(raw_answer))
            if answer is None or answer not in labels:
                raise where.fail(f"corrected answer '{raw_answer}' is not one of the item's options "
                                 f"({', '.join(labels)}) for question '{qid}'")
        if verdict == "key_wrong":
            if answer is None:
                raise where.fail(f"verdict key_wrong needs the corrected answer (one of {', '.join(labels)})")
            if answer == key:
                raise where.fail(f"corrected answer {answer} is the current key of question '{qid}'; "
                                 "use verdict key_correct if the key is right")
        elif answer is not None:
            raise where.fail(f"a corrected answer only goes with verdict key_wrong, not {verdict}")
        adj = row.get("is_adjudication", False)
        if isinstance(adj, str):
            low = adj.strip().lower()
            if low not in _TRUE | _FALSE:
                raise where.fail(f"is_adjudication must be true or false, not '{adj}'")
            adj = low in _TRUE
        adj = False if _is_blank(adj) else bool(adj)
        if adj and verdict == "skip":
            raise where.fail("an adjudication must decide: skip is not an adjudicated verdict")
        if adj:
            if reviewer.casefold() not in adjudicators:
                adjudicators[reviewer.casefold()] = may_adjudicate(con, reviewer)
            if not adjudicators[reviewer.casefold()]:
                who = f" (leads: {', '.join(leads)})" if leads else ""
                raise PermissionDeniedError(where.fail(
                    f"'{reviewer}' is not a lead reviewer and may not adjudicate{who}").args[0])
            if (qid, reviewer.casefold()) in parties:
                raise PermissionDeniedError(where.fail(
                    f"'{reviewer}' gave a verdict on question '{qid}' and so may not adjudicate it; "
                    "another lead reviewer settles it").args[0])
        source = row.get("source") or "cli"
        if source not in REVIEW_SOURCES:
            raise where.fail(f"unknown review source '{source}' (one of: {', '.join(REVIEW_SOURCES)})")
        claimed = row.get("claimed_at", row.get("created_at"))
        if _is_blank(claimed):
            claimed = None
        else:
            try:
                claimed = to_utc(claimed)
            except (ValueError, TypeError):
                raise where.fail(f"created_at '{claimed}' is not a date and time (use ISO 8601)") from None
            if claimed > now + _CLOCK_SLACK:
                raise where.fail(f"created_at {claimed:%Y-%m-%d %H:%M:%S} lies in the future (the database clock "
                                 f"says {now:%Y-%m-%d %H:%M:%S} UTC); a verdict cannot be dated later than it is "
                                 "recorded")
        external_id = None if _is_blank(row.get("external_id")) else str(row["external_id"])
        if external_id is not None:
            if external_id in known_external:
                raise where.fail(f"a review with external id '{external_id}' is already recorded")
            known_external.add(external_id)
        return {
            "benchmark": benchmark, "question_id": qid, "reviewer": reviewer, "created_at": now,
            "claimed_at": claimed,
            "verdict": verdict, "corrected_answer": answer, "cause": cause,
            "rationale": clean_text(row.get("rationale")), "proposed_fix": clean_text(row.get("proposed_fix")),
            "is_adjudication": adj, "source": source,
            "app_version": clean_text(row.get("app_version")) or __version__, "external_id": external_id,
        }

    for row, where in zip(rows, wheres):
        if problems is None:
            out.append(one(row, where))
            continue
        try:
            out.append(one(row, where))
            problems.append(None)
        except AuditError as exc:
            problems.append(getattr(exc, "detail", None) or str(exc))
    return out


def review_problems(con, benchmark: str, rows: Iterable[Mapping] | pd.DataFrame, *,
                    source: str = "cli") -> list[str | None]:
    """Why each row would be refused by :func:`add_reviews` (None when it is
    a valid verdict), without writing anything: the one validation every
    way in uses (CLI, import, workbench, Label Studio pull).

    >>> import tempfile, os
    >>> from audit.records import Question, Option
    >>> from audit.ingest import store_questions
    >>> from audit.store import connect
    >>> with connect(os.path.join(tempfile.mkdtemp(), "p.duckdb")) as con:
    ...     _ = store_questions(con, "demo", "demo", [Question("demo", "q1", "2+2?",
    ...         [Option("A", "3"), Option("B", "4")], "A")])
    ...     review_problems(con, "demo", [
    ...         {"question_id": "q1", "reviewer": "Pema", "verdict": "key_correct"},
    ...         {"question_id": "q1", "reviewer": "Pema", "verdict": "key_correct", "corrected_answer": "B"}])
    [None, 'a corrected answer only goes with verdict key_wrong, not key_correct']
    """
    records = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else rows
    clean: list[dict] = [{"source": source, **dict(r)} for r in records]
    out: list[str | None] = []
    try:
        _validate(con, benchmark, clean, [_Where() for _ in clean], problems=out)
    except AuditError as exc:  # the benchmark itself is unknown
        return [str(exc)] * len(clean)
    return out


def _insert(con, rows: list[dict]) -> list[Review]:
    """Insert validated rows; review ids come from the sequence, in row order.
    Small batches (a save from the workbench) use one VALUES statement, large
    ones (imports) an Arrow table scanned by DuckDB."""
    cols = REVIEW_COLUMNS[1:]
    ret = f"RETURNING {', '.join(REVIEW_COLUMNS)}"
    if len(rows) <= 100:
        values = ", ".join("(" + ", ".join("?" * len(cols)) + ")" for _ in rows)
        got = con.execute(f"INSERT INTO reviews ({', '.join(cols)}) VALUES {values} {ret}",
                          [r[c] for r in rows for c in cols]).fetchall()
    else:
        import pyarrow as pa

        table = pa.table({c: [r[c] for r in rows] for c in cols}).cast(pa.schema(
            [(c, pa.timestamp("us") if c in ("created_at", "claimed_at") else pa.bool_() if c == "is_adjudication" else pa.string())
             for c in cols]))
        con.register("_incoming_reviews", table)
        try:
            got = con.execute(f"INSERT INTO reviews ({', '.join(cols)}) "
                              f"SELECT {', '.join(cols)} FROM _incoming_reviews {ret}").fetchall()
        finally:
            con.unregister("_incoming_reviews")
    return sorted((_to_review(dict(zip(REVIEW_COLUMNS, r))) for r in got), key=lambda r: r.review_id)


def _to_review(d: Mapping) -> Review:
    return Review(
        benchmark=d["benchmark"], question_id=d["question_id"], reviewer=d["reviewer"], verdict=d["verdict"],
        created_at=d["created_at"], corrected_answer=d["corrected_answer"], cause=d["cause"],
        rationale=d["rationale"], proposed_fix=d["proposed_fix"], is_adjudication=bool(d["is_adjudication"]),
        source=d["source"], app_version=d["app_version"], review_id=d["review_id"], external_id=d["external_id"],
        claimed_at=d.get("claimed_at"),
    )


def append_reviews(con, benchmark: str, rows: Iterable[Mapping] | pd.DataFrame, *, source: str = "cli",
                   path: str | os.PathLike | None = None) -> list[Review]:
    """Validate and append reviews on the caller's connection, inside the
    caller's transaction (Label Studio sync records its own bookkeeping in
    the same transaction).  Same rows and checks as :func:`add_reviews`."""
    records: list[dict] = [dict(r) for r in (rows.to_dict("records") if isinstance(rows, pd.DataFrame) else rows)]
    for r in records:
        r.setdefault("source", source)
    wheres = [_Where(str(path) if path is not None else None, r.pop("_line", None)) for r in records]
    clean = _validate(con, benchmark, records, wheres)
    out = _insert(con, clean) if clean else []
    if out:  # the queue re-ranks after each verdict (issue 11)
        from audit.review._evidence import refresh_evidence
        refresh_evidence(con, benchmark)
    return out


def add_reviews(benchmark: str, rows: Iterable[Mapping] | pd.DataFrame, *, source: str = "cli",
                db: DbPath = None, path: str | os.PathLike | None = None) -> list[Review]:
    """Append many reviews in one transaction (all or nothing).

    ``rows`` are mappings (or a DataFrame) with the keyword arguments of
    :func:`add_review`; a ``_line`` key names the row's line in ``path`` for
    error messages, and a per-row ``source`` overrides ``source``.
    """
    with connect(db) as con, transaction(con):
        return append_reviews(con, benchmark, rows, source=source, path=path)


@defaults_benchmark
def add_review(
    benchmark: str | None,
    question_id: str,
    reviewer: str,
    verdict: str,
    *,
    corrected_answer: str | None = None,
    cause: str | None = None,
    rationale: str | None = None,
    proposed_fix: str | None = None,
    is_adjudication: bool = False,
    source: str = "cli",
    app_version: str | None = None,
    created_at=None,
    external_id: str | None = None,
    db: DbPath = None,
) -> Review:
    """Append one expert verdict and return it (with its ``review_id``).

    Validation (an :class:`~audit.errors.AuditError` and nothing appended):
    the benchmark and question exist; ``reviewer`` is not empty; ``verdict``
    is one of ``audit.vocab.VERDICTS`` and ``cause`` (optional) one of
    ``CAUSES``; ``corrected_answer`` (Latin or Tibetan label) is one of the
    item's options, is given exactly when the verdict is ``key_wrong``, and
    differs from the current key; an adjudication is not ``skip`` and, when
    lead reviewers or accounts exist, is made by a lead (see
    :mod:`audit.review._accounts`) who gave no verdict of their own on the
    item (their verdict is part of the dispute).  The review's
    ``created_at`` is the database clock; a ``created_at`` given here is
    kept as ``claimed_at`` (an aware time converted to UTC) and refused when
    it lies in the future.

    >>> import tempfile, os
    >>> from audit.records import Question, Option
    >>> from audit.ingest import store_questions
    >>> from audit.store import connect
    >>> db = os.path.join(tempfile.mkdtemp(), "r.duckdb")
    >>> with connect(db) as con:
    ...     _ = store_questions(con, "demo", "demo", [Question("demo", "q1", "2+2?",
    ...         [Option("A", "3"), Option("B", "4")], "A")])
    >>> r = add_review("demo", "q1", "Dolma", "key_wrong", corrected_answer="b", cause="key_slip", db=db)
    >>> r.review_id, r.verdict, r.corrected_answer
    (1, 'key_wrong', 'B')
    >>> add_review("demo", "q1", "Dolma", "key_wrong", corrected_answer="A", db=db)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: corrected answer A is the current key of question 'q1'; use verdict key_correct if the key is right
    """
    row = {
        "question_id": question_id, "reviewer": reviewer, "verdict": verdict,
        "corrected_answer": corrected_answer, "cause": cause, "rationale": rationale,
        "proposed_fix": proposed_fix, "is_adjudication": is_adjudication, "source": source,
        "app_version": app_version, "created_at": created_at, "external_id": external_id,
    }
    return add_reviews(benchmark, [row], source=source, db=db)[0]


@defaults_benchmark
def import_reviews(path: str | os.PathLike, *, benchmark: str | None = None, db: DbPath = None) -> list[Review]:
    """Append the reviews in a CSV or JSONL file (experts reviewing offline in
    a spreadsheet).  Columns: ``question_id, reviewer, verdict`` (required),
    ``corrected_answer, cause, rationale`` and optionally ``proposed_fix,
    created_at, is_adjudication``.  Same validation as :func:`add_review`;
    all or nothing; errors name ``file:line``.  Rows are stored with
    ``source='import'``."""
    from audit._read import read_table, require_columns

    p = Path(path)
    df = read_table(p)
    require_columns(df, IMPORT_REQUIRED, p, allowed=IMPORT_ALLOWED)
    df = df.astype(object).where(df.notna(), None)
    return add_reviews(benchmark, df.to_dict("records"), source="import", db=db, path=p)


@resolves_benchmark
def list_reviews(benchmark: str | None, question_id: str | None = None, *, reviewer: str | None = None,
                 db: DbPath = None) -> pd.DataFrame:
    """Every review row of a benchmark (or of one item / one reviewer), oldest
    first (insertion order): columns ``review_id, benchmark, question_id,
    reviewer, created_at (UTC, database clock), verdict, corrected_answer,
    cause, rationale, proposed_fix, is_adjudication, source, app_version,
    external_id, claimed_at``.  This is the full
    history, nothing hidden (for the CLI and exports; the workbench item page
    uses :func:`audit.review.item_view`, which hides others' verdicts)."""
    sql = f"SELECT {', '.join(REVIEW_COLUMNS)} FROM reviews WHERE benchmark = $b"
    params: dict = {"b": benchmark}
    if question_id is not None:
        sql += " AND question_id = $q"
        params["q"] = nfc(question_id)
    if reviewer is not None:
        sql += " AND reviewer = $r"
        params["r"] = clean_name(reviewer)
    sql += " ORDER BY review_id"
    with connect(db, read_only=True) as con:
        return con.execute(sql, params).df()
