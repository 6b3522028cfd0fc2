"""Evidence-blind review: the reviewer answers the question before seeing
any evidence, then records the verdict with the evidence in view.

Evidence shown first steers the answer (anchoring; annotation tools offer a
blind first pass for this reason, e.g. Label Studio without
pre-annotations, inspect-ai's human baseline).  When an admin turns the
campaign setting on (:func:`set_blind_review`, review setting
``blind_review``):

1. :func:`item_for_review` — what the item page, and any other client,
   reads — withholds every piece of evidence from a reviewer who has not
   answered the item blind: the key, the models' votes and answers, the
   audit (tier, score), the judges, the parallel source, the item's own
   explanation and raw record, the other reviewers' verdicts and the
   settled outcome.  Only the question and its options remain.  The
   library enforces this, not only the page.
2. The reviewer records a **blind answer** (:func:`record_blind_answer`):
   one option, or none ("I cannot tell").  It is stored append-only, one
   per reviewer and item; a second one, or one after the reviewer's own
   verdict, would no longer be blind and is refused.
3. The evidence appears and the reviewer records the verdict as usual
   (:func:`audit.review.add_review`).

:func:`blind_agreement` then measures, per reviewer, how often the blind
answer matches the settled key, and how often the verdict differs from the
blind answer (the evidence changed the reviewer's mind):

* the settled key of an item settled ``key_correct`` is its key, of one
  settled ``key_wrong`` the corrected answer; items settled ``ambiguous``
  or ``defective`` have none and are left out of the agreement;
* a blind answer *implies* a verdict: the key → ``key_correct``, another
  option → ``key_wrong`` with that answer, none → no single answer (which
  ``ambiguous`` and ``defective`` both are).  The verdict *changed* when the
  reviewer's first verdict on the item (adjudications included) differs
  from the implied one.

Label Studio tasks follow the setting: pushed while it is on, they carry
the question alone (:func:`withhold_task_evidence`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from audit._util.files import nfc
from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts import require_role
from audit.accounts.table import account_from, has_accounts
from audit.errors import InputError, NotFoundError, PermissionDeniedError
from audit.options import normalize_label
from audit.review._status import settled_verdicts
from audit.review.guidelines import current_version
from audit.review.item import ItemView, OptionCount, item_view
from audit.store import DbPath, connect, transaction
from audit.store.settings import read_setting, write_setting
from audit.vocab import REVIEW_SOURCES

__all__ = [
    "BLIND_SETTING", "BlindAnswer", "blind_review_from", "blind_review_enabled", "set_blind_review",
    "record_blind_answer", "get_blind_answer", "needs_blind_answer", "withhold_evidence", "item_for_review",
    "withhold_task_evidence", "BLIND_COLUMNS", "blind_agreement",
]

BLIND_SETTING = "blind_review"
#: Flags that speak about the key (withheld with it).
_KEY_FLAGS = ("key_not_in_options", "multiple_correct_references")


@dataclass(frozen=True)
class BlindAnswer:
    """A reviewer's answer to an item given before any evidence was shown."""

    benchmark: str
    question_id: str
    reviewer: str
    answer: str | None          # a Latin label; None: the reviewer could not name one option
    created_at: datetime
    guideline_version: int | None = None


def blind_review_from(con) -> bool:
    """Whether the campaign is evidence-blind (on connection ``con``)."""
    return bool(read_setting(con, BLIND_SETTING))


def blind_review_enabled(*, db: DbPath = None) -> bool:
    """Whether the campaign is evidence-blind."""
    with connect(db, read_only=True) as con:
        return blind_review_from(con)


def set_blind_review(on: bool, *, actor: str | None = None, db: DbPath = None) -> bool:
    """Turn evidence-blind review on or off; an admin's act once the
    database has accounts.  Returns the setting."""
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing evidence-blind review")
        write_setting(con, BLIND_SETTING, bool(on))
    return bool(on)


def _answer_row(con, benchmark: str, question_id: str, reviewer: str) -> BlindAnswer | None:
    if not table_exists(con, "blind_answers"):
        return None
    rows = con.execute(
        "SELECT benchmark, question_id, reviewer, answer, created_at, guideline_version FROM blind_answers "
        "WHERE benchmark = ? AND question_id = ? AND lower(reviewer) = lower(?) ORDER BY blind_id LIMIT 1",
        [benchmark, question_id, reviewer]).fetchall()
    return BlindAnswer(*rows[0]) if rows else None


def get_blind_answer(benchmark: str, question_id: str, reviewer: str, *, db: DbPath = None) -> BlindAnswer | None:
    """The blind answer ``reviewer`` gave on the item, or None."""
    with connect(db, read_only=True) as con:
        return _answer_row(con, benchmark, nfc(str(question_id).strip()), clean_name(reviewer))


def _has_verdict(con, benchmark: str, question_id: str, reviewer: str) -> bool:
    return bool(con.execute(
        "SELECT count(*) FROM reviews WHERE benchmark = ? AND question_id = ? AND lower(reviewer) = lower(?) "
        "AND verdict <> 'skip'", [benchmark, question_id, reviewer]).fetchall()[0][0])


def needs_blind_answer(con, benchmark: str, question_id: str, reviewer: str | None) -> bool:
    """Whether evidence must be withheld from ``reviewer`` on the item: the
    campaign is blind and the reviewer has neither a blind answer nor a
    verdict of their own on it (nobody signed in: always, in a blind campaign)."""
    if not blind_review_from(con):
        return False
    who = clean_name(reviewer) if reviewer else ""
    if not who:
        return True
    return _answer_row(con, benchmark, question_id, who) is None and not _has_verdict(con, benchmark, question_id, who)


def record_blind_answer(benchmark: str, question_id: str, reviewer: str, answer: str | None, *,
                        source: str = "workbench", actor: str | None = None, db: DbPath = None) -> BlindAnswer:
    """Store ``reviewer``'s blind answer on the item: a label (Latin or
    Tibetan) of one of its options, or None / ``""`` when they cannot name
    one.  Refused when the reviewer already answered it blind or already
    gave a verdict on it (either way they have seen the evidence); once the
    database has accounts the reviewer must be an enabled account, and an
    ``actor`` other than the reviewer a lead or admin.

    >>> import tempfile, os
    >>> from audit.store.records import Question, Option
    >>> from audit.ingest.storing import store_questions
    >>> db = os.path.join(tempfile.mkdtemp(), "b.duckdb")
    >>> with connect(db) as con:
    ...     _ = store_questions(con, "demo", "demo", [Question("demo", "q1", "2+2?",
    ...         [Option("A", "3"), Option("B", "4")], "A")])
    >>> record_blind_answer("demo", "q1", "Pema", "b", db=db).answer
    'B'
    >>> record_blind_answer("demo", "q1", "Pema", "A", db=db)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: 'Pema' already answered question 'q1' blind; a second answer would not be blind
    """
    qid = nfc(str(question_id or "").strip())
    who = clean_name(reviewer)
    if not who:
        raise InputError("a blind answer needs the reviewer's name")
    if source not in REVIEW_SOURCES:
        raise InputError(f"unknown source '{source}' (one of: {', '.join(REVIEW_SOURCES)})")
    with connect(db) as con, transaction(con):
        item = con.execute("SELECT list_transform(options, lambda o: o.label) FROM questions "
                           "WHERE benchmark = ? AND question_id = ?", [benchmark, qid]).fetchall()
        if not item:
            raise NotFoundError(f"unknown question '{qid}' in benchmark '{benchmark}'")
        labels = item[0][0]
        label = None
        if answer is not None and str(answer).strip():
            label = normalize_label(str(answer))
            if label is None or label not in labels:
                raise InputError(f"blind answer '{answer}' is not one of the item's options ({', '.join(labels)})")
        if has_accounts(con):
            acc = account_from(con, who)
            if acc is None or acc.disabled:
                raise PermissionDeniedError(f"'{who}' has no enabled account and may not record answers")
            who = acc.name
            if actor is not None and clean_name(actor).casefold() != who.casefold():
                require_role(con, actor, "lead", "recording another reviewer's blind answer")
        if _answer_row(con, benchmark, qid, who) is not None:
            raise InputError(f"'{who}' already answered question '{qid}' blind; a second answer would not be blind")
        if _has_verdict(con, benchmark, qid, who):
            raise InputError(f"'{who}' already gave a verdict on question '{qid}', so an answer now would not be blind")
        now = con.execute("SELECT timezone('UTC', now())::TIMESTAMP").fetchall()[0][0]
        version = current_version(con)
        con.execute(
            "INSERT INTO blind_answers (benchmark, question_id, reviewer, answer, created_at, source, "
            "guideline_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [benchmark, qid, who, label, now, source, version],
        )
    return BlindAnswer(benchmark, qid, who, label, now, version)


def withhold_evidence(view: ItemView) -> ItemView:
    """``view`` with everything but the question and its options taken out
    (see the module); ``evidence_hidden`` is True."""
    q = view.question
    question = dataclasses.replace(q, answer_key=None, explanation=None, raw_text=None, source_record=None,
                                   flags=[f for f in q.flags if f not in _KEY_FLAGS])
    mine = [r for r in view.history if view.reviewer and r.reviewer.casefold() == view.reviewer.casefold()]
    return dataclasses.replace(
        view, question=question, audit=None, parallel=None, parallels=[], families=[],
        option_counts=[OptionCount(o.label, o.text, 0, False, False) for o in q.options], n_invalid=0,
        judges=[], history=mine, history_hidden=True, n_hidden=view.n_hidden + len(view.history) - len(mine),
        settled_verdict=None, settled_answer=None, adjudicated=False, evidence_hidden=True)


def item_for_review(benchmark: str, question_id: str, *, reviewer: str | None = None, db: DbPath = None) -> ItemView:
    """The item as ``reviewer`` may see it now: :func:`audit.review.item_view`,
    with the evidence withheld (:func:`withhold_evidence`) while the
    campaign is evidence-blind and the reviewer has not answered the item
    blind (nor given a verdict on it).  In an evidence-blind campaign,
    ``blind_answer`` holds the reviewer's blind answer once there is one."""
    qid = nfc(str(question_id).strip())
    with connect(db, read_only=True) as con:
        if not blind_review_from(con):      # the usual case: one settings read, then the item as it is
            hide, mine = False, None
        else:
            who = clean_name(reviewer) if reviewer else ""
            mine = _answer_row(con, benchmark, qid, who) if who else None
            hide = mine is None and not (who and _has_verdict(con, benchmark, qid, who))
    view = item_view(benchmark, qid, reviewer=reviewer, db=db)
    if hide:
        return withhold_evidence(view)
    if mine is None:
        return view
    return dataclasses.replace(view, blind_answer=mine.answer, answered_blind=True)


#: The task fields that carry evidence (the key, tier, votes, parallel source, the item page's reasons).
_TASK_EVIDENCE = ("answer_key", "tier", "families", "parallels", "evidence", "evidence_heading")


def withhold_task_evidence(item: dict) -> dict:
    """A Label Studio task's item (:func:`audit.sync` task data before it is
    rendered) with the evidence taken out, for an evidence-blind campaign.

    >>> withhold_task_evidence({"stem": "?", "answer_key": "B", "tier": 1, "families": []})
    {'stem': '?', 'answer_key': None, 'tier': None, 'families': None, 'evidence_withheld': True}
    """
    return {**{k: (None if k in _TASK_EVIDENCE else v) for k, v in item.items()}, "evidence_withheld": True}


BLIND_COLUMNS = ["reviewer", "n_blind", "n_unsure", "n_settled", "n_agree", "agreement", "n_verdicts", "n_changed",
                 "changed"]


def _implied(answer, key) -> str:
    if answer is None or answer != answer:
        return "none"
    return "key_correct" if answer == key else f"key_wrong:{answer}"


def _actual(verdict, corrected) -> str:
    if verdict in ("ambiguous", "defective"):
        return "none"
    return "key_correct" if verdict == "key_correct" else f"key_wrong:{corrected}"


def blind_agreement(benchmark: str, *, db: DbPath = None) -> pd.DataFrame:
    """Per reviewer with blind answers on ``benchmark`` (see the module):
    ``n_blind`` answers, ``n_unsure`` of them naming no option;
    ``n_settled`` naming an option on an item settled with a key, ``n_agree``
    of them equal to the settled key, ``agreement`` = n_agree / n_settled;
    ``n_verdicts`` blind answers followed by a verdict of the same reviewer,
    ``n_changed`` of those verdicts differing from the blind answer,
    ``changed`` = n_changed / n_verdicts (shares NaN when the count is 0).
    Columns :data:`BLIND_COLUMNS`, by reviewer."""
    with connect(db, read_only=True) as con:
        if not table_exists(con, "blind_answers"):
            return pd.DataFrame(columns=BLIND_COLUMNS)
        blind = con.execute("""
            SELECT b.question_id, b.reviewer, b.answer, q.answer_key
            FROM blind_answers b JOIN questions q USING (benchmark, question_id)
            WHERE b.benchmark = ?
            QUALIFY row_number() OVER (PARTITION BY b.question_id, lower(b.reviewer) ORDER BY b.blind_id) = 1""",
                            [benchmark]).df()
        first = con.execute("""
            SELECT question_id, lower(reviewer) AS who, verdict, corrected_answer
            FROM reviews WHERE benchmark = ? AND verdict <> 'skip'
            QUALIFY row_number() OVER (PARTITION BY question_id, lower(reviewer) ORDER BY review_id) = 1""",
                            [benchmark]).df()
    if blind.empty:
        return pd.DataFrame(columns=BLIND_COLUMNS)
    settled = settled_verdicts(benchmark, db=db)
    settled = settled[settled["verdict"].isin(["key_correct", "key_wrong"])]
    keys = dict(
        zip(
            settled["question_id"],
            [
                a if v == "key_wrong" else k
                for v, a, k in zip(settled["verdict"], settled["corrected_answer"], settled["answer_key"])
            ],
        )
    )
    blind["who"] = blind["reviewer"].str.lower()
    df = blind.merge(first, on=["question_id", "who"], how="left")
    named = df["answer"].notna()
    df["settled_key"] = df["question_id"].map(keys)
    df["in_settled"] = named & df["settled_key"].notna()
    df["agree"] = df["in_settled"] & (df["answer"] == df["settled_key"])
    df["has_verdict"] = df["verdict"].notna()
    df["changed"] = [bool(h) and _implied(a, k) != _actual(v, c) for h, a, k, v, c in
                     zip(df["has_verdict"], df["answer"], df["answer_key"], df["verdict"], df["corrected_answer"])]
    out = df.groupby("reviewer", sort=True).agg(
        n_blind=("question_id", "size"), n_unsure=("answer", lambda s: int(s.isna().sum())),
        n_settled=("in_settled", "sum"), n_agree=("agree", "sum"), n_verdicts=("has_verdict", "sum"),
        n_changed=("changed", "sum")).reset_index()
    for c in ("n_blind", "n_unsure", "n_settled", "n_agree", "n_verdicts", "n_changed"):
        out[c] = out[c].astype("int64")
    out["agreement"] = (out["n_agree"] / out["n_settled"]).where(out["n_settled"] > 0)
    out["changed"] = (out["n_changed"] / out["n_verdicts"]).where(out["n_verdicts"] > 0)
    return out[BLIND_COLUMNS]
