"""Judges against the experts: the judge-stage analyses that need settled
expert verdicts or reviewer agreement, with those read from this stage.

The judge stage (:mod:`audit.judge.bias`, :mod:`audit.judge.panel`) takes
the expert tables as arguments, since a stage never imports a later one;
these functions read them (:func:`~audit.review.settled_verdicts`,
:func:`~audit.review.reviewer_agreement`) and pass them on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from audit.judge import judge_bias
from audit.judge.bias import AccuracyReport, BiasReport, bias_vs_accuracy_from
from audit.judge.panel import agreement_report_from, report_sections_from
from audit.review._status import settled_verdicts
from audit.review.agreement import reviewer_agreement
from audit.store import DbPath
from audit.store.benchmarks import resolves_benchmark


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
    """:func:`audit.judge.panel.agreement_report_from` with the expert tables
    (judge vs experts, reviewer vs reviewer) filled from this stage."""
    return agreement_report_from(benchmark, db=db, settled=_settled(benchmark, db),
                                   reviewer_pairs=_reviewer_pairs(benchmark, db))


def report_sections(benchmark: str, *, db: DbPath = None) -> dict[str, pd.DataFrame]:
    """The titled, non-empty agreement tables for ``audit report``
    (:func:`audit.judge.panel.report_sections_from` with the expert tables)."""
    return report_sections_from(benchmark, db=db, settled=_settled(benchmark, db),
                                  reviewer_pairs=_reviewer_pairs(benchmark, db))


def bias_vs_accuracy(benchmark: str, judge: str, *, db: DbPath = None, settled: pd.DataFrame | None = None,
                     **kwargs: Any) -> AccuracyReport:
    """:func:`audit.judge.bias.bias_vs_accuracy_from` with ``settled`` defaulting
    to :func:`~audit.review.settled_verdicts` of *benchmark*; other keyword
    arguments pass through."""
    if settled is None:
        settled = settled_verdicts(benchmark, db=db)
    return bias_vs_accuracy_from(benchmark, judge, db=db, settled=settled, **kwargs)


@dataclass
class JudgeBiasSummary:
    """``audit judge bias``: the judge's family bias (:class:`~audit.judge.bias.BiasReport`)
    and, when settled expert verdicts exist, bias versus accuracy
    (:class:`~audit.judge.bias.AccuracyReport`, else None)."""

    bias: BiasReport
    accuracy: AccuracyReport | None = None

    def as_dict(self) -> dict[str, Any]:
        out = self.bias.as_dict()
        if self.accuracy is not None:
            out["accuracy"] = self.accuracy.as_dict()
        return out


@resolves_benchmark
def judge_bias_summary(benchmark: str | None, judge: str, *, db: DbPath = None, prompt_version: str | None = None,
                       judge_family: str | None = None, experts: bool = True) -> JudgeBiasSummary:
    """:func:`audit.judge.judge_bias` of *judge* on *benchmark* (None: the
    only one) and, with *experts*, :func:`bias_vs_accuracy` against the
    settled expert verdicts.  *judge_family* overrides the family read from
    the judge's name."""
    rep = judge_bias(benchmark, judge, db=db, prompt_version=prompt_version, judge_family_override=judge_family)
    acc = None
    if experts:
        try:
            acc = bias_vs_accuracy(benchmark, judge, db=db, prompt_version=prompt_version,
                                   judge_family_override=judge_family)
        except ImportError:
            acc = None
    return JudgeBiasSummary(bias=rep, accuracy=acc)


def judge_family_name(benchmark: str, judge: str, *, db: DbPath = None) -> str:
    """A judge's model family (for the card's warning)."""
    from audit.judge.card import family_of

    return family_of(judge, db=db)


@dataclass
class JudgeCard:
    """:func:`judge_card`'s result: the card (one row per judge × prompt
    version) and the agreement between one judge's prompt languages."""

    card: pd.DataFrame
    languages: pd.DataFrame


@resolves_benchmark
def judge_card(benchmark: str | None, *, db: DbPath = None) -> JudgeCard:
    """:func:`audit.judge.card.judge_card` with the settled expert verdicts,
    and :func:`audit.judge.card.language_agreement`."""
    from audit.judge.card import judge_card as card_from
    from audit.judge.card import language_agreement

    return JudgeCard(card_from(benchmark, settled=_settled(benchmark, db), db=db),
                     language_agreement(benchmark, db=db))


__all__ = ["agreement_report", "report_sections", "bias_vs_accuracy", "JudgeBiasSummary", "judge_bias_summary",
           "JudgeCard", "judge_card", "judge_family_name"]
