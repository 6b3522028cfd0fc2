"""A review campaign as an admin sets it up: which items enter
the queue (tiers and/or a key-error score threshold, subjects), which
subjects or items each reviewer is given, and progress per reviewer and per
subject.

* **Queue entry** is a review setting (``queue_entry``, JSON): an item
  enters every reviewer's queue when its tier is among ``tiers`` *or* its
  key-error score (the probability that the key is wrong, see
  :func:`audit.review.evidence_scores`) is at least ``min_key_error`` —
  either alone when the other is unset — and its subject is among
  ``subjects`` (all subjects when unset).  No setting: every item (the
  queue's own filters still apply).
* **Assignments** (table ``review_assignments``): a reviewer with at least
  one assignment on a benchmark sees only the subjects and items assigned
  to them; leads and admins always see every item.
* Changing either needs an admin (:func:`audit.accounts.require_role`).

>>> import tempfile, os
>>> from audit.accounts import add_account
>>> db = os.path.join(tempfile.mkdtemp(), "a.duckdb")
>>> _ = add_account("Dolma", "correct horse", db=db)
>>> set_queue_entry(tiers=[1, 2], min_key_error=0.5, actor="Dolma", db=db)
QueueEntry(tiers=(1, 2), min_key_error=0.5, subjects=None)
>>> set_queue_entry(tiers=[1], actor="Pema", db=db)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
audit.errors.PermissionDeniedError: 'Pema' has no enabled
account and may not do this: setting which items enter the queue
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import duckdb
import pandas as pd

from audit._util.clock import utc_now
from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts import require_role
from audit.accounts.roles import effective_role
from audit.accounts.table import account_from
from audit.errors import InputError
from audit.store import DbPath, connect, transaction
from audit.store.settings import read_setting, write_setting

ENTRY_SETTING = "queue_entry"
ASSIGNMENT_COLUMNS = ["benchmark", "reviewer", "subject", "question_id", "assigned_by", "assigned_at"]


@dataclass(frozen=True)
class QueueEntry:
    """Which items enter the queue (None: no condition of that kind)."""

    tiers: tuple[int, ...] | None = None
    min_key_error: float | None = None
    subjects: tuple[str, ...] | None = None

    @property
    def is_set(self) -> bool:
        return self.tiers is not None or self.min_key_error is not None or self.subjects is not None


def queue_entry_from(con) -> QueueEntry:
    raw = read_setting(con, ENTRY_SETTING) if table_exists(con, "review_settings") else None
    if not raw:
        return QueueEntry()
    return QueueEntry(tuple(raw["tiers"]) if raw.get("tiers") is not None else None,
                      raw.get("min_key_error"),
                      tuple(raw["subjects"]) if raw.get("subjects") is not None else None)


def get_queue_entry(*, db: DbPath = None) -> QueueEntry:
    """The queue entry setting (empty :class:`QueueEntry`: every item)."""
    with connect(db, read_only=True) as con:
        return queue_entry_from(con)


def set_queue_entry(*, tiers: Iterable[int] | None = None, min_key_error: float | None = None,
                    subjects: Iterable[str] | None = None, actor: str | None = None,
                    db: DbPath = None) -> QueueEntry:
    """Set which items enter the queue (all three None: every item).  Tiers
    are 0–5; ``min_key_error`` a probability in [0, 1].  Needs an admin."""
    t = None if tiers is None else tuple(sorted({int(x) for x in tiers}))
    if t is not None and any(x < 0 or x > 5 for x in t):
        raise InputError("tiers are 0 to 5")
    k = None if min_key_error is None else float(min_key_error)
    if k is not None and (math.isnan(k) or not 0.0 <= k <= 1.0):
        raise InputError("the key-error threshold is a probability between 0 and 1")
    s = None if subjects is None else tuple(sorted({str(x) for x in subjects}))
    entry = QueueEntry(t, k, s)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "setting which items enter the queue")
        write_setting(con, ENTRY_SETTING, None if not entry.is_set else
                       {"tiers": list(t) if t is not None else None, "min_key_error": k,
                        "subjects": list(s) if s is not None else None})
    return entry


def entry_condition(con, params: dict) -> str:
    """SQL over the queue's item columns (``tier, key_error, subject``) for
    the entry setting and ``params['reviewer']``'s assignments, adding its
    parameters to ``params``; ``true`` when neither applies.  One small
    query when nothing is set."""
    who = params.get("reviewer")
    try:
        raw, n_mine = con.execute(
            "SELECT (SELECT value FROM review_settings WHERE name = ?), "
            "(SELECT count(*) FROM review_assignments WHERE benchmark = ? AND reviewer_key = ?)",
            [ENTRY_SETTING, params["benchmark"], (who or "").casefold()]).fetchall()[0]
    except duckdb.CatalogException:   # a file not yet migrated (opened read-only)
        return "true"
    parts = []
    if raw:
        entry = queue_entry_from(con)
        if entry.tiers is not None or entry.min_key_error is not None:
            alts = []
            if entry.tiers is not None:
                params["entry_tiers"] = list(entry.tiers)
                alts.append("list_contains($entry_tiers::INTEGER[], tier)")
            if entry.min_key_error is not None:
                params["entry_key_error"] = entry.min_key_error
                alts.append("coalesce(key_error >= $entry_key_error, false)")
            parts.append("(" + " OR ".join(alts) + ")")
        if entry.subjects is not None:
            params["entry_subjects"] = list(entry.subjects)
            parts.append("list_contains($entry_subjects::VARCHAR[], subject)")
    if who and n_mine and effective_role(con, who) not in ("lead", "admin"):
        rows = con.execute("SELECT subject, question_id FROM review_assignments WHERE benchmark = ? "
                           "AND reviewer_key = ?", [params["benchmark"], who.casefold()]).fetchall()
        params["mine_subjects"] = [r[0] for r in rows if r[0] is not None]
        params["mine_items"] = [r[1] for r in rows if r[1] is not None]
        parts.append("(list_contains($mine_subjects::VARCHAR[], subject) "
                     "OR list_contains($mine_items::VARCHAR[], question_id))")
    return " AND ".join(parts) if parts else "true"


def assign(benchmark: str, reviewer: str, *, subjects: Iterable[str] = (), question_ids: Iterable[str] = (),
           actor: str | None = None, db: DbPath = None) -> int:
    """Give ``reviewer`` (an account) these subjects and items of
    ``benchmark``; returns the number of new assignments.  Needs an admin."""
    subs = sorted({str(s) for s in subjects})
    items = sorted({str(q) for q in question_ids})
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "assigning items to reviewers")
        acc = account_from(con, reviewer)
        if acc is None:
            raise InputError(f"no account named '{clean_name(reviewer)}'")
        have = set(map(tuple, con.execute(
            "SELECT coalesce(subject, ''), coalesce(question_id, '') FROM review_assignments "
            "WHERE benchmark = ? AND reviewer_key = ?", [benchmark, acc.name.casefold()]).fetchall()))
        rows = [(s, None) for s in subs if (s, "") not in have] + [(None, q) for q in items if ("", q) not in have]
        now = utc_now()
        for s, q in rows:
            con.execute("INSERT INTO review_assignments VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [benchmark, acc.name.casefold(), acc.name, s, q, clean_name(actor) or None, now])
    return len(rows)


def unassign(benchmark: str, reviewer: str, *, actor: str | None = None, db: DbPath = None) -> int:
    """Remove every assignment of ``reviewer`` on ``benchmark`` (they see
    every item again); returns how many were removed.  Needs an admin."""
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "assigning items to reviewers")
        n = con.execute("SELECT count(*) FROM review_assignments WHERE benchmark = ? AND reviewer_key = ?",
                        [benchmark, clean_name(reviewer).casefold()]).fetchall()[0][0]
        con.execute("DELETE FROM review_assignments WHERE benchmark = ? AND reviewer_key = ?",
                    [benchmark, clean_name(reviewer).casefold()])
    return int(n)


def list_assignments(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """Assignments of ``benchmark``: columns ``benchmark, reviewer, subject,
    question_id, assigned_by, assigned_at`` (one of subject / question_id
    set per row), by reviewer."""
    with connect(db, read_only=True) as con:
        if not table_exists(con, "review_assignments"):
            return pd.DataFrame(columns=ASSIGNMENT_COLUMNS)
        return con.execute(f"SELECT {', '.join(ASSIGNMENT_COLUMNS)} FROM review_assignments WHERE benchmark = ? "
                           "ORDER BY reviewer_key, subject NULLS LAST, question_id", [benchmark]).df()


__all__ = [
    "ENTRY_SETTING", "ASSIGNMENT_COLUMNS", "QueueEntry", "queue_entry_from", "get_queue_entry", "set_queue_entry",
    "entry_condition", "assign", "unassign", "list_assignments",
]
