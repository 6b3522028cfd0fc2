"""Judges against the experts: the judge-stage analyses that need settled
expert verdicts or reviewer agreement, with those read from this stage.

The judge stage (:mod:`audit.judge.bias`, :mod:`audit.judge.panel`) takes
the expert tables as arguments, since a stage never imports a later one;
these functions read them (:func:`~audit.review.settled_verdicts`,
:func:`~audit.review.reviewer_agreement`) and pass them on.
"""
from __future__ import annotations

import pandas as pd

from audit.judge import bias as _bias
from audit.judge import panel as _panel
from audit.review.agreement import reviewer_agreement
from audit.review.status import settled_verdicts
from audit.store import DbPath


def _reviewer_pairs(benchmark: str, db: DbPath) -> pd.DataFrame | None:
    try:
        return reviewer_agreement(benchmark, db=db).pairs
    except Exception:  # no reviews yet: the table stays empty
        return None


def _settled(benchmark: str, db: DbPath) -> pd.DataFrame | None:
    try:
        return settled_verdicts(benchmark, db=db)
    except Exception:  # no reviews table or benchmark: no expert verdicts
        return None


def agreement_report(benchmark: str, *, db: DbPath = None) -> dict[str, pd.DataFrame]:
    """:func:`audit.judge.panel.agreement_report` with the expert tables
    (judge vs experts, reviewer vs reviewer) filled from this stage."""
    return _panel.agreement_report(benchmark, db=db, settled=_settled(benchmark, db),
                                   reviewer_pairs=_reviewer_pairs(benchmark, db))


def report_sections(benchmark: str, *, db: DbPath = None) -> dict[str, pd.DataFrame]:
    """The titled, non-empty agreement tables for ``audit report``
    (:func:`audit.judge.panel.report_sections` with the expert tables)."""
    return _panel.report_sections(benchmark, db=db, settled=_settled(benchmark, db),
                                  reviewer_pairs=_reviewer_pairs(benchmark, db))


def bias_vs_accuracy(benchmark: str, judge: str, *, db: DbPath = None, settled: pd.DataFrame | None = None,
                     **kwargs) -> _bias.AccuracyReport:
    """:func:`audit.judge.bias.bias_vs_accuracy` with ``settled`` defaulting
    to :func:`~audit.review.settled_verdicts` of *benchmark*; other keyword
    arguments pass through."""
    if settled is None:
        settled = settled_verdicts(benchmark, db=db)
    return _bias.bias_vs_accuracy(benchmark, judge, db=db, settled=settled, **kwargs)
