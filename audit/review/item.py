"""Everything the item page shows about one question, read in one
connection: the question in its script, the parallel counterpart, every
model's answer grouped by family with per-option counts, the current audit,
LLM-judge verdicts, and the review history — hidden from a reviewer until
they have saved their own verdict (double-blind review)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from audit._util.sql import table_columns
from audit._util.text import clean_name
from audit.accounts.leads import is_lead
from audit.accounts.roles import effective_role, may_adjudicate
from audit.analyze.inputs import CURRENT_AUDIT_SQL
from audit.errors import NotFoundError
from audit.i18n.option_labels import item_labels
from audit.review._common import run
from audit.review._status import DISPUTED, base_params, status_expr, summary_ctes
from audit.review.dispute import dispute_parties
from audit.review.record import REVIEW_COLUMNS, _to_review
from audit.review.reports import item_reports
from audit.review.settings import settings_from
from audit.store import DbPath, connect
from audit.store.records import Option, Question, Review


@dataclass(frozen=True)
class ModelAnswer:
    model: str
    family: str
    answer: str | None      # Latin label, None when no valid answer was extracted
    valid: bool
    response: str | None    # raw response text (may be long; show it on demand)
    run: str = "default"
    method: str = ""


@dataclass(frozen=True)
class FamilyAnswers:
    family: str
    answers: list[ModelAnswer]


@dataclass(frozen=True)
class OptionCount:
    label: str
    text: str
    n: int                  # models choosing this option
    is_key: bool
    is_top: bool            # the audit's top non-key answer


@dataclass(frozen=True)
class ParallelItem:
    source: str             # e.g. 'cmmlu'
    counterpart_id: str
    language: str | None
    stem: str
    options: list[Option]
    key: str | None
    key_match: bool | None   # None: the counterpart has no key


@dataclass(frozen=True)
class AuditInfo:
    tier: int | None
    bucket: str
    top_answer: str | None
    agreement_count: int
    agreeing_families: int
    n_models: int
    n_valid: int
    n_correct: int


@dataclass(frozen=True)
class JudgeVerdict:
    judge: str | None
    answer_key_correct: bool | None
    correct_answer: str | None
    explanation: str | None
    confidence: float | None


@dataclass
class ItemView:
    """One item as the workbench shows it.  ``history`` holds only what
    ``reviewer`` may see (see :func:`item_view`); ``n_hidden`` counts the
    rows withheld."""

    question: Question
    audit: AuditInfo | None
    parallel: ParallelItem | None
    parallels: list[ParallelItem]
    families: list[FamilyAnswers]
    option_counts: list[OptionCount]
    n_invalid: int
    judges: list[JudgeVerdict]
    history: list[Review]
    history_hidden: bool
    n_hidden: int
    status: str
    required: int
    n_verdicts: int
    reviewed_by_me: bool
    is_lead: bool
    can_adjudicate: bool
    leads: list[str] = field(default_factory=list)
    reviewer: str | None = None
    settled_verdict: str | None = None     # the settled verdict when status is 'done'
    settled_answer: str | None = None      # its corrected answer (key_wrong)
    adjudicated: bool = False
    reports: list = field(default_factory=list)   # readers' open and accepted error reports (ItemReport)
    shown_labels: dict[str, str] = field(default_factory=dict)   # stored label → the label the item shows
    evidence_hidden: bool = False          # evidence-blind review: only the question (audit.review.blind)
    answered_blind: bool = False           # the reviewer has answered the item blind
    blind_answer: str | None = None        # ... naming this option (None: no option, or no blind answer)

    @property
    def my_latest(self) -> Review | None:
        """The reviewer's own latest row (to prefill the form), if any."""
        return next((r for r in reversed(self.history) if r.reviewer == self.reviewer), None)


def _judges(con, benchmark: str, question_id: str) -> list[JudgeVerdict]:
    """Judge verdicts from ``judge_verdicts`` (owned by the judge stage),
    read defensively: a missing table or column gives empty values."""
    cols = table_columns(con, "judge_verdicts")   # empty when the table does not exist
    if "question_id" not in cols:
        return []
    wanted = ["judge", "answer_key_correct", "correct_answer", "explanation", "confidence"]
    select = ", ".join(f'"{c}"' if c in cols else f"NULL AS {c}" for c in wanted)
    where = "question_id = $question_id" + (" AND benchmark = $benchmark" if "benchmark" in cols else "")
    order = ", ".join(c for c in ("judge", "created_at") if c in cols) or "1"
    rows = run(con, f"SELECT {select} FROM judge_verdicts WHERE {where} ORDER BY {order}",
               {"benchmark": benchmark, "question_id": question_id}).fetchall()
    out = []
    for judge, ok, ans, expl, conf in rows:
        try:
            conf = None if conf is None else float(conf)
        except (TypeError, ValueError):
            conf = None
        out.append(JudgeVerdict(None if judge is None else str(judge), None if ok is None else bool(ok),
                                ans, expl, conf))
    return out


def item_view(benchmark: str, question_id: str, *, reviewer: str | None = None, db: DbPath = None) -> ItemView:
    """Read one item for the item page.

    Hiding rule (independent double review): ``history`` shows everyone's
    rows only once ``reviewer`` has saved a non-skip review of the item, or
    when the item is disputed and ``reviewer`` may adjudicate (a lead who
    gave no verdict on the item; anyone who gave none when neither accounts
    nor a lead list exist, see :mod:`audit.accounts`).  Otherwise it shows only the
    reviewer's own rows and ``history_hidden`` is True.  With
    ``reviewer=None`` all other reviewers' rows are hidden.

    A known-answer item (:mod:`audit.review.gold`) reads, for a reviewer
    who is neither a lead nor an admin, as if their own rows were its only
    ones (status, counts, history), so it looks like any other item.
    ``reports``: readers' open and accepted error reports on the item.

    Raises :class:`~audit.errors.NotFoundError` for an unknown item.
    """
    me = clean_name(reviewer) or None
    with connect(db, read_only=True) as con:
        leads, req = settings_from(con)
        params = {**base_params(con, benchmark, me), "question_id": question_id}
        q = run(con, """
            SELECT question_id, stem, options, answer_key, subject, language, script, explanation, raw_text,
                   source_record, structure_suspect, structure_reason, flags, context, option_scripts
            FROM questions WHERE benchmark = $benchmark AND question_id = $question_id""", params).fetchall()
        if not q:
            raise NotFoundError(f"unknown question '{question_id}' in benchmark '{benchmark}'")
        (qid, stem, options, key, subject, language, script, explanation, raw_text,
         source_record, suspect, reason, flags, context, option_scripts) = q[0]
        question = Question(
            benchmark=benchmark, question_id=qid, stem=stem,
            options=[Option(o["label"], o["text"]) for o in options], answer_key=key, subject=subject,
            language=language, script=script, explanation=explanation, raw_text=raw_text,
            source_record=json.loads(source_record) if isinstance(source_record, str) else source_record,
            structure_suspect=bool(suspect), structure_reason=reason, flags=list(flags or []),
            context=context, option_scripts=list(option_scripts) if option_scripts else None,
        )
        a = run(con, """
            SELECT tier, bucket, top_answer, agreement_count, agreeing_families, n_models, n_valid, n_correct
            FROM (""" + CURRENT_AUDIT_SQL + """)
            WHERE question_id = $question_id""", params).fetchall()
        audit = AuditInfo(*a[0]) if a else None
        par = run(con, """
            SELECT counterpart_source, counterpart_id, counterpart_language, counterpart_stem, counterpart_options,
                   counterpart_key, key_match
            FROM parallel_links WHERE benchmark = $benchmark AND question_id = $question_id
            ORDER BY counterpart_source""", params).fetchall()
        parallels = [ParallelItem(s, cid, lang, st, [Option(o["label"], o["text"]) for o in opts], k, bool(m))
                     for s, cid, lang, st, opts, k, m in par]
        preds = run(con, """
            SELECT p.model, coalesce(m.family, p.model) AS family, p.answer, p.valid, p.response, p.run, p.method
            FROM all_predictions p LEFT JOIN models m ON m.name = p.model
            WHERE p.benchmark = $benchmark AND p.question_id = $question_id
            ORDER BY family, p.model, p.run""", params).fetchall()
        judges = _judges(con, benchmark, question_id)
        reports = item_reports(con, benchmark, question_id)
        my_role = effective_role(con, me) if me else None
        may_adj = bool(me) and may_adjudicate(con, me)
        summ = run(con, f"""
            WITH {summary_ctes(one_item=True, full=True, params=params)}
            SELECT s.n_verdicts, s.reviewed_by_me, {status_expr('s', '$tier')} AS status,
                   s.verdict, s.corrected_answer, s.adjudicated
            FROM review_summary s""", {**params, "tier": audit.tier if audit else None}).fetchall()
        hist = run(con, f"SELECT {', '.join(REVIEW_COLUMNS)} FROM reviews "
                        "WHERE benchmark = $benchmark AND question_id = $question_id ORDER BY review_id",
                   params).fetchall()
        if params["mask_gold"] and run(con, "SELECT count(*) FROM gold_items WHERE benchmark = $benchmark "
                                            "AND question_id = $question_id", params).fetchall()[0][0]:
            # a known-answer item reads, for a reviewer, as if their own rows were its only ones
            hist = [r for r in hist if r[REVIEW_COLUMNS.index("reviewer")] == me]

    families: dict[str, list[ModelAnswer]] = {}
    counts = {o.label: 0 for o in question.options}
    n_invalid = 0
    for model, family, answer, valid, response, run_name, method in preds:
        families.setdefault(family, []).append(
            ModelAnswer(model, family, answer, bool(valid), response, run_name, method)
        )
        if valid and answer in counts:
            counts[answer] += 1
        else:
            n_invalid += 1
    top = audit.top_answer if audit else None
    option_counts = [OptionCount(o.label, o.text, counts[o.label], o.label == key, o.label == top)
                     for o in question.options]

    n_verdicts, reviewed_by_me, status, s_verdict, s_answer, adjudicated = (
        summ[0] if summ else (0, False, "unreviewed", None, None, False))
    lead = bool(me) and (is_lead(me, leads) or my_role in ("lead", "admin"))
    rows = [_to_review(dict(zip(REVIEW_COLUMNS, r))) for r in hist]
    # A party to the dispute never settles it; a lead who joined it later still may.
    parties = dispute_parties((r.review_id, r.reviewer, r.verdict, r.corrected_answer, r.is_adjudication)
                              for r in rows)
    can_adjudicate = may_adj and (me or "").casefold() not in parties
    reveal = bool(reviewed_by_me) or (status == DISPUTED and can_adjudicate)
    visible = rows if reveal else [r for r in rows if me is not None and r.reviewer == me]
    view = ItemView(
        question=question, audit=audit, parallel=parallels[0] if parallels else None, parallels=parallels,
        families=[FamilyAnswers(f, ms) for f, ms in families.items()], option_counts=option_counts,
        n_invalid=n_invalid, judges=judges, history=visible, history_hidden=not reveal,
        n_hidden=len(rows) - len(visible), status=status, required=req.for_tier(audit.tier if audit else None),
        n_verdicts=int(n_verdicts or 0), reviewed_by_me=bool(reviewed_by_me), is_lead=lead,
        can_adjudicate=can_adjudicate, leads=leads, reviewer=me,
        settled_verdict=s_verdict if status == "done" else None,
        settled_answer=s_answer if status == "done" else None, adjudicated=bool(adjudicated), reports=reports,
        shown_labels=item_labels(raw_text, [o.label for o in question.options]),
    )
    return view


__all__ = [
    "ModelAnswer", "FamilyAnswers", "OptionCount", "ParallelItem", "AuditInfo", "JudgeVerdict", "ItemView",
    "item_view",
]
