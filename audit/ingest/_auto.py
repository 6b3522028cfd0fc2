"""``audit import auto``: recognise an unknown file or folder, say what it
is, then import it with the matching importer.

:func:`detect` only looks (first record, header or schema; never the whole
file) and returns a :class:`Detection`: the format, why it was chosen, and
the importer's name.  :func:`import_auto` runs the importer.  Recognised:

============  ==============================================================
format        evidence
============  ==============================================================
lm-eval       ``samples_*.jsonl`` (file or in the folder tree)
inspect       ``.eval`` log, or JSON with ``eval`` and ``samples``
helm          JSON with ``request_states`` and ``adapter_spec``
tlue          JSON(L) records with ``loc`` and ``polished_ti_content``
seed          JSON(L) records with ``loc`` and ``extracted_answer``
mmlu-redux    CSV with ``groundtruth_answer`` and ``error_type``
predictions   ``question_id`` with ``model`` and ``response``/``answer``
              (long), or ``question_id`` plus other columns (wide)
questions     ``id``, ``question`` and ``answer`` (after any ``--map``)
============  ==============================================================
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.errors import InputError
from audit.store import DbPath

FORMATS = ("lm-eval", "inspect", "helm", "tlue", "seed", "mmlu-redux", "predictions-long", "predictions-wide",
           "questions")


@dataclass
class Detection:
    """What :func:`detect` found."""

    format: str
    reason: str
    files: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        n = len(self.files)
        return f"found: {self.format} ({self.reason}; {n} file{'s' if n != 1 else ''})"


def _first_record(p: Path) -> dict | None:
    """The first JSON object of a JSONL file or JSON array/object file."""
    with open(p, "rb") as fh:
        head = fh.read(1 << 20).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not head:
        return None
    if head.startswith("["):
        try:
            obj, _ = json.JSONDecoder().raw_decode(head, head.index("{")) if "{" in head else (None, 0)
        except json.JSONDecodeError:
            return None
        return obj if isinstance(obj, dict) else None
    try:
        obj, _ = json.JSONDecoder().raw_decode(head)
        return obj if isinstance(obj, dict) else None
    except json.JSONDecodeError:
        if p.suffix.lower() == ".json":  # one large object cut by the 1 MB window: look at its keys
            keys = {k for k in ("request_states", "adapter_spec", "samples", "eval") if f'"{k}"' in head}
            return {k: None for k in keys} or None
        return None


def _columns(p: Path) -> list[str]:
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(p).names)
        except Exception:
            return []
    if suffix in (".csv", ".tsv"):
        import csv

        with open(p, encoding="utf-8-sig", errors="replace", newline="") as fh:
            row = next(csv.reader(fh, delimiter="\t" if suffix == ".tsv" else ","), [])
        return [c.strip() for c in row]
    rec = _first_record(p)
    return list(rec) if rec else []


def _classify_file(p: Path, mapping: dict[str, str] | None) -> tuple[str, str] | None:
    name, suffix = p.name, p.suffix.lower()
    if name.startswith("samples_") and suffix == ".jsonl":
        return "lm-eval", "an lm-evaluation-harness samples log"
    if suffix == ".eval":
        return "inspect", "an inspect-ai .eval log"
    cols = _columns(p)
    keys = set(cols)
    if suffix == ".json" and {"eval", "samples"} <= keys:
        return "inspect", "an inspect-ai JSON log (eval, samples)"
    if {"request_states", "adapter_spec"} <= keys:
        return "helm", "a HELM scenario_state file (adapter_spec, request_states)"
    if {"loc", "polished_ti_content"} <= keys:
        return "tlue", "TLUE items (loc, polished_ti_content)"
    if {"loc", "extracted_answer"} <= keys:
        return "seed", "the pipeline's per-model results (loc, extracted_answer)"
    if {"groundtruth_answer", "error_type"} <= keys:
        return "mmlu-redux", "MMLU-Redux (groundtruth_answer, error_type)"
    if mapping:
        keys = {mapping.get(c, c) for c in keys} | {t for s, t in mapping.items() if t}
    if "question_id" in keys and "model" in keys and keys & {"response", "answer"}:
        return "predictions-long", "predictions, one row per question and model (question_id, model, response/answer)"
    if "question_id" in keys and len(keys - {"question_id"}) >= 1 and "question" not in keys:
        return "predictions-wide", "predictions, one column per model (question_id + model columns)"
    if {"id", "question", "answer"} <= keys:
        return "questions", "a question file (id, question, answer)"
    return None


def detect(path: str | os.PathLike, mapping: dict[str, str] | None = None) -> Detection:
    """Recognise the format of ``path`` without reading it whole.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.csv").write_text("id,question,A,B,answer\\nq1,x,a,b,A\\n")
    >>> str(detect(d / "q.csv"))
    'found: questions (a question file (id, question, answer); 1 file)'
    """
    p = Path(path)
    if not p.exists():
        raise InputError("file or folder not found", path=p)
    if p.is_dir():
        samples = sorted(p.rglob("samples_*.jsonl"))
        if samples:
            return Detection("lm-eval", "lm-evaluation-harness samples logs", [str(f) for f in samples])
        evals = sorted(p.glob("*.eval"))
        if evals:
            return Detection("inspect", "inspect-ai .eval logs", [str(f) for f in evals])
        found: dict[str, list[str]] = {}
        reasons: dict[str, str] = {}
        for f in sorted(x for x in p.rglob("*") if x.is_file() and x.suffix.lower() in
                        (".jsonl", ".json", ".csv", ".tsv", ".parquet")):
            c = _classify_file(f, mapping)
            if c:
                found.setdefault(c[0], []).append(str(f))
                reasons[c[0]] = c[1]
        if not found:
            raise InputError("no file of a known format in this folder (see 'audit import auto --help')", path=p)
        if len(found) > 1:
            kinds = ", ".join(f"{k} ({len(v)})" for k, v in sorted(found.items()))
            raise InputError(f"files of several formats in this folder: {kinds}; import them one at a time", path=p)
        fmt, files = next(iter(found.items()))
        return Detection(fmt, f"folder of {reasons[fmt]}", files)
    c = _classify_file(p, mapping)
    if c is None:
        cols = _columns(p)
        raise InputError(
            "format not recognised" + (f" (fields: {', '.join(cols[:20])})" if cols else "")
            + "; for a question file with other field names use --map SOURCE=TARGET "
              "(e.g. --map option=options), or pick the importer yourself (audit import --help)", path=p)
    return Detection(c[0], c[1], [str(p)])


def import_auto(path: str | os.PathLike, *, benchmark: str | None = None, mapping: dict[str, str] | None = None,
                db: DbPath = None, detection: Detection | None = None, accept_suspect: bool = False,
                model: str | None = None):
    """Import ``path`` with the importer :func:`detect` chose; returns that
    importer's summary.  ``benchmark`` is required for question and
    prediction files; the others default to their own names."""
    det = detection or detect(path, mapping)
    p = Path(path)
    if det.format in ("questions", "predictions-long", "predictions-wide", "seed") and not benchmark:
        raise InputError(f"{det.format}: pass --benchmark (the benchmark to import into)", path=p)
    if det.format == "lm-eval":
        from audit.ingest._lmeval import import_lm_eval

        return import_lm_eval(p, benchmark=benchmark, model=model, db=db)
    if det.format == "inspect":
        from audit.ingest._inspect_log import import_inspect

        return import_inspect(p, benchmark=benchmark, model=model, db=db)
    if det.format == "helm":
        from audit.ingest._helm import import_helm

        return import_helm(p, benchmark=benchmark, db=db)
    if det.format == "tlue":
        from audit.ingest._tlue import import_tlue

        return import_tlue(p, benchmark=benchmark or "tlue", db=db, accept_suspect=accept_suspect)
    if det.format == "mmlu-redux":
        from audit.ingest._mmlu_redux import import_mmlu_redux

        return import_mmlu_redux(p, benchmark=benchmark or "mmlu-redux", db=db)
    if det.format == "questions":
        from audit.ingest._questions import import_questions

        return import_questions(p, benchmark=benchmark, db=db, mapping=mapping)  # type: ignore[arg-type]
    from audit.ingest._predictions import import_predictions

    layout = {"predictions-long": "long", "predictions-wide": "wide", "seed": "seed"}[det.format]
    if p.is_dir():
        raise InputError("a folder of prediction files: import them one at a time", path=p)
    return import_predictions(p, benchmark=benchmark, layout=layout, model=model, db=db,  # type: ignore[arg-type]
                              mapping=mapping if layout != "seed" else None)


@dataclass
class AutoImport:
    """``audit import auto``: what :func:`detect` found and the importer's
    summary (None on a dry run: nothing was written)."""

    detection: Detection
    summary: Any = None


def detect_and_import(path: str | os.PathLike, *, benchmark: str | None = None,
                      mapping: dict[str, str] | None = None, model: str | None = None,
                      accept_suspect: bool = False, dry_run: bool = False, db: DbPath = None) -> AutoImport:
    """:func:`detect` the format of *path*, then (unless *dry_run*)
    :func:`import_auto` it with that detection."""
    det = detect(path, mapping)
    if dry_run:
        return AutoImport(detection=det)
    return AutoImport(detection=det, summary=import_auto(path, benchmark=benchmark, mapping=mapping, db=db,
                                                         detection=det, accept_suspect=accept_suspect, model=model))


__all__ = ["Detection", "detect", "import_auto", "AutoImport", "detect_and_import", "FORMATS"]
