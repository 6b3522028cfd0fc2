"""How well the key-error score is calibrated: predicted against observed
rates of wrong keys, per score band."""
from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from audit.analyze._stats import wilson_interval


def calibration_table(predicted: ArrayLike, observed: ArrayLike, *,
                      bins: tuple[float, ...] = (0.0, 0.02, 0.1, 0.3, 0.6, 0.9, 1.0)) -> pd.DataFrame:
    """Predicted vs observed rate of wrong keys per score band.

    Columns: band ("0.10–0.30"), n, predicted (mean score), observed (share
    of wrong keys), low / high (Wilson 95% interval of the observed share),
    note ("too few items" when n < 10: the observed share means little).

    >>> t = calibration_table([0.01, 0.01, 0.95, 0.97], [False, False, True, True])
    >>> t[["band", "n", "observed"]].values.tolist()
    [['0.00–0.02', 2, 0.0], ['0.90–1.00', 2, 1.0]]
    """
    p = np.asarray(predicted, dtype=float)
    o = np.asarray(observed, dtype=bool)
    ok = ~np.isnan(p)
    p, o = p[ok], o[ok]
    edges = np.asarray(bins, dtype=float)
    band = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
    rows = []
    for b in np.unique(band):
        m = band == b
        k, n = int(o[m].sum()), int(m.sum())
        lo, hi = wilson_interval(k, n)
        rows.append((f"{edges[b]:.2f}–{edges[b + 1]:.2f}", n, float(p[m].mean()), k / n, lo, hi,
                     "too few items" if n < 10 else ""))
    return pd.DataFrame(rows, columns=["band", "n", "predicted", "observed", "low", "high", "note"])
