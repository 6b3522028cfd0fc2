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

Consistent by construction: a corrected answer goes only with
``key_wrong``; a cause goes only with a verdict that says something is
wrong (:data:`CAUSE_VERDICTS`: ``key_slip`` only with ``key_wrong``); other
combinations are refused.  Rows stored before this rule are listed by
:func:`review_inconsistencies`.

One verdict per reviewer per item: a reviewer who already gave a
verdict (not a skip) on an item, or an adjudication, gives another only as an
explicit revision (``revision=True``, CLI ``--revise``); the row is marked
``is_revision``.  An edited Label Studio annotation is a revision.

Identities: once the database has accounts, every reviewer named
must be an enabled account at the moment the row is written (a disabled
account's open session can no longer save), adjudications need a lead, and
an import of verdicts from a file is a lead's or admin's act, recorded in
``recorded_by``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

from audit._util.clock import to_utc
from audit._util.files import nfc
from audit._util.sql import unregister
from audit._util.text import clean_name, clean_text
from audit._util.version import __version__
from audit.accounts import require_role
from audit.accounts.leads import leads_from
from audit.accounts.roles import may_adjudicate
from audit.accounts.table import account_from, has_accounts
from audit.errors import AuditError, InputError, NotFoundError, PermissionDeniedError
from audit.options import normalize_label
from audit.review.dispute import dispute_parties
from audit.review.guidelines import current_version
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import defaults_benchmark, resolves_benchmark
from audit.store.records import Review
from audit.vocab import CAUSES, REVIEW_SOURCES, VERDICTS

REVIEW_COLUMNS = [
    "review_id", "benchmark", "question_id", "reviewer", "created_at", "verdict", "corrected_answer",
    "cause", "rationale", "proposed_fix", "is_adjudication", "source", "app_version", "external_id",
    "claimed_at", "is_revision", "recorded_by", "guideline_version",
]
IMPORT_REQUIRED = ["question_id", "reviewer", "verdict"]
IMPORT_ALLOWED = {
    "question_id", "reviewer", "verdict", "corrected_answer", "cause", "rationale",
    "proposed_fix", "created_at", "claimed_at", "is_adjudication", "revision",
}
#: Verdicts a cause may go with (a cause explains what is wrong); the
#: ``key_slip`` cause only with ``key_wrong``.
CAUSE_VERDICTS = ("key_wrong", "ambiguous", "defective")
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
    """None, a pandas NaN or text that is only spaces."""
    return clean_text(v) is None


def _truthy(v) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in _TRUE
    return not _is_blank(v) and bool(v)


def _cause_problem(verdict: str, cause: str | None) -> str | None:
    """Why ``cause`` may not go with ``verdict`` (None when it may)."""
    if cause is None:
        return None
    if verdict not in CAUSE_VERDICTS:
        return f"a cause only goes with verdict {', '.join(CAUSE_VERDICTS)}, not {verdict} (cause {cause})"
    if cause == "key_slip" and verdict != "key_wrong":
        return f"cause key_slip (an answer-key slip) only goes with verdict key_wrong, not {verdict}"
    return None


def _validate(con, benchmark: str, rows: list[dict], wheres: list[_Where],
              problems: list | None = None, actor: str | None = None) -> list[dict]:
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
    # The parties to the disputes adjudicated here may not settle them
    # (a lead who joined a dispute later still may: audit.review.dispute).
    adj_ids = sorted({nfc(str(r.get("question_id")).strip()) for r in rows if _truthy(r.get("is_adjudication"))})
    history: dict[str, list] = {}
    if adj_ids:
        for q, *r in con.execute(
            "SELECT question_id, review_id, reviewer, verdict, corrected_answer, is_adjudication FROM reviews "
            "WHERE benchmark = ? AND question_id IN (SELECT unnest(?::VARCHAR[]))",
            [benchmark, adj_ids],
        ).fetchall():
            history.setdefault(q, []).append(r)
    parties = {(q, n) for q, rows_ in history.items() for n in dispute_parties(rows_)}
    # Earlier verdicts (not skips) per item, reviewer and kind: a new one is a revision.
    given: set[tuple[str, str, bool]] = {(q, n.casefold(), bool(a)) for q, n, a in con.execute(
        "SELECT DISTINCT question_id, reviewer, is_adjudication FROM reviews WHERE benchmark = ? "
        "AND verdict <> 'skip' AND question_id IN (SELECT unnest(?::VARCHAR[]))", [benchmark, ids]).fetchall()}
    accounts = has_accounts(con)
    enabled: dict[str, str | None] = {}
    known_external = set()
    ext = sorted({str(r["external_id"]) for r in rows if not _is_blank(r.get("external_id"))})
    if ext:
        known_external = {e for (e,) in con.execute(
            "SELECT external_id FROM reviews WHERE benchmark = ? AND external_id IN (SELECT unnest(?::VARCHAR[]))",
            [benchmark, ext]).fetchall()}
    now = db_now(con)
    guideline_version = current_version(con)   # the guidelines in force when the verdict is recorded
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
        if accounts:
            if reviewer.casefold() not in enabled:
                acc = account_from(con, reviewer)
                enabled[reviewer.casefold()] = acc.name if acc is not None and not acc.disabled else None
            if enabled[reviewer.casefold()] is None:
                raise PermissionDeniedError(where.fail(
                    f"'{reviewer}' has no enabled account and may not record verdicts").args[0])
            reviewer = enabled[reviewer.casefold()] or reviewer
        raw_verdict = row.get("verdict")
        verdict = "" if _is_blank(raw_verdict) else _vocab_key(raw_verdict)
        if verdict not in VERDICTS:
            raise where.fail(f"unknown verdict '{'' if raw_verdict is None else raw_verdict}' "
                             f"(use one of: {', '.join(VERDICTS)})")
        raw_cause = row.get("cause")
        cause = None if _is_blank(raw_cause) else _vocab_key(raw_cause)
        if cause is not None and cause not in CAUSES:
            raise where.fail(f"unknown cause '{raw_cause}' (use one of: {', '.join(CAUSES)})")
        bad_cause = _cause_problem(verdict, cause)
        if bad_cause:
            raise where.fail(bad_cause)
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
        raw_rev = row.get("revision", False)
        if isinstance(raw_rev, str):
            if raw_rev.strip().lower() not in _TRUE | _FALSE:
                raise where.fail(f"revision must be true or false, not '{raw_rev}'")
            raw_rev = raw_rev.strip().lower() in _TRUE
        revision = False if _is_blank(raw_rev) else bool(raw_rev)
        mine = (qid, reviewer.casefold(), adj)
        earlier = mine in given and verdict != "skip"   # a skip neither counts nor replaces a verdict
        if earlier and not revision and source != "label_studio":  # an edited annotation revises
            what = "an adjudication" if adj else "a verdict"
            raise where.fail(f"'{reviewer}' already gave {what} on question '{qid}'; a second one is recorded "
                             "only as an explicit revision (--revise, or revision=True)")
        if verdict != "skip":
            given.add(mine)
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
            "is_revision": earlier,
            "recorded_by": actor if actor is not None and (source == "import"
                                                           or actor.casefold() != reviewer.casefold()) else None,
            "guideline_version": guideline_version,
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
    >>> from audit.store.records import Question, Option
    >>> from audit.ingest.storing import store_questions
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
            [(c, pa.timestamp("us") if c in ("created_at", "claimed_at") else pa.bool_()
              if c in ("is_adjudication", "is_revision") else pa.int64() if c == "guideline_version" else pa.string())
             for c in cols]))
        con.register("_incoming_reviews", table)
        try:
            got = con.execute(f"INSERT INTO reviews ({', '.join(cols)}) "
                              f"SELECT {', '.join(cols)} FROM _incoming_reviews {ret}").fetchall()
        finally:
            unregister(con, "_incoming_reviews")
    return sorted((_to_review(dict(zip(REVIEW_COLUMNS, r))) for r in got), key=lambda r: r.review_id)


def _to_review(d: Mapping) -> Review:
    return Review(
        benchmark=d["benchmark"], question_id=d["question_id"], reviewer=d["reviewer"], verdict=d["verdict"],
        created_at=d["created_at"], corrected_answer=d["corrected_answer"], cause=d["cause"],
        rationale=d["rationale"], proposed_fix=d["proposed_fix"], is_adjudication=bool(d["is_adjudication"]),
        source=d["source"], app_version=d["app_version"], review_id=d["review_id"], external_id=d["external_id"],
        claimed_at=d.get("claimed_at"), is_revision=bool(d.get("is_revision")), recorded_by=d.get("recorded_by"),
        guideline_version=d.get("guideline_version"),
    )


def _check_actor(con, records: list[dict], source: str, actor: str | None) -> str | None:
    """Who records these rows, checked against the accounts (when any):
    an import from a file is a lead's or admin's act; recording another
    reviewer's verdict too.  Returns the actor's stored name (or None)."""
    if not has_accounts(con):
        return clean_name(actor) or None
    if source == "import":
        require_role(con, actor, "lead", "importing verdicts from a file")
    if actor is None:  # the reviewer acts (the caller signed them in: a workbench session)
        return None
    require_role(con, actor, "reviewer", "recording verdicts")
    acc = account_from(con, actor)
    name = acc.name if acc is not None else clean_name(actor)
    if any(clean_name(r.get("reviewer")).casefold() != name.casefold() for r in records):
        require_role(con, name, "lead", "recording another reviewer's verdicts")
    return name


def append_reviews(con, benchmark: str, rows: Iterable[Mapping] | pd.DataFrame, *, source: str = "cli",
                   path: str | os.PathLike | None = None, actor: str | None = None) -> list[Review]:
    """Validate and append reviews on the caller's connection, inside the
    caller's transaction (Label Studio sync records its own bookkeeping in
    the same transaction).  Same rows and checks as :func:`add_reviews`."""
    records: list[dict] = [dict(r) for r in (rows.to_dict("records") if isinstance(rows, pd.DataFrame) else rows)]
    for r in records:
        r.setdefault("source", source)
    wheres = [_Where(str(path) if path is not None else None, r.pop("_line", None)) for r in records]
    who = _check_actor(con, records, source, actor)
    clean = _validate(con, benchmark, records, wheres, actor=who)
    out = _insert(con, clean) if clean else []
    if out:  # the queue re-ranks after each verdict
        from audit.review.evidence import refresh_evidence
        refresh_evidence(con, benchmark)
    return out


def add_reviews(benchmark: str, rows: Iterable[Mapping] | pd.DataFrame, *, source: str = "cli",
                db: DbPath = None, path: str | os.PathLike | None = None, actor: str | None = None) -> list[Review]:
    """Append many reviews in one transaction (all or nothing).

    ``rows`` are mappings (or a DataFrame) with the keyword arguments of
    :func:`add_review`; a ``_line`` key names the row's line in ``path`` for
    error messages, and a per-row ``source`` overrides ``source``.
    ``actor`` is the signed-in account recording them (the caller checked
    its password or session): once accounts exist it must be enabled, and a
    lead or admin when it records others' verdicts or ``source`` is
    ``import``; it is kept as ``recorded_by`` on rows of other reviewers.
    """
    with connect(db) as con, transaction(con):
        return append_reviews(con, benchmark, rows, source=source, path=path, actor=actor)


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
    revision: bool = False,
    actor: str | None = None,
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
    :mod:`audit.accounts`) who gave no verdict of their own on the
    item (their verdict is part of the dispute).  The review's
    ``created_at`` is the database clock; a ``created_at`` given here is
    kept as ``claimed_at`` (an aware time converted to UTC) and refused when
    it lies in the future.  A reviewer's second verdict on an item needs
    ``revision=True`` (it is marked ``is_revision``); a cause goes only
    with the verdicts in :data:`CAUSE_VERDICTS`.  Once accounts exist,
    ``reviewer`` must be an enabled account when the row is written, and
    ``actor`` (the signed-in account, default ``reviewer``) a lead or admin
    when it is not the reviewer.

    >>> import tempfile, os
    >>> from audit.store.records import Question, Option
    >>> from audit.ingest.storing import store_questions
    >>> from audit.store import connect
    >>> db = os.path.join(tempfile.mkdtemp(), "r.duckdb")
    >>> with connect(db) as con:
    ...     _ = store_questions(con, "demo", "demo", [Question("demo", "q1", "2+2?",
    ...         [Option("A", "3"), Option("B", "4")], "A")])
    >>> r = add_review("demo", "q1", "Dolma", "key_wrong", corrected_answer="b", cause="key_slip", db=db)
    >>> r.review_id, r.verdict, r.corrected_answer
    (1, 'key_wrong', 'B')
    >>> add_review("demo", "q1", "Dolma", "key_wrong", corrected_answer="A", db=db)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: corrected answer A is the current key
    of question 'q1'; use verdict key_correct if the key is right
    >>> add_review("demo", "q1", "Dolma", "key_correct", db=db)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: 'Dolma' already gave a verdict on question 'q1'; a
    second one is recorded only as an explicit revision (--revise, or revision=True)
    >>> add_review("demo", "q1", "Dolma", "key_correct", revision=True, db=db).is_revision
    True
    """
    row = {
        "question_id": question_id, "reviewer": reviewer, "verdict": verdict,
        "corrected_answer": corrected_answer, "cause": cause, "rationale": rationale,
        "proposed_fix": proposed_fix, "is_adjudication": is_adjudication, "source": source,
        "app_version": app_version, "created_at": created_at, "external_id": external_id, "revision": revision,
    }
    return add_reviews(benchmark, [row], source=source, db=db, actor=actor)[0]


@defaults_benchmark
def import_reviews(path: str | os.PathLike, *, benchmark: str | None = None, actor: str | None = None,
                   db: DbPath = None) -> list[Review]:
    """Append the reviews in a CSV or JSONL file (experts reviewing offline in
    a spreadsheet).  Columns: ``question_id, reviewer, verdict`` (required),
    ``corrected_answer, cause, rationale`` and optionally ``proposed_fix,
    created_at, is_adjudication, revision``.  Same validation as
    :func:`add_review`; all or nothing; errors name ``file:line``.  Rows are
    stored with ``source='import'``.  Once accounts exist an import is a
    lead's or admin's act: ``actor`` (signed in by the caller) is required
    and kept as ``recorded_by``, and every reviewer named must be an
    enabled account."""
    from audit._util.files import read_table, require_columns

    p = Path(path)
    df = read_table(p)
    require_columns(df, IMPORT_REQUIRED, p, allowed=IMPORT_ALLOWED)
    df = df.astype(object).where(df.notna(), None)
    return add_reviews(benchmark, df.to_dict("records"), source="import", db=db, path=p, actor=actor)


@resolves_benchmark
def list_reviews(benchmark: str | None, question_id: str | None = None, *, reviewer: str | None = None,
                 db: DbPath = None) -> pd.DataFrame:
    """Every review row of a benchmark (or of one item / one reviewer), oldest
    first (insertion order): columns ``review_id, benchmark, question_id,
    reviewer, created_at (UTC, database clock), verdict, corrected_answer,
    cause, rationale, proposed_fix, is_adjudication, source, app_version,
    external_id, claimed_at, is_revision, recorded_by, guideline_version``.  This is the full
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


INCONSISTENCY_COLUMNS = ["review_id", "question_id", "reviewer", "verdict", "corrected_answer", "cause", "problem"]


def review_inconsistencies(con, benchmark: str) -> pd.DataFrame:
    """Stored review rows whose parts do not belong together (rows written
    before :func:`add_review` refused such combinations): a cause with a
    verdict outside :data:`CAUSE_VERDICTS`, ``key_slip`` without
    ``key_wrong``, a corrected answer without ``key_wrong``, ``key_wrong``
    without one.  Columns :data:`INCONSISTENCY_COLUMNS`, by ``review_id``;
    ``problem`` says what is wrong in one line.  Exports show these rows as
    inconsistent rather than as valid verdicts.

    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE reviews AS SELECT * FROM (VALUES (1, 'b', 'q1', 'Pema', 'key_correct', "
    ...                 "NULL, 'key_slip'), (2, 'b', 'q1', 'Dolma', 'key_wrong', 'B', 'key_slip')) "
    ...                 "t(review_id, benchmark, question_id, reviewer, verdict, corrected_answer, cause)")
    >>> review_inconsistencies(con, "b")[["review_id", "problem"]].values.tolist()
    [[1, 'cause key_slip recorded with verdict key_correct (a cause goes only with key_wrong, ambiguous, defective)']]
    """
    allowed = ", ".join(f"'{v}'" for v in CAUSE_VERDICTS)
    return con.execute(f"""
        SELECT {', '.join(INCONSISTENCY_COLUMNS)} FROM (
            SELECT review_id, question_id, reviewer, verdict, corrected_answer, cause,
                   CASE
                     WHEN verdict = 'key_wrong' AND corrected_answer IS NULL
                       THEN 'verdict key_wrong recorded without a corrected answer'
                     WHEN verdict <> 'key_wrong' AND corrected_answer IS NOT NULL
                       THEN 'corrected answer ' || corrected_answer || ' recorded with verdict ' || verdict
                            || ' (it goes only with key_wrong)'
                     WHEN cause IS NOT NULL AND verdict NOT IN ({allowed})
                       THEN 'cause ' || cause || ' recorded with verdict ' || verdict
                            || ' (a cause goes only with {", ".join(CAUSE_VERDICTS)})'
                     WHEN cause = 'key_slip' AND verdict <> 'key_wrong'
                       THEN 'cause key_slip recorded with verdict ' || verdict || ' (it goes only with key_wrong)'
                   END AS problem
            FROM reviews WHERE benchmark = ?
        ) WHERE problem IS NOT NULL ORDER BY review_id""", [benchmark]).df()


@resolves_benchmark
def inconsistent_reviews(benchmark: str | None, *, db: DbPath = None) -> pd.DataFrame:
    """:func:`review_inconsistencies` of a benchmark in the database ``db``."""
    with connect(db, read_only=True) as con:
        return review_inconsistencies(con, benchmark)


__all__ = [
    "REVIEW_COLUMNS", "IMPORT_REQUIRED", "IMPORT_ALLOWED", "CAUSE_VERDICTS", "db_now", "review_problems",
    "append_reviews", "add_reviews", "add_review", "import_reviews", "list_reviews", "INCONSISTENCY_COLUMNS",
    "review_inconsistencies", "inconsistent_reviews",
]
