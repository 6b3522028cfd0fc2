"""The full ``audit report`` of a benchmark: the analysis sections
(:func:`audit.analyze.analysis_report`) and the sections of the later
stages, composed explicitly here — agreement between judges, experts and
reviewers (:func:`audit.review.report_sections`) and accuracy on the
original against the expert-corrected keys (:func:`audit.export.report_section`).
What a report holds never depends on which modules were imported first.
"""
from __future__ import annotations

import os

from audit import analyze, export, review
from audit.analyze import reporting
from audit.errors import InputError
from audit.store import DbPath


def build_report(benchmark: str | None = None, *, db: DbPath = None) -> dict:
    """Everything the audit knows about a benchmark's latest audit run: the
    keys of :func:`audit.analyze.analysis_report`, with ``extra`` holding the
    later stages' titled tables (records, JSON-safe)."""
    rep = analyze.analysis_report(benchmark, db=db)
    bench = rep["benchmark"]
    sections = {**review.report_sections(bench, db=db), **export.report_section(bench, db=db)}
    rep["extra"] = {title: reporting.records(df) for title, df in sections.items()}
    return rep


def benchmark_report(benchmark: str | None = None, *, fmt: str = "table", output: str | os.PathLike | None = None,
                     db: DbPath = None) -> str | None:
    """``audit report``: :func:`build_report` of *benchmark* (None: the only
    one) rendered in *fmt* (``table``, ``json``, ``csv``, ``markdown``);
    written to *output* when given (returns None), else returned as text."""
    if fmt not in reporting.FORMATS:
        raise InputError(f"unknown format '{fmt}' (choose one of {', '.join(reporting.FORMATS)})")
    return reporting.write_report(build_report(benchmark, db=db), fmt, output)


__all__ = ["build_report", "benchmark_report"]
