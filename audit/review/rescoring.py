"""``audit rescore`` in one call: refit the key-error score with the settled
expert verdicts and, on request, the calibration table."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from audit.review.evidence import calibration as _calibration
from audit.review.evidence import check_reference, rescore
from audit.store import DbPath, connect
from audit.store.benchmarks import resolves_benchmark


@dataclass
class RescoreSummary:
    """What a refit did: the benchmark, the settled items it learnt from and,
    when asked, the calibration table (:func:`~audit.review.calibration`:
    ``band, n, predicted, observed, note``)."""

    benchmark: str
    n_settled: int
    calibration: pd.DataFrame | None = None
    reference: str | None = None

    def lines(self) -> list[str]:
        out = [f"{self.benchmark}: key-error score refitted with {self.n_settled} settled item(s)"]
        if self.calibration is not None:
            tab = self.calibration
            what = f"reference labels '{self.reference}'" if self.reference else "settled items"
            out.append(f"reliability per score band on {what} (items, mean score, share found wrong, Wilson 95%):"
                       if len(tab) else "no settled items yet")
            out += [f"  {r.band}  n={r.n:<5} mean score {r.predicted:.3f}  found wrong {r.observed:.3f} "
                    f"[{r.low:.3f}, {r.high:.3f}]  {r.note}".rstrip() for r in tab.itertuples()]
            a = tab.attrs
            if len(tab) and a:
                out.append(
                    f"Brier score {a['brier']:.4f} over {a['n']} items; expected wrong keys {a['expected']:.1f}, "
                    f"found {a['observed']}"
                )
        return out


@resolves_benchmark
def rescore_benchmark(benchmark: str | None = None, *, calibration: bool = False, reference: str | None = None,
                      db: DbPath = None, actor=None) -> RescoreSummary:
    """:func:`~audit.review.rescore` on *benchmark* (None: the only one); with
    *calibration*, also :func:`~audit.review.calibration` afterwards (against
    the reference label set *reference* when given, e.g.
    ``mmlu_redux_error_type``, else the settled verdicts).  A *reference*
    the benchmark does not have is refused before anything is refitted."""
    if reference is not None:
        with connect(db, read_only=True) as con:
            check_reference(con, benchmark, reference)
    n = rescore(benchmark, db=db, actor=actor)
    return RescoreSummary(benchmark=benchmark, n_settled=n, reference=reference,
                          calibration=_calibration(benchmark, db=db, reference=reference) if calibration else None)


__all__ = ["RescoreSummary", "rescore_benchmark"]
