"""Shared pieces of the evaluation-harness importers (lm-eval, inspect-ai).

A harness log holds, per sample, the document (question, options, target)
and the model's output.  :func:`build_question` turns a logged document into
a :class:`~audit.store.records.Question` (used when the benchmark has no questions
yet); :func:`write_harness` stores questions (when needed) and predictions
in one transaction through the same writers as every other importer.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from audit._util.files import nfc
from audit._util.sql import unregister
from audit.errors import InputError
from audit.ingest._predictions import store_predictions
from audit.ingest.multi_answer import MULTI_FLAG, parse_key
from audit.ingest.storing import item_flags, store_questions
from audit.options import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS, normalize_label
from audit.scripts import script_of
from audit.store.records import Option, Question

STEM_FIELDS = ("question", "query", "input", "problem", "prompt", "text", "sentence", "ctx", "stem")
OPTION_FIELDS = ("choices", "options", "option", "endings", "answers")
ID_FIELDS = ("id", "question_id", "qid", "loc", "idx", "uid")


@dataclass
class HarnessImportSummary:
    """What a harness import wrote (all or nothing)."""

    source: str                      # 'lm-eval' | 'inspect'
    benchmark: str
    files: int
    model: str
    questions_created: int
    predictions: int
    valid: int
    tasks: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        q = (f"{self.questions_created} questions from the logged documents, " if self.questions_created
             else "")
        return (f"{self.source}: {self.files} log file(s) of task(s) {', '.join(self.tasks)} → '{self.benchmark}': "
                f"{q}{self.predictions:,} predictions of model '{self.model}' ({self.valid:,} valid)")


def key_label(target: object, texts: list[str]) -> tuple[str | None, bool]:
    """A logged target (index, letter, set of letters, or option text) →
    (stored key, is a set).

    >>> key_label("1", ["a", "b"]), key_label("B", ["a", "b"]), key_label(["A", "C"], ["x", "y", "z"])
    (('B', False), ('B', False), ('AC', True))
    >>> key_label("y", ["x", "y"]), key_label(0, ["x", "y"])
    (('B', False), ('A', False))
    """
    n = len(texts)
    if isinstance(target, list) and len(target) == 1:
        target = target[0]
    key, is_set = parse_key(target, n)
    if is_set:
        return key, True
    if isinstance(target, bool):
        return str(target), False
    if isinstance(target, int):
        return (LATIN_LABELS[target], False) if 0 <= target < n else (str(target), False)
    if target is None:
        return None, False
    s = str(nfc(str(target))).strip()
    if s.isdigit() and s.isascii() and int(s) < n:
        return LATIN_LABELS[int(s)], False
    lab = normalize_label(s)
    if lab is not None and len(s.strip()) == 1:
        return lab, False
    stripped = [str(nfc(t)).strip() for t in texts]
    if s in stripped:
        return LATIN_LABELS[stripped.index(s)], False
    return s, False


def build_question(benchmark: str, qid: str, stem: str, texts: list[str], target: object, *,
                   subject: str | None, source_record: dict, where: str, line: int | None) -> Question:
    """A Question from a logged document; errors name the log file and line."""
    if not stem or not stem.strip():
        raise InputError(f"sample '{qid}' has no question text", path=where, line=line)
    if not MIN_OPTIONS <= len(texts) <= MAX_OPTIONS:
        raise InputError(f"sample '{qid}' has {len(texts)} options; an item has {MIN_OPTIONS}–{MAX_OPTIONS}",
                         path=where, line=line)
    key, is_set = key_label(target, texts)
    options = [Option(LATIN_LABELS[i], str(nfc(str(t))).strip()) for i, t in enumerate(texts)]
    q = Question(benchmark=benchmark, question_id=qid, stem=str(nfc(stem)).strip(), options=options, answer_key=key,
                 subject=subject, script=script_of(stem + " " + " ".join(map(str, texts))), raw_text=stem,
                 source_record=source_record)
    if is_set:
        q.flags.append(MULTI_FLAG)
    return q


def write_harness(con, *, benchmark: str, source: str, where: str, questions: list[Question],
                  pred: dict[str, list], method: str, progress: bool | None) -> tuple[int, int, int]:
    """Inside the caller's transaction: store ``questions`` (when given) and
    the predictions ``pred`` (question_id, model, run, response, given,
    letter, method, _line).  Returns (questions written, predictions, valid)."""
    n_q = store_questions(con, benchmark, source, questions, source_path=where) if questions else 0
    table = pa.table({
        "question_id": pa.array(pred["question_id"], pa.string()),
        "model": pa.array(pred["model"], pa.string()),
        "run": pa.array(pred["run"], pa.string()),
        "response": pa.array(pred["response"], pa.string()),
        "given": pa.array(pred["given"], pa.string()),
        "_line": pa.array(pred["_line"], pa.int64()),
    })
    con.register("_harness_arrow", table)
    try:
        con.execute("CREATE OR REPLACE TEMP VIEW _harness_src AS SELECT * FROM _harness_arrow")
        s = store_predictions(con, benchmark, "_harness_src", where, method=method, layout="long",
                              progress=progress)
    finally:
        unregister(con, "_harness_arrow")
    return n_q, s.predictions, s.valid


def item_summary_flags(questions: list[Question]) -> list[list[str]]:
    return [item_flags(q) for q in questions]


__all__ = ["HarnessImportSummary", "key_label", "build_question", "write_harness", "STEM_FIELDS",
           "OPTION_FIELDS", "ID_FIELDS"]
