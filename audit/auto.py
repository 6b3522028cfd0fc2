"""``audit import auto``: recognise an unknown file or folder
(:func:`audit.ingest.detect`), then import it with the stage that owns its
data — the ingest stage for questions, predictions and harness logs, the
judge stage for published judge and error-detector verdicts.  It sits above
both stages and calls each explicitly: what it can import never depends on
what was imported before."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit import ingest, judge
from audit.errors import InputError
from audit.ingest import detect
from audit.ingest.detection import Detection
from audit.store import DbPath, connect, resolve_db_path


def import_auto(path: str | os.PathLike, *, benchmark: str | None = None, mapping: dict[str, str] | None = None,
                db: DbPath = None, detection: Detection | None = None, accept_suspect: bool = False,
                model: str | None = None, replace: bool = False, key_base: int | None = None,
                id_template: str | None = None, constants: dict[str, str] | None = None,
                dry_run: bool = False, skip_unmatched: bool = False, actor=None):
    """Import ``path`` with the importer :func:`detect` chose; returns that
    importer's summary.  ``benchmark`` is required for question and
    prediction files; the others default to their own names.  ``actor``:
    the account acting (a lead or admin, once the database has accounts),
    passed to the importer."""
    det = detection or detect(path, mapping)
    p = Path(path)
    if det.format.startswith("judge-"):
        if not benchmark:
            raise InputError(f"{det.format}: pass --benchmark (the benchmark to import into)", path=p)
        return judge.import_detectors(p, benchmark=benchmark, db=db, skip_unmatched=skip_unmatched, actor=actor)
    if (
        det.format in ("questions", "results", "predictions-long", "predictions-wide", "seed", "outputs")
        and not benchmark
    ):
        raise InputError(f"{det.format}: pass --benchmark (the benchmark to import into)", path=p)
    if det.format == "lm-eval":
        return ingest.import_lm_eval(p, benchmark=benchmark, model=model, db=db, actor=actor)
    if det.format == "inspect":
        return ingest.import_inspect(p, benchmark=benchmark, model=model, db=db, actor=actor)
    if det.format == "helm":
        return ingest.import_helm(p, benchmark=benchmark, db=db, actor=actor)
    if det.format == "tlue":
        return ingest.import_tlue(p, benchmark=benchmark or "tlue", db=db, accept_suspect=accept_suspect, actor=actor)
    if det.format == "mmlu-redux":
        return ingest.import_mmlu_redux(p, benchmark=benchmark or "mmlu-redux", db=db, actor=actor)
    if det.format == "questions":
        # each file with its own layout (the user's --map first, then what was recognised); an id
        # field that repeats within a file gives way to <file>/<row>, with a note
        return ingest.import_questions(p, benchmark=benchmark, db=db, mapping=mapping or det.mapping or None,  # type: ignore[arg-type]
                                replace=replace, key_base=key_base, id_template=id_template, constants=constants,
                                dry_run=dry_run, layouts=det.layouts or None, files=det.sources or None,
                                repeated_ids="by_row", actor=actor)
    if det.format == "results":
        return ingest.import_results(p, benchmark=benchmark, db=db, files=det.sources or None, model=model, actor=actor)
    if det.format == "outputs":
        return ingest.import_outputs(
            p, benchmark=benchmark, db=db, model=model, skip_unmatched=skip_unmatched, actor=actor
        )
    layout = {"predictions-long": "long", "predictions-wide": "wide", "seed": "seed"}[det.format]
    if p.is_dir():
        raise InputError("a folder of prediction files: import them one at a time", path=p)
    return ingest.import_predictions(p, benchmark=benchmark, layout=layout, model=model, db=db,  # type: ignore[arg-type]
                              mapping=mapping if layout != "seed" else None, actor=actor)


@dataclass
class AutoImport:
    """``audit import auto``: what :func:`detect` found and the importer's
    summary (None on a dry run: nothing was written)."""

    detection: Detection
    summary: Any = None
    dry_run: bool = False   # the summary is what a real run would have done; nothing was written


def detect_and_import(path: str | os.PathLike, *, benchmark: str | None = None,
                      mapping: dict[str, str] | None = None, model: str | None = None,
                      accept_suspect: bool = False, dry_run: bool = False, db: DbPath = None,
                      replace: bool = False, key_base: int | None = None, id_template: str | None = None,
                      constants: dict[str, str] | None = None, skip_unmatched: bool = False,
                      actor=None) -> AutoImport:
    """:func:`detect` the format of *path*, then :func:`import_auto` it with
    that detection.  A *dry_run* runs every check of the real import and
    writes nothing: question files are checked against the database opened
    read-only; other formats are imported into a temporary copy of the
    database (or a new one), which is then removed; the summary says what
    would have been imported."""
    det = detect(path, mapping)
    kw = dict(benchmark=benchmark, mapping=mapping, detection=det, accept_suspect=accept_suspect, model=model,
              replace=replace, key_base=key_base, id_template=id_template, constants=constants,
              skip_unmatched=skip_unmatched)
    if not dry_run:
        return AutoImport(detection=det, summary=import_auto(path, db=db, actor=actor, **kw))  # type: ignore[arg-type]
    if det.format == "questions":
        return AutoImport(detection=det, summary=import_auto(path, db=db, dry_run=True, **kw))  # type: ignore[arg-type]
    with _scratch_copy(db) as scratch:
        summary = import_auto(path, db=scratch, **kw)  # type: ignore[arg-type]
    return AutoImport(detection=det, summary=summary, dry_run=True)


def _scratch_copy(db: DbPath):
    """A context manager yielding a temporary copy of the database (taken
    under a read lock, so no writer is half-way), or a new database path
    when there is none yet; removed afterwards."""
    @contextlib.contextmanager
    def cm():
        src = resolve_db_path(db)
        with tempfile.TemporaryDirectory(prefix=f"audit-import-{os.getpid()}-dry-") as d:
            dst = Path(d) / "dry-run.duckdb"
            if src.exists():
                with connect(src, read_only=True):
                    shutil.copyfile(src, dst)
                    wal = src.with_name(src.name + ".wal")
                    if wal.exists():
                        shutil.copyfile(wal, dst.with_name(dst.name + ".wal"))
            yield dst

    return cm()


__all__ = ["AutoImport", "import_auto", "detect_and_import"]
