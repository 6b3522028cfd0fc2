"""Writing parsed questions and predictions into the store.  Callers wrap
these in one transaction so an import is all-or-nothing."""
from __future__ import annotations

import json

import pyarrow as pa

from audit.errors import InputError
from audit.names import validate_benchmark
from audit.records import Question

_OPTION_TYPE = pa.list_(pa.struct([("label", pa.string()), ("text", pa.string())]))


def item_flags(q: Question) -> list[str]:
    """Structural flags every importer records the same way."""
    flags = list(q.flags)
    labels = q.labels
    if "multi_answer" in flags:  # a set key "ABD": every label must be an option
        if not q.answer_key or any(ch not in labels for ch in q.answer_key):
            flags.append("key_not_in_options")
    elif q.answer_key is None or q.answer_key not in labels:
        flags.append("key_not_in_options")
    # Case matters: genotypes GG / gg / Gg are different options.
    texts = [" ".join(o.text.split()) for o in q.options]
    if len(set(texts)) < len(texts):
        flags.append("duplicate_options")
    if q.structure_suspect:
        flags.append("structure_suspect")
    return sorted(set(flags))


def ensure_benchmark(con, name: str, source: str, source_path: str | None = None) -> None:
    if not name or not str(name).strip():
        raise InputError("benchmark name must not be empty")
    validate_benchmark(name)
    con.execute(
        "INSERT INTO benchmarks (name, source, source_path) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
        [name, source, source_path],
    )


def store_questions(con, benchmark: str, source: str, questions: list[Question], *, source_path: str | None = None) -> int:
    """Insert (or replace, by question id) the given questions of a benchmark.

    Duplicate ids inside one import are an error: which copy is right cannot
    be guessed.  Returns the number of questions written.
    """
    seen: set[str] = set()
    for q in questions:
        if q.question_id in seen:
            raise InputError(f"duplicate question id '{q.question_id}'", path=source_path)
        seen.add(q.question_id)
    ensure_benchmark(con, benchmark, source, source_path)
    start = con.execute("SELECT coalesce(max(seq), -1) + 1 FROM questions WHERE benchmark = ?", [benchmark]).fetchall()[0][0]
    table = pa.table(
        {
            "benchmark": pa.array([benchmark] * len(questions), pa.string()),
            "question_id": pa.array([q.question_id for q in questions], pa.string()),
            "seq": pa.array(range(start, start + len(questions)), pa.int32()),
            "subject": pa.array([q.subject for q in questions], pa.string()),
            "language": pa.array([q.language for q in questions], pa.string()),
            "script": pa.array([q.script for q in questions], pa.string()),
            "stem": pa.array([q.stem for q in questions], pa.string()),
            "options": pa.array([[{"label": o.label, "text": o.text} for o in q.options] for q in questions], _OPTION_TYPE),
            "answer_key": pa.array([q.answer_key for q in questions], pa.string()),
            "explanation": pa.array([q.explanation for q in questions], pa.string()),
            "raw_text": pa.array([q.raw_text for q in questions], pa.string()),
            "source_record": pa.array(
                [json.dumps(q.source_record, ensure_ascii=False) if q.source_record is not None else None for q in questions],
                pa.string(),
            ),
            "structure_suspect": pa.array([bool(q.structure_suspect) for q in questions], pa.bool_()),
            "structure_reason": pa.array([q.structure_reason for q in questions], pa.string()),
            "flags": pa.array([item_flags(q) for q in questions], pa.list_(pa.string())),
        }
    )
    con.register("_incoming_questions", table)
    try:
        con.execute(
            "DELETE FROM questions WHERE benchmark = ? AND question_id IN (SELECT question_id FROM _incoming_questions)",
            [benchmark],
        )
        con.execute(
            "INSERT INTO questions (benchmark, question_id, seq, subject, language, script, stem, options, "
            "answer_key, explanation, raw_text, source_record, structure_suspect, structure_reason, flags) "
            "SELECT benchmark, question_id, seq, subject, language, script, stem, options, answer_key, "
            "explanation, raw_text, source_record::JSON, structure_suspect, structure_reason, flags "
            "FROM _incoming_questions"
        )
    finally:
        con.unregister("_incoming_questions")
    return len(questions)
