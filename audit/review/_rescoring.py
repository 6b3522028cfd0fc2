"""``audit rescore`` in one call: refit the key-error score with the settled
expert verdicts and, on request, the calibration table."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from audit._sql import resolves_benchmark
from audit.review._evidence import calibration as _calibration
from audit.review._evidence import rescore
from audit.store import DbPath


@dataclass
class RescoreSummary:
    """What a refit did: the benchmark, the settled items it learnt from and,
    when asked, the calibration table (:func:`~audit.review.calibration`:
    ``band, n, predicted, observed, note``)."""

    benchmark: str
    n_settled: int
    calibration: pd.DataFrame | None = None

    def lines(self) -> list[str]:
        out = [f"{self.benchmark}: key-error score refitted with {self.n_settled} settled item(s)"]
        if self.calibration is not None:
            tab = self.calibration
            out.append("predicted vs observed wrong-key rate on settled items:" if len(tab) else "no settled items yet")
            out += [f"  {r.band}  n={r.n:<5} predicted {r.predicted:.3f}  observed {r.observed:.3f}  {r.note}"
                    for r in tab.itertuples()]
        return out


@resolves_benchmark
def rescore_benchmark(benchmark: str | None = None, *, calibration: bool = False, db: DbPath = None) -> RescoreSummary:
    """:func:`~audit.review.rescore` on *benchmark* (None: the only one); with
    *calibration*, also :func:`~audit.review.calibration` afterwards."""
    n = rescore(benchmark, db=db)
    return RescoreSummary(benchmark=benchmark, n_settled=n,
                          calibration=_calibration(benchmark, db=db) if calibration else None)
