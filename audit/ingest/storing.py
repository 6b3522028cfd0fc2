"""Writing parsed questions and predictions into the store.  Callers wrap
these in one transaction so an import is all-or-nothing."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from audit._util.files import duck_path
from audit._util.names import NameIndex, identifier_text, identity_name, validate_benchmark
from audit._util.sql import unregister
from audit.errors import InputError
from audit.store.records import Question

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


def store_questions(con, benchmark: str, source: str, questions: list[Question], *, source_path: str | None = None,
                    replace: bool = False) -> int:
    """Insert the given questions of a benchmark.  A question whose id is
    stored with the same content is left as it is; one whose content differs
    is an :class:`InputError` (nothing written) unless *replace*.

    Duplicate ids inside one import are an error: which copy is right cannot
    be guessed.  Returns the number of questions written (new or replaced).
    """
    seen: set[str] = set()
    for q in questions:
        if q.question_id in seen:
            raise InputError(f"duplicate question id '{q.question_id}'", path=source_path)
        seen.add(q.question_id)
    ensure_benchmark(con, benchmark, source, source_path)
    start = con.execute("SELECT coalesce(max(seq), -1) + 1 FROM questions WHERE benchmark = ?", [benchmark]).fetchall()[
        0
    ][0]
    table = questions_table(benchmark, questions, start)
    con.register("_incoming_questions", table)
    try:
        report = _replace_questions(con, benchmark, "_incoming_questions", 0, replace=replace,
                                    source_path=source_path)
    finally:
        unregister(con, "_incoming_questions")
    return report.written


def check_names(questions: list[Question]) -> None:
    """Item ids and subjects follow the identifier rule's character part
    (:func:`audit._util.names.identifier_text`): no control, format or
    invisible character, no line break — ``excluded.txt`` lists one id per
    line, so an id ``q1<newline>q2`` would name two other items.  Every
    importer's questions pass here before anything is staged or stored."""
    subjects: set[str] = set()
    for q in questions:
        identifier_text(q.question_id, kind="question id")
        if q.subject is not None:
            subjects.add(q.subject)
    for sub in subjects:
        identifier_text(sub, kind="subject")


def check_subject_lookalikes(con, benchmark: str, relation: str) -> None:
    """Refuse a subject of *relation* that prints like another subject of
    the benchmark (stored, or in the same import) without being it:
    ``histоry`` with a Cyrillic ``о`` beside ``history`` would split one
    subject's statistics in two.  Through a
    :class:`~audit._util.names.NameIndex`: linear in the subjects."""
    stored = [r[0] for r in con.execute("SELECT DISTINCT subject FROM questions WHERE benchmark = ? AND subject "
                                        "IS NOT NULL ORDER BY 1", [benchmark]).fetchall()]
    new = [r[0] for r in con.execute(f"SELECT DISTINCT subject FROM {relation} WHERE subject IS NOT NULL "
                                     "ORDER BY 1").fetchall()]
    index = NameIndex(stored, ascii_lookalikes=False)
    for sub in new:
        other = index.lookalike(sub)
        if other is not None:
            identity_name(sub, kind="subject", existing=[other], ascii_lookalikes=False)   # says which character
        index.add(sub)


def questions_table(benchmark: str, questions: list[Question], start: int = 0) -> pa.Table:
    """Questions as an Arrow table with the columns of the ``questions``
    table (``seq`` counts from *start*; ``source_record`` as JSON text), and
    where each was read from (``source_file``, ``record_row``: the rows of
    ``item_sources``).  Ids and subjects are checked first (:func:`check_names`)."""
    check_names(questions)
    return pa.table(
        {
            "benchmark": pa.array([benchmark] * len(questions), pa.string()),
            "question_id": pa.array([q.question_id for q in questions], pa.string()),
            "seq": pa.array(range(start, start + len(questions)), pa.int32()),
            "subject": pa.array([q.subject for q in questions], pa.string()),
            "language": pa.array([q.language for q in questions], pa.string()),
            "script": pa.array([q.script for q in questions], pa.string()),
            "stem": pa.array([q.stem for q in questions], pa.string()),
            "options": pa.array(
                [[{"label": o.label, "text": o.text} for o in q.options] for q in questions], _OPTION_TYPE
            ),
            "answer_key": pa.array([q.answer_key for q in questions], pa.string()),
            "explanation": pa.array([q.explanation for q in questions], pa.string()),
            "raw_text": pa.array([q.raw_text for q in questions], pa.string()),
            "source_record": pa.array(
                [
                    json.dumps(q.source_record, ensure_ascii=False) if q.source_record is not None else None
                    for q in questions
                ],
                pa.string(),
            ),
            "structure_suspect": pa.array([bool(q.structure_suspect) for q in questions], pa.bool_()),
            "structure_reason": pa.array([q.structure_reason for q in questions], pa.string()),
            "flags": pa.array([item_flags(q) for q in questions], pa.list_(pa.string())),
            "context": pa.array([q.context for q in questions], pa.string()),
            "option_scripts": pa.array([q.option_scripts for q in questions], pa.list_(pa.string())),
            "source_file": pa.array([q.origin[0] if q.origin else None for q in questions], pa.string()),
            "record_row": pa.array([q.origin[1] if q.origin else None for q in questions], pa.int64()),
        }
    )


#: The columns whose difference makes a re-imported question "changed"
#: (what a reader of the item sees; ``seq``, ``raw_text`` and
#: ``source_record`` are bookkeeping).
CONTENT_COLUMNS = ("stem", "options", "answer_key", "subject", "language", "script", "explanation", "context")
_NAMES = {"stem": "stem", "options": "options", "answer_key": "key", "subject": "subject",
          "language": "language", "script": "script", "explanation": "explanation", "context": "passage"}
#: Tables whose rows record work done on an item (a replaced item with such
#: rows is listed by name).
_WORK_TABLES = (("predictions", "predictions"), ("reviews", "verdicts"), ("judge_verdicts", "judge verdicts"))


@dataclass
class StoreReport:
    """What storing questions did: new ids, ids whose stored content was
    identical (left as they were), ids whose content changed (replaced,
    only with ``replace=True``), and the changed ids that already had
    predictions or verdicts."""

    new: int = 0
    unchanged: int = 0
    changed: list[str] = field(default_factory=list)
    changed_with_work: list[str] = field(default_factory=list)

    @property
    def written(self) -> int:
        return self.new + len(self.changed)

    def __str__(self) -> str:
        parts = [f"{self.new:,} new"]
        if self.unchanged:
            parts.append(f"{self.unchanged:,} already stored with the same content (left as they were)")
        if self.changed:
            ids = ", ".join(self.changed[:10]) + (" …" if len(self.changed) > 10 else "")
            parts.append(f"{len(self.changed):,} replaced with changed content ({ids})")
        s = "; ".join(parts)
        if self.changed_with_work:
            ids = ", ".join(self.changed_with_work[:20]) + (" …" if len(self.changed_with_work) > 20 else "")
            s += f"; replaced items that already had predictions or verdicts: {ids}"
        return s


def _match_sql(relation: str) -> str:
    """SQL: the incoming ids already stored (parameter: the benchmark), with
    their stored ``seq``, whether the content changed and, per content
    column, whether it differs."""
    diff = " OR ".join(f"i.{c} IS DISTINCT FROM q.{c}" for c in CONTENT_COLUMNS)
    what = ", ".join(f"i.{c} IS DISTINCT FROM q.{c}" for c in CONTENT_COLUMNS)
    return (f"SELECT i.question_id, q.seq AS old_seq, ({diff}) AS changed, [{what}] AS what "
            f"FROM {relation} i JOIN questions q ON q.benchmark = ? AND q.question_id = i.question_id")


def compare_questions(con, benchmark: str, relation: str, *, replace: bool = False, source_path: str | None = None,
                      match: str | None = None) -> StoreReport:
    """How *relation*'s questions compare with those stored (read-only):
    the :class:`StoreReport`; an :class:`InputError` naming the ids and what
    changed when content differs under an existing id and not *replace*.
    *match* is a relation holding :func:`_match_sql`'s rows (default: that
    query itself)."""
    params: list = []
    check_subject_lookalikes(con, benchmark, relation)
    if match is None:
        match, params = f"({_match_sql(relation)})", [benchmark]
    total = con.execute(f"SELECT count(*) FROM {relation}").fetchone()[0]
    matched, n_changed = con.execute(f"SELECT count(*), count(*) FILTER (WHERE changed) FROM {match}",
                                     params).fetchone()
    report = StoreReport(new=total - matched, unchanged=matched - n_changed)
    if report.new:
        refuse_moved_ids(con, benchmark, relation, matched, source_path)
    if not n_changed:
        return report
    rows = con.execute(f"SELECT question_id, what FROM {match} WHERE changed ORDER BY question_id", params).fetchall()
    report.changed = [r[0] for r in rows]
    if not replace:
        shown = "; ".join(f"'{qid}' ({', '.join(_NAMES[c] for c, d in zip(CONTENT_COLUMNS, w) if d)})"
                          for qid, w in rows[:5])
        more = f" and {len(rows) - 5:,} more" if len(rows) > 5 else ""
        raise InputError(
            f"{len(rows):,} question{'s' if len(rows) != 1 else ''} already stored in '{benchmark}' with "
            f"different content: {shown}{more}; nothing was written (pass --replace to replace them)",
            path=source_path)
    work = " UNION ".join(f"SELECT question_id FROM {t} WHERE benchmark = ?" for t, _ in _WORK_TABLES)
    report.changed_with_work = [r[0] for r in con.execute(
        f"SELECT question_id FROM {match} WHERE changed AND question_id IN ({work}) ORDER BY 1",
        params + [benchmark] * len(_WORK_TABLES)).fetchall()]
    return report


def refuse_moved_ids(con, benchmark: str, relation: str, matched: int, source_path: str | None = None) -> None:
    """Refuse an import that would store, under a new id, an item already
    stored under another id that this import does not give: the same
    content (stem, passage, options, key) and, when the stored item records
    where it was read from (``item_sources``), the same file and record.
    Such ids moved (an earlier release numbered id-less records ``0, 1, …``;
    a layout read otherwise); storing the items again would split their
    predictions and verdicts.  The error names every stored id and the id it
    would get.  *matched*: how many incoming ids are stored already (when
    every stored item is among them, nothing can have moved)."""
    stored = con.execute("SELECT count(*) FROM questions WHERE benchmark = ?", [benchmark]).fetchone()[0]
    if stored <= matched:
        return
    rows = con.execute(
        f"""WITH inc AS (SELECT question_id, stem, context, options, answer_key, source_file, record_row
                     FROM {relation}),
        new AS (SELECT i.* FROM inc i ANTI JOIN (SELECT question_id FROM questions WHERE benchmark = $b) q
                USING (question_id)),
        gone AS (SELECT q.question_id, q.stem, q.context, q.options, q.answer_key, q.seq FROM questions q
                 ANTI JOIN inc USING (question_id) WHERE q.benchmark = $b)
        SELECT DISTINCT ON (g.question_id) g.question_id, n.question_id, s.record_row
        FROM new n JOIN gone g ON g.stem = n.stem AND g.context IS NOT DISTINCT FROM n.context
             AND g.options = n.options AND g.answer_key IS NOT DISTINCT FROM n.answer_key
        LEFT JOIN item_sources s ON s.benchmark = $b AND s.question_id = g.question_id
        WHERE s.question_id IS NULL OR (s.source_file = n.source_file AND s.record_row = n.record_row)
        ORDER BY g.question_id, n.question_id""",
        {"b": benchmark},
    ).fetchall()
    if not rows:
        return
    rows.sort(key=lambda r: (len(r[0]), r[0]))
    shown = ", ".join(f"'{old}' (would become '{new}')" if i == 0 else f"'{old}' ('{new}')"
                      for i, (old, new, _) in enumerate(rows[:40]))
    more = f" and {len(rows) - 40:,} more" if len(rows) > 40 else ""
    files = sorted({new.rsplit("/", 1)[0] for _, new, _ in rows if "/" in new})
    rowwise = all(old.isdigit() and new.endswith("/" + old) for old, new, _ in rows)
    advice = (
        f"to keep them, import {', '.join(files[:3])} on its own with --id '{{row}}'"
        if rowwise and len(files) == 1
        else "to keep them, build the stored ids with --id (e.g. --id '{row}')"
    )
    raise InputError(
        f"{len(rows):,} item{'s' if len(rows) != 1 else ''} of this import {'are' if len(rows) != 1 else 'is'} "
        f"already stored in '{benchmark}' under other ids: {shown}{more}; nothing was written ({advice}, "
        "or import into a new benchmark)", path=source_path)


def _replace_questions(con, benchmark: str, relation: str, seq_offset: int, *, replace: bool = False,
                       source_path: str | None = None) -> StoreReport:
    """Merge *relation* (a table, view or table function with the columns of
    :func:`questions_table`) into the benchmark's questions: new ids are
    inserted with ``seq + seq_offset``; an id stored with the same content
    (:data:`CONTENT_COLUMNS`) is left as it is; an id whose content differs
    is an :class:`InputError` naming the ids and what changed (nothing is
    written) unless *replace*, when it is replaced (keeping its ``seq``)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE _import_match AS {_match_sql(relation)}", [benchmark])
    try:
        report = compare_questions(con, benchmark, relation, replace=replace, source_path=source_path,
                                   match="_import_match")
        if report.changed:
            con.execute("DELETE FROM questions WHERE benchmark = ? AND question_id IN "
                        "(SELECT question_id FROM _import_match WHERE changed)", [benchmark])
        # options_may_repeat: the duplicate-option lint's first pass, stored
        # (the macro of migration 041 owns the rule)
        insert = ("INSERT INTO questions (benchmark, question_id, seq, subject, language, script, stem, options, "
                  "answer_key, explanation, raw_text, source_record, structure_suspect, structure_reason, flags, "
                  "options_may_repeat, context, option_scripts) ")
        if report.unchanged == 0 and not report.changed:
            # only new ids (the common case): a plain streaming insert, no join to hold in memory
            con.execute(insert + "SELECT benchmark, question_id, seq + ?, subject, language, script, stem, options, "
                        "answer_key, explanation, raw_text, source_record::JSON, structure_suspect, "
                        f"structure_reason, flags, options_may_repeat(options), context, option_scripts "
                        f"FROM {relation}", [seq_offset])
        else:
            con.execute(
                insert + "SELECT i.benchmark, i.question_id, coalesce(m.old_seq, i.seq + ?), i.subject, i.language, "
                "i.script, i.stem, i.options, i.answer_key, i.explanation, i.raw_text, i.source_record::JSON, "
                "i.structure_suspect, i.structure_reason, i.flags, options_may_repeat(i.options), i.context, "
                f"i.option_scripts FROM {relation} i LEFT JOIN _import_match m ON m.question_id = i.question_id "
                "WHERE m.question_id IS NULL OR m.changed", [seq_offset])
        # where each item was read from (the items of files; not those built in code)
        if report.unchanged or report.changed:
            con.execute("DELETE FROM item_sources WHERE benchmark = ? AND question_id IN "
                        f"(SELECT question_id FROM {relation} WHERE source_file IS NOT NULL)", [benchmark])
        con.execute(f"INSERT INTO item_sources SELECT benchmark, question_id, source_file, record_row FROM {relation} "
                    "WHERE source_file IS NOT NULL")
    finally:
        con.execute("DROP TABLE IF EXISTS _import_match")
    return report


def sweep_stale(folder: str | os.PathLike | None = None) -> int:
    """Remove the staging folders (``audit-import-<pid>-*``) that a killed
    import left in the temporary folder: those whose process is gone.
    Returns how many were removed.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "audit-import-999999999-x").mkdir(); (d / "audit-import-abc").mkdir()
    >>> sweep_stale(d), sorted(x.name for x in d.iterdir())
    (1, ['audit-import-abc'])
    """
    base = Path(folder) if folder is not None else Path(tempfile.gettempdir())
    removed = 0
    try:
        entries = list(base.glob("audit-import-*"))
    except OSError:
        return 0
    for e in entries:
        parts = e.name.split("-")
        pid = int(parts[2]) if len(parts) > 3 and parts[2].isdigit() else None
        if pid == os.getpid():
            continue
        if pid is not None:
            try:
                os.kill(pid, 0)
                continue          # that import is still running
            except ProcessLookupError:
                pass              # the process is gone: its folder is stale
            except (PermissionError, OverflowError, OSError):
                continue
        else:
            try:                  # a folder named without a pid: stale after a day
                if time.time() - e.stat().st_mtime < 86400:
                    continue
            except OSError:
                continue
        try:
            if e.is_dir() and not e.is_symlink() and e.stat().st_uid == os.getuid():
                shutil.rmtree(e, ignore_errors=True)
                removed += not e.exists()
        except OSError:
            continue
    return removed


class QuestionStage:
    """Parsed questions staged in a Parquet file outside the database, so a
    large import costs the database one bulk ``INSERT … SELECT`` (DuckDB
    writes the new rows to the file as it goes) instead of many small
    inserts held in memory until the commit; and the write lock is taken
    only after the whole file parsed cleanly.

    >>> import tempfile, pathlib
    >>> from audit.store.records import Option
    >>> from audit.store import connect, transaction
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with QuestionStage(d) as stage:
    ...     stage.add("toy", [Question("toy", "q1", "2+2?", [Option("A", "3"), Option("B", "4")], "B")])
    ...     with connect(d / "x.duckdb") as con, transaction(con):
    ...         print(stage.store(con, "toy", "questions"))
    1 new
    >>> with connect(d / "x.duckdb", read_only=True) as con:
    ...     con.execute("SELECT question_id, seq, answer_key FROM questions").fetchall()
    [('q1', 0, 'B')]
    """

    def __init__(self, folder: str | os.PathLike | None = None):
        sweep_stale(folder)
        self._dir = tempfile.TemporaryDirectory(prefix=f"audit-import-{os.getpid()}-", dir=folder)
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

    def store(self, con, benchmark: str, source: str, *, source_path: str | None = None,
              replace: bool = False) -> StoreReport:
        """Write the staged questions into *benchmark*, inside the caller's
        transaction (ids stored with the same content are left alone; changed
        content is refused unless *replace*, see :func:`_replace_questions`)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        ensure_benchmark(con, benchmark, source, source_path)
        if not self.rows:
            return StoreReport()
        start = con.execute("SELECT coalesce(max(seq), -1) + 1 FROM questions WHERE benchmark = ?",
                            [benchmark]).fetchall()[0][0]
        return _replace_questions(con, benchmark, f"read_parquet({duck_path(self.path)})", start, replace=replace,
                                  source_path=source_path)

    def compare(self, con, benchmark: str, *, replace: bool = False,
                source_path: str | None = None) -> StoreReport:
        """:func:`compare_questions` of the staged questions (read-only: a
        dry run runs the import's checks against the database this way)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if not self.rows:
            return StoreReport()
        return compare_questions(con, benchmark, f"read_parquet({duck_path(self.path)})", replace=replace,
                                 source_path=source_path)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._dir.cleanup()

    def __enter__(self) -> "QuestionStage":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["item_flags", "ensure_benchmark", "store_questions", "questions_table", "StoreReport", "compare_questions",
           "sweep_stale", "QuestionStage", "check_names", "check_subject_lookalikes"]
