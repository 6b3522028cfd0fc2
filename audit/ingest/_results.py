"""A model's published result files that carry the items too (MMLU-Pro's
``model_outputs_<model>_5shots.json``): questions and predictions in one import.

Each file is one model's results: a JSON array (a JSON object wrapping it,
or JSONL, also read) of records with ``question_id``, ``question``,
``options`` (up to ten), ``answer`` (the key's letter; ``answer_index``
beside it), the model's reply under ``model_outputs`` or ``generated_text``,
and more (``cot_content``, ``category``, ``src``, ``pred``: the letter the
publisher's own script read).  Strings between the records (MMLU-Pro's
files hold stray subject names and ``total``) are skipped and counted.

* **Questions**: the union over the files, by ``question_id`` (the item's
  id); the same id with other content in two files is refused, naming the
  ids and files.  ``category`` is the subject; the other fields stay in the
  source record.  They are parsed as a question file's rows
  (:func:`audit.ingest._questions.parse_question_rows`: the same keys,
  flags and scripts) and stored as :func:`audit.ingest.import_questions`
  stores them: an id already stored with the same content is left alone.
* **Predictions**: one model per file, named by the file
  (``model_outputs_Llama-2-7b-hf_5shots.json`` → ``Llama-2-7b-hf``: the
  prefixes ``model_outputs_``, ``outputs_``, ``results_`` and a
  ``_<k>shot(s)`` suffix left out) unless ``model`` is given; the reply is
  the response, its letter extracted on import (method ``final``: "the
  answer is (J)" is J).  How often that letter agrees with the file's own
  ``pred`` is said in the summary.

Everything is written in one transaction: all or nothing.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa

from audit._util.archives import Source, sources
from audit._util.files import read_jsonl
from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest._predictions import PredictionImportSummary, store_predictions
from audit.ingest._questions import parse_question_rows
from audit.ingest.storing import QuestionStage, StoreReport
from audit.store import DbPath, connect, transaction

#: Fields holding a model's reply, in the order they are looked for.
REPLY_FIELDS = ("model_outputs", "generated_text", "response", "output")
_PREFIXES = ("model_outputs_", "outputs_", "results_")
_SHOTS = re.compile(r"_\d+[-_]?shots?$", re.IGNORECASE)


def model_of(name: str) -> str:
    """The model a result file is named after.

    >>> model_of("model_outputs_Llama-2-7b-hf_5shots.json"), model_of("results_gpt-4o.json")
    ('Llama-2-7b-hf', 'gpt-4o')
    """
    stem = re.sub(r"\.(json|jsonl)$", "", Path(name).name)
    for prefix in _PREFIXES:
        if stem.startswith(prefix):
            stem = stem[len(prefix):]
            break
    return _SHOTS.sub("", stem) or stem


@dataclass
class ResultsImportSummary:
    """What :func:`import_results` stored: the items (new / unchanged), and
    each model's predictions."""

    benchmark: str
    path: str
    files: int
    items: int
    report: StoreReport
    models: dict[str, int]                       # model → records (its file)
    predictions: PredictionImportSummary | None = None
    notes: list[str] = field(default_factory=list)
    pred_agrees: tuple[int, int] = (0, 0)        # the file's own letter: (agrees with ours, compared)

    def __str__(self) -> str:
        s = (f"imported {self.items:,} items from {self.files} result file(s) into '{self.benchmark}' "
             f"({self.report}); the predictions of {len(self.models)} model(s): "
             + ", ".join(f"{m} ({n:,} items)" for m, n in sorted(self.models.items())))
        agree, compared = self.pred_agrees
        if compared:
            s += f"; the letter the files give (pred) agrees with the letter read here on {agree:,} of {compared:,}"
        if self.predictions is not None:
            s += f"\n{self.predictions}"
        for note in self.notes:
            s += f"\n  {note}"
        return s


def import_results(path: str | os.PathLike, *, benchmark: str, db: DbPath = None, files: list[Source] | None = None,
                   model: str | None = None, method: str = "final", actor=None) -> ResultsImportSummary:
    """Import the items and one model's predictions per file (see the module docstring).
    Once the database has accounts, ``actor`` must be a proven lead or admin.

    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rec = {"question_id": 7, "question": "2+2?", "options": ["3", "4", "5"], "answer": "B", "answer_index": 1,
    ...        "category": "math", "model_outputs": "The answer is (B)."}
    >>> _ = (d / "model_outputs_m1_5shots.json").write_text(json.dumps(["math", rec]))
    >>> s = import_results(d, benchmark="pro", db=d / "x.duckdb")
    >>> s.items, s.models, s.predictions.valid
    (1, {'m1': 1}, 1)
    """
    p = Path(path)
    if not p.exists():
        raise InputError("file or folder not found", path=p)
    files = list(files) if files is not None else sources(p, (".json", ".jsonl"))
    if not files:
        raise InputError("no result file (.json, .jsonl) here", path=p)
    items: dict[str, tuple[dict, str, int]] = {}
    order: list[str] = []
    preds: dict[str, list] = {k: [] for k in ("question_id", "model", "response", "_line", "pred")}
    notes: list[str] = []
    models: dict[str, int] = {}
    for src in files:
        name = model or model_of(src.name)
        if name in models:
            raise InputError(f"two result files of the model '{name}'; import them as different runs, one at a time",
                             path=str(src))
        file_notes: list[str] = []
        n = 0
        for line, rec in read_jsonl(src, notes=file_notes):
            missing = [f for f in ("question_id", "question", "options", "answer") if f not in rec]
            if missing:
                raise InputError(f"the record has no {', '.join(missing)} (a result file's records carry their "
                                 "item: question_id, question, options, answer)", path=str(src), line=line)
            reply_field = next((f for f in REPLY_FIELDS if f in rec), None)
            if reply_field is None:
                raise InputError(f"the record has no reply ({' or '.join(REPLY_FIELDS[:2])})", path=str(src), line=line)
            qid = str(rec["question_id"]).strip()
            item = {k: rec[k] for k in ("question", "options", "answer")}
            if qid in items:
                if {k: items[qid][0][k] for k in item} != item:
                    raise InputError(f"item '{qid}' is in {items[qid][1]} and in {src.name} with other content; "
                                     "nothing was imported (the files must come from one release of the benchmark)",
                                     path=str(src), line=line)
            else:
                items[qid] = (item | {"category": rec.get("category"), "_source": _source_of(rec)}, src.name, line)
                order.append(qid)
            reply = rec[reply_field]
            preds["question_id"].append(qid)
            preds["model"].append(name)
            preds["response"].append(reply if isinstance(reply, str) and reply.strip() else None)
            preds["_line"].append(line)
            preds["pred"].append(str(rec["pred"]).strip().upper() if isinstance(rec.get("pred"), str) else None)
            n += 1
        if not n:
            raise InputError("no records in this result file", path=str(src))
        models[name] = n
        notes += [f"{src.name}: {x}" for x in file_notes]
        notes.append(f"model '{name}' (from the file name {src.name})" if not model else f"model '{name}'")
    df = pd.DataFrame({
        "id": order,
        "question": [items[q][0]["question"] for q in order],
        "options": [items[q][0]["options"] for q in order],
        "answer": [items[q][0]["answer"] for q in order],
        "subject": [items[q][0]["category"] for q in order],
        "_line": [items[q][2] for q in order],
        "_row": list(range(len(order))),
        "_source": [items[q][0]["_source"] for q in order],
    })
    questions = parse_question_rows(df, p, benchmark, key_base=0)
    for q in questions:
        q.origin = None     # an item of several files: its id is MMLU-Pro's own, not a position
    table = pa.table({k: pa.array(v, pa.string() if k not in ("_line",) else pa.int64())
                      for k, v in preds.items()})
    with QuestionStage() as stage:
        stage.add(benchmark, questions)
        with connect(db) as con, transaction(con):
            require_role(con, actor, "lead", "importing results")
            report = stage.store(con, benchmark, "results", source_path=str(p))
            con.register("_results_arrow", table)
            try:
                con.execute("CREATE OR REPLACE TEMP VIEW _results_src AS SELECT question_id, model, "
                            "'default' AS run, response, NULL::VARCHAR AS given, "
                            "(row_number() OVER ())::BIGINT AS _line FROM _results_arrow")
                summary_p = store_predictions(con, benchmark, "_results_src", str(p), method=method, layout="long")
                agree = con.execute(
                    "SELECT count(*) FILTER (WHERE a.pred = p.answer), count(*) FROM _results_arrow a "
                    "JOIN all_predictions p ON p.benchmark = ? AND p.question_id = a.question_id AND p.model = a.model "
                    "AND p.run = 'default' WHERE a.pred IS NOT NULL AND p.answer IS NOT NULL",
                    [benchmark]).fetchone()
            finally:
                con.execute("DROP VIEW IF EXISTS _results_src")
                unregister(con, "_results_arrow")
    return ResultsImportSummary(benchmark=benchmark, path=str(p), files=len(files), items=len(order), report=report,
                                models=models, predictions=summary_p, notes=notes, pred_agrees=(agree[0], agree[1]))


def _source_of(rec: dict) -> dict:
    """The record as kept with its item: without the model's own reply and letter."""
    return {k: v for k, v in rec.items() if k not in REPLY_FIELDS and k != "pred"}


__all__ = ["import_results", "ResultsImportSummary", "model_of", "REPLY_FIELDS"]
