"""Corrected keys and the original-vs-corrected accuracy: the one
implementation used by the Dashboards page, ``DATASHEET.md`` and exports.

The rule "settled verdict → corrected key under a policy" lives in
:func:`audit.export._derive.derive_items` (DuckDB SQL).  This module reads
its result:

* :func:`corrected_keys` — the keys the policy replaces and the items it
  leaves out;
* :func:`accuracy_comparison` — per model, conditional accuracy (correct /
  valid answers) with a Wilson interval (statsmodels
  ``proportion_confint(method="wilson")``, through
  :func:`audit.analyze.model_metrics`) on the **original** keys, all items,
  and on the **corrected** keys: items the policy corrects are scored
  against the corrected answer, items it excludes are left out, every other
  item keeps its original key;
* :func:`corrected_key_accuracy` — both in one call.

``difference_points`` = (corrected − original) × 100.  The default policy
(``"default"``) corrects settled ``key_wrong`` items and leaves out settled
``ambiguous`` and ``defective`` ones; see :mod:`audit.export.policy`.

>>> import tempfile, os
>>> from audit.demo import build_demo
>>> db = os.path.join(tempfile.mkdtemp(), "d.duckdb"); _ = build_demo(db)
>>> df = corrected_key_accuracy("demo", db=db)
>>> list(df.columns[:3]), len(df) == 8
(['model', 'family', 'n_valid_original'], True)
"""
from __future__ import annotations

import pandas as pd

from audit.analyze import model_metrics
from audit.analyze.inputs import latest_run_models
from audit.export._derive import derive_items
from audit.export.policy import Policy, get_policy
from audit.store import DbPath, connect

#: Columns of :func:`accuracy_comparison` / :func:`corrected_key_accuracy`.
COMPARISON_COLUMNS = [
    "model", "family",
    "n_valid_original", "n_correct_original", "accuracy_original", "accuracy_original_low", "accuracy_original_high",
    "n_valid_corrected", "n_correct_corrected", "accuracy_corrected", "accuracy_corrected_low",
    "accuracy_corrected_high", "difference_points",
]

_KEEP = ["n_valid", "n_correct", "conditional_accuracy", "conditional_accuracy_low", "conditional_accuracy_high"]


def version_items(benchmark: str, *, policy: str | Policy = "default", db: DbPath = None) -> pd.DataFrame:
    """Every item of *benchmark* with the key *policy* gives it now
    (:data:`audit.export._derive.ITEM_COLUMNS`: ``action`` is 'corrected' |
    'excluded' | 'unchanged')."""
    from audit.review import settled_verdicts

    pol = get_policy(policy)
    settled = settled_verdicts(benchmark, rule=pol.rule, db=db)
    with connect(db, read_only=True) as con:
        return derive_items(con, benchmark, pol, settled)


def keys_from_items(items: pd.DataFrame) -> tuple[pd.DataFrame, set[str]]:
    """(keys, exclude) of derived items: ``keys`` is DataFrame[question_id,
    answer_key] of the corrected items, ``exclude`` the excluded ids.

    >>> items = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "answer_key": ["B", "A", "C"],
    ...                       "action": ["corrected", "excluded", "unchanged"]})
    >>> keys, exclude = keys_from_items(items)
    >>> keys.to_dict("records"), exclude
    ([{'question_id': 'q1', 'answer_key': 'B'}], {'q2'})
    """
    corrected = items.loc[items["action"] == "corrected", ["question_id", "answer_key"]]
    keys = pd.DataFrame({"question_id": corrected["question_id"].astype(str).tolist(),
                         "answer_key": corrected["answer_key"].astype(str).tolist()})
    exclude = set(items.loc[items["action"] == "excluded", "question_id"].astype(str))
    return keys, exclude


def corrected_keys(benchmark: str, *, policy: str | Policy = "default",
                   db: DbPath = None) -> tuple[pd.DataFrame, set[str]]:
    """(keys, exclude) under *policy*: ``keys`` is DataFrame[question_id,
    answer_key] of corrected answers, ``exclude`` the ids the policy leaves
    out (settled ambiguous or defective under the default policy)."""
    return keys_from_items(version_items(benchmark, policy=policy, db=db))


def accuracy_comparison(benchmark: str, keys: pd.DataFrame, exclude: set[str], *, models: list[str] | None = None,
                        confidence: float = 0.95, db: DbPath = None) -> pd.DataFrame:
    """Per model: conditional accuracy on the original keys and on the
    original keys with *keys* replaced and *exclude* left out
    (:data:`COMPARISON_COLUMNS`, sorted by model).  Accuracies are fractions
    in [0, 1] with Wilson intervals at *confidence*; ``difference_points``
    is in points.  ``df.attrs`` holds ``n_corrected`` and ``n_excluded``."""
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
    df = df[COMPARISON_COLUMNS].sort_values("model").reset_index(drop=True)
    df.attrs["n_corrected"] = int(len(keys))
    df.attrs["n_excluded"] = int(len(exclude))
    return df


def corrected_key_accuracy(benchmark: str, *, policy: str | Policy = "default", models: list[str] | None = None,
                           confidence: float = 0.95, db: DbPath = None) -> pd.DataFrame:
    """Per model: conditional accuracy on the original and on the keys
    *policy* derives from the settled verdicts, with Wilson intervals, and
    the difference (:data:`COMPARISON_COLUMNS`).  ``models`` defaults to
    the model set of the latest audit run (all models when the benchmark
    was never analysed), as in ``DATASHEET.md``.  ``df.attrs`` holds
    ``n_corrected`` (keys replaced) and ``n_excluded`` (items left out)."""
    if models is None:
        with connect(db, read_only=True) as con:
            models = latest_run_models(con, benchmark)
    keys, exclude = corrected_keys(benchmark, policy=policy, db=db)
    return accuracy_comparison(benchmark, keys, exclude, models=models or None, confidence=confidence, db=db)


#: Title of the ``audit report`` section this module adds.
REPORT_TITLE = "Accuracy: original keys vs the expert-corrected keys (policy default)"


def report_section(benchmark: str, *, db: DbPath = None) -> dict[str, pd.DataFrame]:
    """The ``audit report`` section (:func:`audit.report.build_report`):
    :func:`corrected_key_accuracy` under the default policy, only when the
    policy corrects or excludes at least one item."""
    df = corrected_key_accuracy(benchmark, db=db)
    if not (df.attrs["n_corrected"] or df.attrs["n_excluded"]):
        return {}
    return {REPORT_TITLE: df}
