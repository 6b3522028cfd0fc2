"""Model scores tied to key versions: every model's accuracy under every
exported answer-key version of a benchmark, and under the working keys (the
settled verdicts not yet exported, default policy).

Why: a corrected key changes a model's score although the model answered
nothing differently.  Users of a benchmark need to know which published
figures a new version moves, and by how much, and must not read that move as
a change of the model.  So each row is labelled with its version, the
change from the previous version is a *key correction*, and the figures of a
version that a later one replaced are marked ``superseded``.

Scoring a version: the items of the version that it includes (an item the
version excludes, or one added to the benchmark after the version was
exported, is left out), each scored against the version's key (the
``key_version_items`` rows), with the model answers stored *now* — so a model
imported after a version was exported is scored on every version.  Counting
is :func:`audit.analyze.model_metrics` (DuckDB SQL); the intervals are Wilson
95% intervals (statsmodels ``proportion_confint(method="wilson")``, through
:func:`audit.analyze.wilson_interval`).

* ``accuracy`` = correct / items in the version, with ``accuracy_low`` /
  ``accuracy_high``; ``conditional_accuracy`` = correct / valid answers;
* ``change_points`` = (accuracy − the model's accuracy under the previous
  version) × 100, None on the first version;
* ``superseded``: a later version was exported (never for ``working``).

>>> import tempfile, os
>>> from audit.demo import build_demo
>>> from audit.export import create_version
>>> tmp = tempfile.mkdtemp(); db = os.path.join(tmp, "d.duckdb"); _ = build_demo(db)
>>> _ = create_version("demo", "1.1", db=db, exports_dir=os.path.join(tmp, "exports"))
>>> s = version_scores("demo", db=db)
>>> sorted(set(s["version"])), list(s.columns) == SCORE_COLUMNS
(['1.0', '1.1', 'working'], True)
>>> bool(s.loc[s["version"] == "1.0", "superseded"].all())
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from audit.analyze import model_metrics
from audit.errors import NotFoundError
from audit.export._corrected import keys_from_items, version_items
from audit.export.names import validate_benchmark, version_key
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

#: The version name of the keys the settled verdicts give now (not exported).
WORKING = "working"

#: Columns of :func:`version_scores` (the JSON rows of ``audit report scores``).
SCORE_COLUMNS = ["model", "version", "accuracy", "accuracy_low", "accuracy_high", "conditional_accuracy",
                 "n_valid", "n_items", "change_points", "superseded"]


@dataclass(frozen=True)
class KeySet:
    """One version's keys: ``keys`` DataFrame[question_id, answer_key] of the
    items it scores against another key than the stored one, ``exclude`` the
    ids it leaves out."""

    version: str
    keys: pd.DataFrame
    exclude: frozenset[str]
    superseded: bool = False


def _recorded_keysets(con, benchmark: str) -> list[KeySet]:
    """Every exported version of *benchmark*, oldest first."""
    versions = sorted((r[0] for r in con.execute(
        "SELECT version FROM key_versions WHERE benchmark = ?", [benchmark]).fetchall()), key=version_key)
    rows = con.execute(
        "SELECT version, question_id, answer_key, included FROM key_version_items WHERE benchmark = ?",
        [benchmark]).df()
    all_ids = {r[0] for r in con.execute("SELECT question_id FROM questions WHERE benchmark = ?",
                                         [benchmark]).fetchall()}
    out = []
    for i, v in enumerate(versions):
        part = rows[rows["version"] == v]
        inside = set(part["question_id"].astype(str))
        keyed = part[part["included"].astype(bool) & part["answer_key"].notna()]
        keys = pd.DataFrame({"question_id": keyed["question_id"].astype(str).tolist(),
                             "answer_key": keyed["answer_key"].astype(str).tolist()})
        keys = keys[keys["question_id"].isin(all_ids)]
        exclude = set(part.loc[~part["included"].astype(bool), "question_id"].astype(str)) | (all_ids - inside)
        out.append(KeySet(v, keys.reset_index(drop=True), frozenset(exclude), superseded=i < len(versions) - 1))
    return out


def keyset_from_items(version: str, items: pd.DataFrame, *, superseded: bool = False) -> KeySet:
    """The :class:`KeySet` of derived items (:func:`audit.export._derive.derive_items`
    rows): a version being created, or the working keys."""
    keys, exclude = keys_from_items(items)
    return KeySet(version, keys, frozenset(exclude), superseded)


def scores_for(benchmark: str, keysets: list[KeySet], *, models=None, db: DbPath = None) -> pd.DataFrame:
    """:data:`SCORE_COLUMNS` for each key set in order (``change_points``
    from the previous key set of the list), rows by version then model."""
    frames = []
    for ks in keysets:
        try:
            m = model_metrics(benchmark, db=db, models=models, keys=ks.keys if len(ks.keys) else None,
                              exclude=set(ks.exclude) or None)
        except NotFoundError:       # no model answers yet: nothing to score
            return pd.DataFrame(columns=SCORE_COLUMNS)
        frames.append(pd.DataFrame({
            "model": m["model"], "version": ks.version, "accuracy": m["accuracy"],
            "accuracy_low": m["accuracy_low"], "accuracy_high": m["accuracy_high"],
            "conditional_accuracy": m["conditional_accuracy"], "n_valid": m["n_valid"].astype(int),
            "n_items": m["n_questions"].astype(int), "superseded": bool(ks.superseded)}))
    if not frames:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    df = pd.concat(frames, ignore_index=True)
    prev = df.groupby("model", sort=False)["accuracy"].shift(1)
    df["change_points"] = (df["accuracy"] - prev) * 100.0
    df["change_points"] = df["change_points"].astype(object).where(df["change_points"].notna(), None)
    return df[SCORE_COLUMNS].reset_index(drop=True)


def version_scores(benchmark: str | None = None, *, models=None, working: bool = True,
                   db: DbPath = None) -> pd.DataFrame:
    """Every model with predictions, scored under every exported version of
    *benchmark* (oldest first) and, with ``working=True``, under the working
    keys (version ``working``: what the default policy derives from the
    verdicts settled now).  Columns :data:`SCORE_COLUMNS`; see the module
    docstring for the definitions.  ``models``: restrict to these."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        keysets = _recorded_keysets(con, benchmark)
    validate_benchmark(benchmark)
    if working:
        keysets.append(keyset_from_items(WORKING, version_items(benchmark, db=db)))
    return scores_for(benchmark, keysets, models=models, db=db)


def scores_with_new_version(benchmark: str, version: str, items: pd.DataFrame, *,
                            db: DbPath = None) -> pd.DataFrame:
    """The scores of every exported version and of *version*, a version
    being created from the derived *items* (its DATASHEET's table): every
    earlier version is superseded by it."""
    with connect(db, read_only=True) as con:
        keysets = [KeySet(k.version, k.keys, k.exclude, True) for k in _recorded_keysets(con, benchmark)]
    return scores_for(benchmark, keysets + [keyset_from_items(version, items)], db=db)


def _pct(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def scores_markdown(df: pd.DataFrame, escape=lambda s: str(s)) -> list[str]:
    """The table as Markdown lines (one row per model × version), the change
    labelled as a key correction; *escape* makes untrusted names safe."""
    head = ["Model", "Version", "Accuracy [95% CI]", "Conditional accuracy", "Valid / items",
            "Change (key correction, points)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in df.itertuples():
        version = escape(r.version) + (" (superseded)" if r.superseded else "")
        change = "–" if r.change_points is None or pd.isna(r.change_points) else f"{r.change_points:+.1f}"
        lines.append("| " + " | ".join([
            escape(r.model), version, f"{_pct(r.accuracy)} [{_pct(r.accuracy_low)}, {_pct(r.accuracy_high)}]",
            _pct(r.conditional_accuracy), f"{int(r.n_valid)} / {int(r.n_items)}", change]) + " |")
    return lines


__all__ = ["WORKING", "SCORE_COLUMNS", "KeySet", "keyset_from_items", "scores_for", "version_scores",
           "scores_with_new_version", "scores_markdown"]
