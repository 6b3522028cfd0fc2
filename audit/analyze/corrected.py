"""How much the keys the experts corrected change model scores.

Per model, conditional accuracy (correct / valid answers) with a Wilson 95%
interval (statsmodels ``proportion_confint(method="wilson")``, through
:func:`audit.analyze.model_metrics`) on

* the **original** keys, all items; and
* the **expert-corrected** keys: items whose settled verdict is ``key_wrong``
  are scored against the corrected answer, items settled as ``ambiguous`` or
  ``defective`` are left out, every other item keeps its original key
  (settlement rule: :mod:`audit.review.status`).

``difference_points`` = (corrected − original) × 100.
"""
from __future__ import annotations

import pandas as pd

_KEEP = ["n_valid", "n_correct", "conditional_accuracy", "conditional_accuracy_low", "conditional_accuracy_high"]


def corrected_keys(benchmark: str, *, db=None) -> tuple[pd.DataFrame, set[str]]:
    """(keys, exclude) from the settled verdicts: ``keys`` is
    DataFrame[question_id, answer_key] of corrected answers (settled
    key_wrong), ``exclude`` the ids settled as ambiguous or defective."""
    from audit.review.status import settled_verdicts

    s = settled_verdicts(benchmark, db=db)
    wrong = s[s["verdict"] == "key_wrong"]
    keys = pd.DataFrame({"question_id": wrong["question_id"].astype(str).tolist(),
                         "answer_key": wrong["corrected_answer"].astype(str).tolist()})
    exclude = set(s.loc[s["verdict"].isin(["ambiguous", "defective"]), "question_id"].astype(str))
    return keys, exclude


def corrected_key_accuracy(benchmark: str, *, models=None, confidence: float = 0.95, db=None) -> pd.DataFrame:
    """Per model: conditional accuracy on the original and on the
    expert-corrected keys, with Wilson intervals, and the difference.

    Columns: ``model, family``; ``n_valid_original, n_correct_original,
    accuracy_original, accuracy_original_low, accuracy_original_high``; the
    same with ``_corrected``; ``difference_points``.  ``df.attrs`` holds
    ``n_corrected`` (keys replaced) and ``n_excluded`` (items left out).
    Accuracies are fractions in [0, 1]; the difference is in points.
    """
    from audit.analyze.metrics import model_metrics

    keys, exclude = corrected_keys(benchmark, db=db)
    orig = model_metrics(benchmark, db=db, models=models, confidence=confidence)
    corr = model_metrics(benchmark, db=db, models=models, keys=keys if len(keys) else None,
                         exclude=exclude or None, confidence=confidence)

    def pick(df: pd.DataFrame, suffix: str) -> pd.DataFrame:
        out = df[["model", "family"] + _KEEP].copy()
        return out.rename(columns={
            "n_valid": f"n_valid_{suffix}", "n_correct": f"n_correct_{suffix}",
            "conditional_accuracy": f"accuracy_{suffix}",
            "conditional_accuracy_low": f"accuracy_{suffix}_low",
            "conditional_accuracy_high": f"accuracy_{suffix}_high",
        })

    df = pick(orig, "original").merge(pick(corr, "corrected").drop(columns="family"), on="model", how="outer")
    df["difference_points"] = (df["accuracy_corrected"] - df["accuracy_original"]) * 100.0
    df = df.sort_values("model").reset_index(drop=True)
    df.attrs["n_corrected"] = int(len(keys))
    df.attrs["n_excluded"] = int(len(exclude))
    return df
