"""``audit import mmlu-redux``: MMLU-Redux subject files with many models'
predictions and the human error labels.

Each ``<subject>.csv`` has ``question``, ``choices`` (a Python list literal),
``groundtruth_answer`` (0-based index into choices: ASCII digits or an
integral float such as Parquet's ``1.0``; a missing one is no key), ``error_type`` and then
one column per model holding its predicted letter.  Question id =
``<subject>/<row index from 0>``; the key is the letter of
``groundtruth_answer``; ``error_type`` is stored in ``reference_labels``
(label_set ``mmlu_redux_error_type``).  A model cell that is not, once
stripped, a single letter among the item's labels is an invalid prediction.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from audit._util.cells import CellRefused, is_missing, option_number, text_cell
from audit._util.files import nfc, read_table, require_columns
from audit._util.literals import LiteralRefused, parse_list_literal
from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest._predictions import store_predictions
from audit.ingest.storing import store_questions
from audit.options import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS
from audit.store import DbPath, connect, transaction
from audit.store.records import Option, Question

LABEL_SET = "mmlu_redux_error_type"
FIXED_COLUMNS = ["question", "choices", "groundtruth_answer", "error_type"]


@dataclass
class MmluReduxImportSummary:
    benchmark: str
    subjects: int
    questions: int
    models: list[str]
    predictions: int
    valid: int
    error_types: dict[str, int]

    @property
    def invalid(self) -> int:
        return self.predictions - self.valid

    def __str__(self) -> str:
        bad = sum(v for k, v in self.error_types.items() if k != "ok")
        return (f"imported {self.questions:,} questions from {self.subjects} subjects into '{self.benchmark}' and "
                f"{self.predictions:,} predictions of {len(self.models)} models ({self.invalid} invalid); "
                f"{bad} questions carry a human error label other than 'ok'")


def _files(path: Path) -> list[Path]:
    if not path.exists():
        raise InputError("not found", path=path)
    if path.is_file():
        return [path]
    files = sorted(path.glob("*.csv"))
    if not files:
        raise InputError("no <subject>.csv files in this folder", path=path)
    return files


def _choices(v, f: Path, line: int) -> list[str]:
    """The option texts of a ``choices`` cell: a Python list literal of
    strings (read by :func:`audit._util.literals.parse_list_literal`, never
    Python's parser), or a list from Parquet."""
    if hasattr(v, "tolist") and not isinstance(v, str):
        v = v.tolist()
    if isinstance(v, str):
        try:
            v = parse_list_literal(v)
        except LiteralRefused as exc:
            raise InputError(f"'choices' is not a list literal: {exc}", path=f, line=line) from None
    if not isinstance(v, (list, tuple)) or not all(isinstance(c, str) for c in v):
        raise InputError("'choices' must be a list of strings", path=f, line=line)
    if not MIN_OPTIONS <= len(v) <= MAX_OPTIONS:
        raise InputError(f"{len(v)} choices; an item has {MIN_OPTIONS}–{MAX_OPTIONS}", path=f, line=line)
    return list(v)


def _jsonable(v):
    """A cell as the source record keeps it (JSON): NaN is null, arrays are lists."""
    if hasattr(v, "tolist") and not isinstance(v, str):
        return v.tolist()
    return None if is_missing(v) and not isinstance(v, str) else v


def import_mmlu_redux(path: str | os.PathLike, *, benchmark: str = "mmlu-redux", db: DbPath = None,
                      progress: bool | None = None, actor=None) -> MmluReduxImportSummary:
    """Import a folder of MMLU-Redux ``<subject>.csv`` files (or one file).
    All-or-nothing, in one transaction; re-importing replaces the questions,
    labels and the predictions of the same models.

    Every file must have the same model columns (a model missing from one
    subject would silently lower its coverage)."""
    files = _files(Path(path))
    questions: list[Question] = []
    labels: list[tuple[str, str]] = []
    pred: dict[str, list] = {"question_id": [], "model": [], "given": [], "_line": []}
    models: list[str] | None = None
    for f in files:
        subject = f.stem
        df = read_table(f)
        require_columns(df, FIXED_COLUMNS, f)
        cols = [c for c in df.columns if c not in FIXED_COLUMNS and c != "_line"]
        if not cols:
            raise InputError("no model columns after error_type", path=f)
        if models is None:
            models = cols
        elif set(cols) != set(models):
            diff = sorted(set(cols) ^ set(models))
            raise InputError(f"model columns differ from {files[0].name}: {', '.join(diff)}", path=f)
        for i, rec in enumerate(df.to_dict("records")):
            line = int(rec["_line"])
            choices = _choices(rec["choices"], f, line)
            try:
                gt = option_number(rec["groundtruth_answer"])
            except CellRefused as exc:
                raise InputError(f"groundtruth_answer: {exc}", path=f, line=line) from None
            if gt is None:
                key = None            # no key: flagged key_not_in_options
            elif gt < len(choices):
                key = LATIN_LABELS[gt]
            else:
                key = str(gt)         # kept and flagged key_not_in_options
            try:
                stem = text_cell(rec["question"])
                et = text_cell(rec["error_type"])
            except CellRefused as exc:
                raise InputError(f"question / error_type: {exc}", path=f, line=line) from None
            if not stem:
                raise InputError("the question is empty", path=f, line=line)
            qid = nfc(f"{subject}/{i}")
            questions.append(Question(
                benchmark=benchmark, question_id=qid, stem=nfc(stem),
                options=[Option(LATIN_LABELS[j], nfc(c).strip()) for j, c in enumerate(choices)],
                answer_key=key, subject=subject, language="en", script="Latn", raw_text=rec["question"],
                source_record={k: _jsonable(v) for k, v in rec.items() if k != "_line"},
            ))
            if et:
                labels.append((qid, et))
            for m in cols:
                try:
                    v = text_cell(rec[m])
                except CellRefused as exc:
                    raise InputError(f"model column '{m}': {exc} (a model column holds the letter the model "
                                     "chose)", path=f, line=line) from None
                pred["question_id"].append(qid)
                pred["model"].append(m)
                pred["given"].append(v or None)
                pred["_line"].append(line)
    table = pa.table({
        "question_id": pa.array(pred["question_id"], pa.string()),
        "model": pa.array(pred["model"], pa.string()),
        "given": pa.array(pred["given"], pa.string()),
        "_line": pa.array(pred["_line"], pa.int64()),
    })
    label_table = pa.table({"question_id": pa.array([q for q, _ in labels], pa.string()),
                            "value": pa.array([v for _, v in labels], pa.string())})
    where = str(path)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing MMLU-Redux")
        store_questions(con, benchmark, "mmlu-redux", questions, source_path=where)
        con.register("_redux_pred", table)
        con.execute("CREATE OR REPLACE TEMP VIEW _redux_src AS SELECT question_id, model, 'default' AS run, "
                    "NULL::VARCHAR AS response, given, _line FROM _redux_pred")
        # The line numbers refer to different files; name the folder in messages.
        s = store_predictions(con, benchmark, "_redux_src", where, layout="wide", progress=progress)
        con.register("_redux_labels", label_table)
        con.execute("DELETE FROM reference_labels WHERE benchmark = ? AND label_set = ? AND question_id IN "
                    "(SELECT question_id FROM _redux_labels)", [benchmark, LABEL_SET])
        con.execute("INSERT INTO reference_labels (benchmark, question_id, label_set, value) "
                    "SELECT ?, question_id, ?, value FROM _redux_labels", [benchmark, LABEL_SET])
        unregister(con, "_redux_pred")
        unregister(con, "_redux_labels")
    counts: dict[str, int] = {}
    for _, v in labels:
        counts[v] = counts.get(v, 0) + 1
    return MmluReduxImportSummary(benchmark=benchmark, subjects=len(files), questions=len(questions),
                                  models=s.models, predictions=s.predictions, valid=s.valid, error_types=counts)
