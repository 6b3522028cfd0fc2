"""Error reports from readers outside the team: someone who spots a wrong
key says so without an account (the workbench's report form, ``audit
review report-error``, or a lead's import of a file of reports, e.g.
exported issue threads).

* **Never a verdict.**  A report changes no key, verdict, settlement or
  export file; it only raises its item in the queue (an item with an open
  report passes the queue's tier filter and comes first,
  :mod:`audit.review.queue`) and shows on the item page in plain words.
* **A lead triages it** (:func:`triage_report`): accepted or dismissed.
  An accepted report's author is credited, under the name they gave (or
  as an anonymous reader), in the CHANGELOG and DATASHEET of the next
  version exported (:func:`credits`, :func:`mark_credited`).
* **Untrusted text.**  The text, name and contact are stored as given
  (NFC, control characters removed, size-limited: :data:`MAX_TEXT`,
  :data:`MAX_NAME`, :data:`MAX_CONTACT`); every place that shows them
  escapes them (HTML, Markdown) and every CSV neutralises formula cells
  (:mod:`audit._util.safe_csv`).
* **Rate-limited per sender**: at most :data:`RATE_LIMIT` reports per
  sender in any hour (:class:`~audit.errors.RateLimitedError` beyond).
  The sender is the form's client address, else the contact or name
  given; it is stored only as a keyed hash.
* **Says nothing about others.**  Sending a report returns a random
  receipt and nothing else: not whether the item was reported before, is
  settled, or is in the queue.  Listing reports (with names and contacts)
  is a lead's act.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pandas as pd

from audit._util.files import nfc, read_table, require_columns
from audit._util.text import clean_name
from audit.accounts import require_role
from audit.errors import AuditError, InputError, NotFoundError, RateLimitedError
from audit.options import normalize_label
from audit.review.record import db_now
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import resolves_benchmark
from audit.store.settings import read_setting, write_setting
from audit.vocab import REPORT_CHANNELS, REPORT_STATUSES

#: Longest report text, name and contact (characters).
MAX_TEXT = 2000
MAX_NAME = 80
MAX_CONTACT = 200
#: Reports one sender may send in any :data:`RATE_WINDOW`.
RATE_LIMIT = 20
RATE_WINDOW = timedelta(hours=1)
_SALT_SETTING = "report_sender_salt"
REPORT_COLUMNS = ["report_id", "question_id", "created_at", "status", "text", "suggested_answer", "name", "contact",
                  "channel", "triaged_by", "triaged_at", "credited_version"]
IMPORT_REQUIRED = ["question_id", "text"]
IMPORT_ALLOWED = {"question_id", "text", "answer", "suggested_answer", "name", "contact"}
# control characters but tab and newline (a report may have lines)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class ReportReceipt:
    """What a sender is told: the report's id (random), nothing else."""

    report_id: str


@dataclass(frozen=True)
class ItemReport:
    """A report as the item page shows it (no name, no contact); a lead
    triages it by ``report_id``."""

    report_id: str
    created_at: object
    text: str
    suggested_answer: str | None
    status: str


def _text(value, limit: int, what: str, *, lines: bool) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    s = unicodedata.normalize("NFC", str(value))
    s = _CONTROL.sub("", s.replace("\r\n", "\n").replace("\r", "\n"))
    s = s.strip() if lines else " ".join(s.split())
    if not s:
        return None
    if len(s) > limit:
        raise InputError(f"the {what} is {len(s)} characters long; at most {limit} are accepted")
    return s


def _salt(con) -> bytes:
    v = read_setting(con, _SALT_SETTING)
    if not v:
        v = secrets.token_hex(32)
        write_setting(con, _SALT_SETTING, v)
    return bytes.fromhex(v)


def sender_key(con, sender: str) -> str:
    """A keyed hash of who sent a report (the per-database key is made on
    first use), so no address or contact is kept for the rate limit."""
    return hmac.new(_salt(con), clean_name(sender).casefold().encode("utf-8"), hashlib.sha256).hexdigest()


def _checked(con, benchmark: str, row: dict) -> dict:
    """A report row validated against its item: the values to store."""
    qid = nfc(str(row.get("question_id") or "").strip())
    if not qid:
        raise InputError("say which item the report is about (its id)")
    item = con.execute("SELECT list_transform(options, lambda o: o.label) FROM questions "
                       "WHERE benchmark = ? AND question_id = ?", [benchmark, qid]).fetchall()
    if not item:
        raise NotFoundError(f"no item '{qid}' in benchmark '{benchmark}'")
    text = _text(row.get("text"), MAX_TEXT, "report", lines=True)
    if text is None:
        raise InputError("say what is wrong with the item")
    raw = row.get("answer")
    answer = None
    if raw is not None and str(raw).strip() and not (isinstance(raw, float) and raw != raw):
        answer = normalize_label(str(raw))
        if answer is None or answer not in item[0][0]:
            raise InputError(f"suggested answer '{raw}' is not one of the item's options ({', '.join(item[0][0])})")
    return {"question_id": qid, "text": text, "suggested_answer": answer,
            "name": _text(row.get("name"), MAX_NAME, "name", lines=False),
            "contact": _text(row.get("contact"), MAX_CONTACT, "contact", lines=False)}


def _insert(con, benchmark: str, r: dict, channel: str, key: str, now) -> str:
    rid = secrets.token_hex(8)
    con.execute("INSERT INTO error_reports (report_id, benchmark, question_id, text, suggested_answer, name, contact, "
                "sender_key, channel, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [rid, benchmark, r["question_id"], r["text"], r["suggested_answer"], r["name"], r["contact"], key,
                 channel, now])
    return rid


@resolves_benchmark
def report_error(benchmark: str | None, question_id: str, text: str, *, answer: str | None = None,
                 name: str | None = None, contact: str | None = None, sender: str | None = None, channel: str = "cli",
                 db: DbPath = None) -> ReportReceipt:
    """Record a reader's report that ``question_id`` is wrong (no account
    needed).  ``answer``: the answer they suggest (an option label);
    ``name``: how they want to be credited; ``contact``: how a lead may
    reach them (leads only see it); ``sender``: who sends it for the rate
    limit (the form passes the client's address; default the contact or
    name).  Refused beyond :data:`RATE_LIMIT` reports per sender per hour.
    Returns only a receipt.

    >>> import tempfile, os
    >>> from audit.store.records import Question, Option
    >>> from audit.ingest.storing import store_questions
    >>> from audit.store import connect
    >>> db = os.path.join(tempfile.mkdtemp(), "r.duckdb")
    >>> with connect(db) as con:
    ...     _ = store_questions(con, "demo", "demo", [Question("demo", "q1", "2+2?",
    ...         [Option("A", "3"), Option("B", "4")], "A")])
    >>> len(report_error("demo", "q1", "2+2 is 4, not 3", answer="B", name="Tashi", db=db).report_id)
    16
    >>> report_error("demo", "q1", "x" * 3000, db=db)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: the report is 3000 characters long; at most 2000 are accepted
    """
    if channel not in REPORT_CHANNELS:
        raise InputError(f"unknown report channel '{channel}' (use one of: {', '.join(REPORT_CHANNELS)})")
    with connect(db) as con, transaction(con):
        if not con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchall()[0][0]:
            raise NotFoundError(f"unknown benchmark '{benchmark}'")
        r = _checked(con, benchmark, {"question_id": question_id, "text": text, "answer": answer, "name": name,
                                      "contact": contact})
        who = sender if sender is not None and str(sender).strip() else (r["contact"] or r["name"] or "anonymous")
        key = sender_key(con, str(who))
        now = db_now(con)
        n = con.execute("SELECT count(*) FROM error_reports WHERE sender_key = ? AND created_at > ?",
                        [key, now - RATE_WINDOW]).fetchall()[0][0]
        if n >= RATE_LIMIT:
            raise RateLimitedError(f"too many reports from this sender in the last hour (at most {RATE_LIMIT}); "
                                   "please try again later")
        return ReportReceipt(_insert(con, benchmark, r, channel, key, now))


@resolves_benchmark
def import_reports(path: str | os.PathLike, *, benchmark: str | None = None, actor: str | None = None,
                   db: DbPath = None) -> int:
    """Record the reports of a CSV or JSON(L) file (columns
    ``question_id, text`` and optionally ``answer`` (or
    ``suggested_answer``), ``name, contact``), all or nothing, errors
    naming ``file:line``; returns how many.  A lead's act (the lead vouches
    for the file, so the per-sender rate limit does not apply; the size
    limits do)."""
    p = Path(path)
    df = read_table(p)
    require_columns(df, IMPORT_REQUIRED, p, allowed=IMPORT_ALLOWED)
    df = df.astype(object).where(df.notna(), None)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing error reports")
        if not con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchall()[0][0]:
            raise NotFoundError(f"unknown benchmark '{benchmark}'")
        now = db_now(con)
        rows = []
        for rec in df.to_dict("records"):
            line = rec.pop("_line", None)
            if rec.get("answer") is None:
                rec["answer"] = rec.get("suggested_answer")
            try:
                rows.append(_checked(con, benchmark, rec))
            except AuditError as exc:
                raise InputError(getattr(exc, "detail", None) or str(exc), path=p, line=line) from None
        for r in rows:
            _insert(con, benchmark, r, "import", sender_key(con, r["contact"] or r["name"] or f"import:{p.name}"), now)
    return len(rows)


@resolves_benchmark
def list_reports(benchmark: str | None, *, status: str | None = None, actor: str | None = None,
                 db: DbPath = None) -> pd.DataFrame:
    """Every report of ``benchmark`` (or those with ``status``), newest
    first: columns :data:`REPORT_COLUMNS`.  Names and contacts are in it:
    a lead's act once the database has accounts or a lead list."""
    if status is not None and status not in REPORT_STATUSES:
        raise InputError(f"unknown report status '{status}' (use one of: {', '.join(REPORT_STATUSES)})")
    with connect(db, read_only=True) as con:
        require_role(con, actor, "lead", "reading error reports")
        return con.execute(
            f"SELECT {', '.join(REPORT_COLUMNS)} FROM error_reports WHERE benchmark = ? "
            "AND (? IS NULL OR status = ?) ORDER BY created_at DESC, report_id", [benchmark, status, status]).df()


def triage_report(report_id: str, *, accept: bool, actor: str | None = None, db: DbPath = None) -> str:
    """Accept or dismiss a report (a lead's act); returns its new status.  A
    report already credited in a version keeps its status."""
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "triaging error reports")
        row = con.execute("SELECT status, credited_version FROM error_reports WHERE report_id = ?",
                          [str(report_id).strip()]).fetchall()
        if not row:
            raise NotFoundError(f"no error report '{report_id}'")
        if row[0][1] is not None:
            raise InputError(f"report '{report_id}' was credited in version {row[0][1]} and stays accepted")
        status = "accepted" if accept else "dismissed"
        con.execute("UPDATE error_reports SET status = ?, triaged_by = ?, triaged_at = ? WHERE report_id = ?",
                    [status, clean_name(actor) or None, db_now(con), str(report_id).strip()])
    return status


def reports_command(benchmark: str, *, accept: str | None = None, dismiss: str | None = None,
                    status: str | None = None, actor: str | None = None, db: DbPath = None):
    """``audit review reports``: triage one report (``accept`` / ``dismiss``
    an id; returns its new status) or list them (a DataFrame)."""
    if accept is not None and dismiss is not None:
        raise InputError("accept or dismiss one report at a time")
    if accept is not None or dismiss is not None:
        return triage_report(accept if accept is not None else dismiss, accept=accept is not None, actor=actor, db=db)
    return list_reports(benchmark, status=status, actor=actor, db=db)


@dataclass(frozen=True)
class ReportableItem:
    """An item as the benchmark publishes it, for the report form: nothing
    of its review (status, verdicts, reports, whether it is queued)."""

    question_id: str
    stem: str
    options: list
    answer_key: str | None
    script: str | None
    language: str | None


def reportable_item(benchmark: str, question_id: str, *, db: DbPath = None) -> ReportableItem:
    """The item ``question_id`` as published (question, options, key), for
    the report form; :class:`~audit.errors.NotFoundError` when there is none."""
    qid = nfc(str(question_id).strip())
    with connect(db, read_only=True) as con:
        row = con.execute("SELECT question_id, stem, options, answer_key, script, language FROM questions "
                          "WHERE benchmark = ? AND question_id = ?", [benchmark, qid]).fetchall()
    if not row:
        raise NotFoundError(f"no item '{qid}' in benchmark '{benchmark}'")
    q, stem, opts, key, script, lang = row[0]
    return ReportableItem(q, stem, [(o["label"], o["text"]) for o in opts], key, script, lang)


def item_reports(con, benchmark: str, question_id: str) -> list[ItemReport]:
    """The open and accepted reports of one item, oldest first (the item
    page shows them; dismissed ones and the senders' names and contacts
    are not shown)."""
    rows = con.execute("SELECT report_id, created_at, text, suggested_answer, status FROM error_reports "
                       "WHERE benchmark = ? "
                       "AND question_id = ? AND status <> 'dismissed' ORDER BY created_at, report_id",
                       [benchmark, question_id]).fetchall()
    return [ItemReport(*r) for r in rows]


def credits(con, benchmark: str) -> pd.DataFrame:
    """Accepted reports not yet credited in a version: ``report_id,
    question_id, name`` (None: an anonymous reader), by item and time."""
    return con.execute("SELECT r.report_id, r.question_id, r.name FROM error_reports r JOIN questions q "
                       "ON q.benchmark = r.benchmark AND q.question_id = r.question_id "
                       "WHERE r.benchmark = ? AND r.status = 'accepted' AND r.credited_version IS NULL "
                       "ORDER BY q.seq, r.created_at, r.report_id", [benchmark]).df()


def mark_credited(con, report_ids: list[str], version: str) -> None:
    """Record, in the caller's transaction, that ``version`` credits these reports."""
    if report_ids:
        con.execute("UPDATE error_reports SET credited_version = ? WHERE report_id IN (SELECT unnest(?::VARCHAR[]))",
                    [version, list(report_ids)])


__all__ = [
    "MAX_TEXT", "MAX_NAME", "MAX_CONTACT", "RATE_LIMIT", "RATE_WINDOW", "REPORT_COLUMNS", "ReportReceipt",
    "ItemReport", "ReportableItem", "reportable_item", "sender_key", "report_error", "import_reports", "list_reports",
    "triage_report", "reports_command",
    "item_reports", "credits", "mark_credited",
]
