"""Writing parsed questions and predictions into the store.  Callers wrap
these in one transaction so an import is all-or-nothing."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

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
    table = questions_table(benchmark, questions, start)
    con.register("_incoming_questions", table)
    try:
        _replace_questions(con, benchmark, "_incoming_questions", 0)
    finally:
        con.unregister("_incoming_questions")
    return len(questions)


def questions_table(benchmark: str, questions: list[Question], start: int = 0) -> pa.Table:
    """Questions as an Arrow table with the columns of the ``questions``
    table (``seq`` counts from *start*; ``source_record`` as JSON text)."""
    return pa.table(
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


def _replace_questions(con, benchmark: str, relation: str, seq_offset: int) -> None:
    """Replace the benchmark's questions by those of *relation* (a table,
    view or table function with the columns of :func:`questions_table`):
    delete the ids it holds, then insert it with ``seq + seq_offset``."""
    con.execute(f"DELETE FROM questions WHERE benchmark = ? AND question_id IN (SELECT question_id FROM {relation})",
                [benchmark])
    con.execute(
        "INSERT INTO questions (benchmark, question_id, seq, subject, language, script, stem, options, "
        "answer_key, explanation, raw_text, source_record, structure_suspect, structure_reason, flags) "
        "SELECT benchmark, question_id, seq + ?, subject, language, script, stem, options, answer_key, "
        f"explanation, raw_text, source_record::JSON, structure_suspect, structure_reason, flags FROM {relation}",
        [seq_offset],
    )


class QuestionStage:
    """Parsed questions staged in a Parquet file outside the database, so a
    large import costs the database one bulk ``INSERT … SELECT`` (DuckDB
    writes the new rows to the file as it goes) instead of many small
    inserts held in memory until the commit; and the write lock is taken
    only after the whole file parsed cleanly.

    >>> import tempfile, pathlib
    >>> from audit.records import Option
    >>> from audit.store import connect, transaction
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with QuestionStage(d) as stage:
    ...     stage.add("toy", [Question("toy", "q1", "2+2?", [Option("A", "3"), Option("B", "4")], "B")])
    ...     with connect(d / "x.duckdb") as con, transaction(con):
    ...         stage.store(con, "toy", "questions")
    1
    >>> with connect(d / "x.duckdb", read_only=True) as con:
    ...     con.execute("SELECT question_id, seq, answer_key FROM questions").fetchall()
    [('q1', 0, 'B')]
    """

    def __init__(self, folder: str | os.PathLike | None = None):
        self._dir = tempfile.TemporaryDirectory(prefix="audit-import-", dir=folder)
        self.path = Path(self._dir.name) / "questions.parquet"
        self.rows = 0
        self._writer: pq.ParquetWriter | None = None

    def add(self, benchmark: str, questions: list[Question]) -> None:
        """Append questions (their ``seq`` continues from the last ones added)."""
        table = questions_table(benchmark, questions, self.rows)
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, table.schema)
        self._writer.write_table(table)
        self.rows += len(questions)

    def store(self, con, benchmark: str, source: str, *, source_path: str | None = None) -> int:
        """Write the staged questions into *benchmark* (replacing questions with
        the same id), inside the caller's transaction.  Returns the count."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        ensure_benchmark(con, benchmark, source, source_path)
        if not self.rows:
            return 0
        start = con.execute("SELECT coalesce(max(seq), -1) + 1 FROM questions WHERE benchmark = ?",
                            [benchmark]).fetchall()[0][0]
        lit = "'" + str(self.path).replace("'", "''") + "'"
        _replace_questions(con, benchmark, f"read_parquet({lit})", start)
        return self.rows

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._dir.cleanup()

    def __enter__(self) -> "QuestionStage":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
