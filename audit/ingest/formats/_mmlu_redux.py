"""``audit import mmlu-redux``: MMLU-Redux subject files with many models'
predictions and the human error labels.

Each ``<subject>.csv`` has ``question``, ``choices`` (a Python list literal),
``groundtruth_answer`` (0-based index into choices), ``error_type`` and then
one column per model holding its predicted letter.  Question id =
``<subject>/<row index from 0>``; the key is the letter of
``groundtruth_answer``; ``error_type`` is stored in ``reference_labels``
(label_set ``mmlu_redux_error_type``).  A model cell that is not, once
stripped, a single letter among the item's labels is an invalid prediction.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from audit._util.files import nfc, read_table, require_columns
from audit._util.sql import unregister
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


def import_mmlu_redux(path: str | os.PathLike, *, benchmark: str = "mmlu-redux", db: DbPath = None,
                      progress: bool | None = None) -> MmluReduxImportSummary:
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
            try:
                choices = ast.literal_eval(rec["choices"])
            except (ValueError, SyntaxError):
                raise InputError("'choices' is not a list literal", path=f, line=line) from None
            if not isinstance(choices, (list, tuple)) or not all(isinstance(c, str) for c in choices):
                raise InputError("'choices' must be a list of strings", path=f, line=line)
            if not MIN_OPTIONS <= len(choices) <= MAX_OPTIONS:
                raise InputError(f"{len(choices)} choices; an item has {MIN_OPTIONS}–{MAX_OPTIONS}", path=f, line=line)
            gt = str(rec["groundtruth_answer"]).strip()
            if gt.isdigit() and int(gt) < len(choices):
                key = LATIN_LABELS[int(gt)]
            else:
                key = gt or None  # kept and flagged key_not_in_options
            qid = nfc(f"{subject}/{i}")
            questions.append(Question(
                benchmark=benchmark, question_id=qid, stem=nfc(rec["question"]).strip(),
                options=[Option(LATIN_LABELS[j], nfc(c).strip()) for j, c in enumerate(choices)],
                answer_key=key, subject=subject, language="en", script="Latn", raw_text=rec["question"],
                source_record={k: v for k, v in rec.items() if k != "_line"},
            ))
            et = str(rec["error_type"]).strip()
            if et:
                labels.append((qid, et))
            for m in cols:
                pred["question_id"].append(qid)
                pred["model"].append(m)
                v = rec[m].strip() if isinstance(rec[m], str) else None
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
