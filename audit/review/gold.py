"""Known-answer items: items whose answer a lead knows (settled by
adjudication or agreement, or imported from a reference), mixed into the
reviewers' flow to measure how often each reviewer is right.

* Marking one is a lead's act (:func:`add_gold`, :func:`gold_from_settled`;
  ``audit review gold --add Q --answer X`` / ``--from-settled``); the
  share of them in each reviewer's flow is an admin's setting
  (:func:`set_gold_rate`, ``--rate R``; default 0.1).
* A reviewer's verdict on a known-answer item after it was marked is an
  answer: it counts for their reliability (:mod:`audit.review.reliability`)
  and never settles, disputes or changes the item (the settlement rule of
  :func:`audit.review.review_status` leaves it out), so a known-answer item
  keeps the key it had.
* Nothing tells a reviewer which items they are: the item page, the queue
  and Label Studio show them as ordinary items; to a reviewer the item's
  status is what their own verdicts make it (:func:`audit.review.item_view`).
  They come in the queue's own order, so choose them among the items the
  campaign reviews (the same tiers and subjects), or a Tier 5 item in a
  Tier 1–2 queue would stand out.

>>> import tempfile, os
>>> from audit.store.records import Question, Option
>>> from audit.ingest.storing import store_questions
>>> from audit.store import connect
>>> db = os.path.join(tempfile.mkdtemp(), "g.duckdb")
>>> with connect(db) as con:
...     _ = store_questions(con, "demo", "demo", [Question("demo", "q1", "2+2?",
...         [Option("A", "3"), Option("B", "4")], "A")])
>>> add_gold("demo", "q1", "b", db=db)
GoldItem(benchmark='demo', question_id='q1', answer='B', origin='reference')
>>> list_gold("demo", db=db)[["question_id", "answer", "origin", "n_answers"]].values.tolist()
[['q1', 'B', 'reference', 0]]
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from audit._util.clock import utc_now
from audit._util.files import nfc
from audit._util.text import clean_name
from audit.accounts import require_role
from audit.errors import InputError, NotFoundError
from audit.options import normalize_label
from audit.review._status import settled_verdicts
from audit.review.trust import GOLD_RECORD_CTES, get_trust, set_trust
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import resolves_benchmark
from audit.vocab import GOLD_ORIGINS

GOLD_COLUMNS = ["question_id", "answer", "origin", "added_by", "added_at", "n_answers", "n_right"]


@dataclass(frozen=True)
class GoldItem:
    benchmark: str
    question_id: str
    answer: str
    origin: str


def _mark(con, benchmark: str, question_id: str, answer: str, origin: str, actor: str | None) -> GoldItem:
    """Mark one item on the caller's connection (checked: the item exists,
    ``answer`` is one of its options)."""
    qid = nfc(str(question_id).strip())
    row = con.execute("SELECT list_transform(options, lambda o: o.label) FROM questions "
                      "WHERE benchmark = ? AND question_id = ?", [benchmark, qid]).fetchall()
    if not row:
        raise NotFoundError(f"unknown question '{qid}' in benchmark '{benchmark}'")
    labels = row[0][0]
    label = normalize_label(str(answer)) if answer is not None else None
    if label is None or label not in labels:
        raise InputError(f"known answer '{answer}' is not one of the options ({', '.join(labels)}) of '{qid}'")
    if origin not in GOLD_ORIGINS:
        raise InputError(f"unknown origin '{origin}' (use one of: {', '.join(GOLD_ORIGINS)})")
    last = con.execute("SELECT coalesce(max(review_id), 0) FROM reviews").fetchall()[0][0]
    # Marked again: the answer changes, the period since the first marking stays.
    con.execute(
        "INSERT INTO gold_items (benchmark, question_id, answer, origin, after_review_id, added_by, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (benchmark, question_id) DO UPDATE SET answer = excluded.answer, "
        "origin = excluded.origin, added_by = excluded.added_by, added_at = excluded.added_at",
        [benchmark, qid, label, origin, int(last), clean_name(actor) or None, utc_now()])
    return GoldItem(benchmark, qid, label, origin)


@resolves_benchmark
def add_gold(benchmark: str | None, question_id: str, answer: str, *, actor: str | None = None, db: DbPath = None,
             origin: str = "reference") -> GoldItem:
    """Mark ``question_id`` a known-answer item whose answer is ``answer``
    (an option label, Latin or Tibetan).  A lead's act once the database has
    accounts or a lead list.  Marking it again changes its answer."""
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "marking known-answer items")
        return _mark(con, benchmark, question_id, answer, origin, actor)


@resolves_benchmark
def gold_from_settled(benchmark: str | None, *, actor: str | None = None, db: DbPath = None) -> int:
    """Mark every settled item whose settled verdict names an answer (key
    correct: the key; key wrong: the corrected answer) that is not one yet;
    returns how many were marked.  A lead's act."""
    settled = settled_verdicts(benchmark, db=db)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "marking known-answer items")
        have = {q for (q,) in con.execute("SELECT question_id FROM gold_items WHERE benchmark = ?",
                                          [benchmark]).fetchall()}
        n = 0
        for r in settled.itertuples():
            if r.question_id in have or r.verdict not in ("key_correct", "key_wrong"):
                continue
            answer = r.corrected_answer if r.verdict == "key_wrong" else r.answer_key
            _mark(con, benchmark, r.question_id, answer, "settled", actor)
            n += 1
    return n


@resolves_benchmark
def list_gold(benchmark: str | None, *, db: DbPath = None) -> pd.DataFrame:
    """The known-answer items of ``benchmark`` (for a lead): columns
    :data:`GOLD_COLUMNS` — ``n_answers`` reviewers answered it since it was
    marked, ``n_right`` of them rightly."""
    with connect(db, read_only=True) as con:
        return con.execute(f"""
            WITH {GOLD_RECORD_CTES}
            SELECT g.question_id, g.answer, g.origin, g.added_by, g.added_at,
                   count(a.reviewer) AS n_answers, count(a.reviewer) FILTER (WHERE a.is_right) AS n_right
            FROM gold_items g LEFT JOIN gold_answers a USING (question_id)
            JOIN questions q ON q.benchmark = g.benchmark AND q.question_id = g.question_id
            WHERE g.benchmark = $benchmark
            GROUP BY ALL ORDER BY min(q.seq), g.question_id""",
                           {"benchmark": benchmark}).df()[GOLD_COLUMNS]


def get_gold_rate(*, db: DbPath = None) -> float:
    """The share of known-answer items in each reviewer's flow."""
    return get_trust(db=db).gold_rate


def set_gold_rate(rate: float, *, actor: str | None = None, db: DbPath = None) -> float:
    """Set the share of known-answer items in each reviewer's flow (0 to 1;
    0: none).  An admin's act."""
    try:
        r = float(rate)
    except (TypeError, ValueError):
        raise InputError(f"the rate of known-answer items is a share between 0 and 1, not {rate!r}") from None
    if math.isnan(r) or not 0.0 <= r <= 1.0:
        raise InputError(f"the rate of known-answer items is a share between 0 and 1, not {rate!r}")
    return set_trust(gold_rate=r, actor=actor, db=db).gold_rate


__all__ = ["GOLD_COLUMNS", "GoldItem", "add_gold", "gold_from_settled", "list_gold", "get_gold_rate",
           "set_gold_rate"]
