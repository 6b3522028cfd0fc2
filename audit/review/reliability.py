"""How far each reviewer can be trusted: their accuracy on known-answer
items, their agreement with settled verdicts, and a Dawid–Skene estimate
from everyone's verdicts; overall, per language and per subject.

One row per reviewer (:data:`RELIABILITY_COLUMNS`):

* ``n_gold`` known-answer items answered (each reviewer's first verdict on
  the item after it was marked, :mod:`audit.review.trust`), and
  ``gold_accuracy`` — the share answered rightly, with the 95% Wilson
  interval ``gold_accuracy_low`` – ``gold_accuracy_high``
  (:func:`audit.analyze.wilson_interval`; Wilson 1927);
* ``n_verdicts`` — items with a current verdict of theirs;
* ``agreement`` — the share of their current verdicts that name the settled
  opinion, over the settled items other than known-answer ones whose
  settlement does not rest on their verdict alone (adjudicated, or with at
  least two current verdicts); NaN when there is none;
* ``estimated_accuracy`` — ``Σ_k π_k θ[k, k]`` of the Dawid–Skene model
  (Dawid & Skene 1979; :mod:`audit.review.dawid_skene`) fitted to every
  reviewer's current verdict (classes: the four verdicts; the key-wrong
  answer letters are not told apart), the known-answer items clamped to
  their known verdict;
* ``flagged`` — the upper end of the 95% interval is below the campaign's
  threshold (``flag_below``, default 0.8: even the most favourable reading
  of their record says they are wrong more than one time in five), once
  they answered ``flag_min_gold`` known-answer items (default 5), and
  ``reason`` (:data:`audit.vocab.RELIABILITY_REASONS`): ``below_threshold``;
  ``no_gold`` or ``few_gold`` (fewer than :data:`MIN_GOLD` known-answer
  items: not flagged, and not enough to say they are fine); ``ok``.

Per language or subject (:func:`reliability_by`) the same columns are given
for each reviewer and group; a group where the reviewer answered fewer than
:data:`MIN_GOLD` known-answer items says ``few_gold`` and is never flagged.

The table is computed by pure functions on DataFrames
(:func:`reliability_table`); :func:`reviewer_reliability` reads them from
the database.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from audit.analyze import wilson_interval
from audit.review._status import settled_verdicts
from audit.review.dawid_skene import dawid_skene
from audit.review.trust import GOLD_RECORD_CTES, trust_from
from audit.store import DbPath, connect
from audit.store.benchmarks import resolves_benchmark

RELIABILITY_COLUMNS = ["reviewer", "n_gold", "gold_accuracy", "gold_accuracy_low", "gold_accuracy_high",
                       "n_verdicts", "agreement", "estimated_accuracy", "flagged", "reason"]
#: Known-answer items a reviewer must have answered (in a group) before the
#: table says anything but ``few_gold``.
MIN_GOLD = 10
#: The verdict classes of the Dawid–Skene fit.
DS_CLASSES = ["key_correct", "key_wrong", "ambiguous", "defective"]
GROUPINGS = ("language", "subject")


def gold_accuracy(answers: pd.DataFrame, *, flag_below: float = 0.8, flag_min_gold: int = 5,
                  min_gold: int = MIN_GOLD) -> pd.DataFrame:
    """Per reviewer: ``n_gold, n_right, gold_accuracy, gold_accuracy_low,
    gold_accuracy_high, flagged, reason`` from ``answers`` (one row per
    answer: ``reviewer, is_right``).

    >>> df = gold_accuracy(pd.DataFrame({"reviewer": ["a"] * 20 + ["b"] * 3,
    ...                                  "is_right": [True] * 11 + [False] * 9 + [True] * 3}))
    >>> df[["reviewer", "n_gold", "gold_accuracy", "flagged", "reason"]].values.tolist()
    [['a', 20, 0.55, True, 'below_threshold'], ['b', 3, 1.0, False, 'few_gold']]
    >>> round(float(df.loc[0, "gold_accuracy_high"]), 4)
    0.7418
    """
    if answers.empty:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in (
            ("reviewer", object), ("n_gold", "int64"), ("n_right", "int64"), ("gold_accuracy", float),
            ("gold_accuracy_low", float), ("gold_accuracy_high", float), ("flagged", bool), ("reason", object))})
    g = (answers.assign(is_right=answers["is_right"].astype(bool))
         .groupby("reviewer", sort=True)["is_right"].agg(["count", "sum"]).reset_index())
    g.columns = ["reviewer", "n_gold", "n_right"]
    g["n_gold"] = g["n_gold"].astype("int64")
    g["n_right"] = g["n_right"].astype("int64")
    low, high = wilson_interval(g["n_right"].to_numpy(), g["n_gold"].to_numpy())
    g["gold_accuracy"] = g["n_right"] / g["n_gold"]
    g["gold_accuracy_low"], g["gold_accuracy_high"] = low, high
    g["flagged"] = (g["n_gold"] >= flag_min_gold) & (g["gold_accuracy_high"] < flag_below)
    g["reason"] = np.where(g["flagged"], "below_threshold", np.where(g["n_gold"] < min_gold, "few_gold", "ok"))
    return g


def agreement_with_settled(verdicts: pd.DataFrame, settled: pd.DataFrame, gold_ids) -> pd.Series:
    """Per reviewer, the share of their current verdicts (``question_id,
    reviewer, opinion``) that name the settled opinion (``settled``:
    ``question_id, opinion, adjudicated``), over settled items outside
    ``gold_ids`` adjudicated or with at least two current verdicts.

    >>> v = pd.DataFrame({"question_id": ["q1", "q1", "q2", "q3", "q3"], "reviewer": ["a", "b", "a", "a", "b"],
    ...                   "opinion": ["key_correct", "key_correct", "key_correct", "key_wrong:B", "key_correct"]})
    >>> s = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "opinion": ["key_correct"] * 3,
    ...                   "adjudicated": [False, False, True]})
    >>> agreement_with_settled(v, s, []).to_dict()      # q2 rests on a's verdict alone
    {'a': 0.5, 'b': 1.0}
    """
    n_per = verdicts.groupby("question_id")["reviewer"].transform("count")
    v = verdicts.assign(n=n_per)
    m = v.merge(settled.rename(columns={"opinion": "settled_opinion"}), on="question_id")
    m = m[~m["question_id"].isin(set(gold_ids)) & (m["adjudicated"].astype(bool) | (m["n"] >= 2))]
    if m.empty:
        return pd.Series(dtype=float)
    return (m["opinion"] == m["settled_opinion"]).groupby(m["reviewer"]).mean()


def estimated_accuracy(verdicts: pd.DataFrame, known: pd.Series) -> pd.Series:
    """The Dawid–Skene estimate per reviewer from the current verdicts
    (``question_id, reviewer, verdict``), ``known``: question_id → verdict
    class of the known-answer items."""
    if verdicts.empty:
        return pd.Series(dtype=float)
    fit = dawid_skene(verdicts, classes=DS_CLASSES, known=known, item="question_id", worker="reviewer",
                      label="verdict")
    return fit.accuracy


def reliability_table(answers: pd.DataFrame, verdicts: pd.DataFrame, settled: pd.DataFrame, known: pd.Series, *,
                      flag_below: float = 0.8, flag_min_gold: int = 5, min_gold: int = MIN_GOLD) -> pd.DataFrame:
    """The table of the module docstring from its inputs: ``answers``
    (``reviewer, is_right``), ``verdicts`` (current verdicts:
    ``question_id, reviewer, verdict, opinion``), ``settled``
    (``question_id, opinion, adjudicated``), ``known`` (question_id →
    verdict class of the known-answer items).  One row per reviewer with a
    verdict or an answer, by name."""
    reviewers = sorted(set(verdicts["reviewer"]) | set(answers["reviewer"]), key=str)
    g = gold_accuracy(answers, flag_below=flag_below, flag_min_gold=flag_min_gold, min_gold=min_gold) \
        .set_index("reviewer").reindex(reviewers)
    out = pd.DataFrame({"reviewer": pd.Series(reviewers, dtype=object)})
    out["n_gold"] = g["n_gold"].fillna(0).astype("int64").to_numpy()
    for c in ("gold_accuracy", "gold_accuracy_low", "gold_accuracy_high"):
        out[c] = g[c].astype(float).to_numpy()
    out["n_verdicts"] = verdicts.groupby("reviewer")["question_id"].nunique().reindex(reviewers).fillna(0) \
        .astype("int64").to_numpy()
    out["agreement"] = agreement_with_settled(verdicts, settled, known.index).reindex(reviewers).astype(float) \
        .to_numpy()
    out["estimated_accuracy"] = estimated_accuracy(verdicts, known).reindex(reviewers).astype(float).to_numpy()
    out["flagged"] = g["flagged"].fillna(False).astype(bool).to_numpy()
    out["reason"] = pd.Series(g["reason"].to_numpy(), dtype=object).where(out["n_gold"] > 0, "no_gold").to_numpy()
    return out[RELIABILITY_COLUMNS]


def _inputs(con, benchmark: str, db: DbPath) -> dict:
    """Everything the table needs of ``benchmark``, with each item's subject
    and language."""
    params = {"benchmark": benchmark}
    answers = con.execute(f"""
        WITH {GOLD_RECORD_CTES}
        SELECT a.reviewer, a.question_id, a.is_right, q.subject, q.language
        FROM gold_answers a JOIN questions q ON q.benchmark = $benchmark AND q.question_id = a.question_id""",
                          params).df()
    known = con.execute(f"""
        WITH {GOLD_RECORD_CTES}
        SELECT question_id, CASE WHEN gold_opinion = 'key_correct' THEN 'key_correct' ELSE 'key_wrong' END AS verdict
        FROM gold""", params).df().set_index("question_id")["verdict"]
    verdicts = con.execute("""
        SELECT r.question_id, r.reviewer, r.verdict, r.verdict || coalesce(':' || r.corrected_answer, '') AS opinion,
               q.subject, q.language
        FROM reviews r JOIN questions q ON q.benchmark = r.benchmark AND q.question_id = r.question_id
        WHERE r.benchmark = ? AND r.verdict <> 'skip' AND NOT r.is_adjudication
        QUALIFY row_number() OVER (PARTITION BY r.question_id, r.reviewer ORDER BY r.review_id DESC) = 1""",
                           [benchmark]).df()
    t = trust_from(con)
    return {"answers": answers, "known": known, "verdicts": verdicts,
            "flags": {"flag_below": t.flag_below, "flag_min_gold": t.flag_min_gold}}


def _settled(benchmark: str, db: DbPath) -> pd.DataFrame:
    s = settled_verdicts(benchmark, db=db)
    return pd.DataFrame({"question_id": s["question_id"],
                         "opinion": s["verdict"] + s["corrected_answer"].map(lambda a: f":{a}" if isinstance(a, str)
                                                                            else ""),
                         "adjudicated": s["adjudicated"].astype(bool)})


@resolves_benchmark
def reviewer_reliability(benchmark: str | None, db: DbPath = None) -> pd.DataFrame:
    """One row per reviewer of ``benchmark`` with the columns
    :data:`RELIABILITY_COLUMNS` (see the module docstring), by name."""
    settled = _settled(benchmark, db)
    with connect(db, read_only=True) as con:
        d = _inputs(con, benchmark, db)
    return reliability_table(d["answers"], d["verdicts"], settled, d["known"], **d["flags"])


@resolves_benchmark
def reliability_by(benchmark: str | None, by: str, *, min_gold: int = MIN_GOLD, db: DbPath = None) -> pd.DataFrame:
    """:func:`reviewer_reliability` per ``by`` (``language`` or
    ``subject``): the column ``by`` then :data:`RELIABILITY_COLUMNS`, one
    row per group and reviewer with a verdict in it.  A row with fewer than
    ``min_gold`` known-answer items says ``few_gold`` (or ``no_gold``) and
    is not flagged: too few to say."""
    if by not in GROUPINGS:
        raise ValueError(f"reliability by {by!r}: use one of {GROUPINGS}")
    settled = _settled(benchmark, db)
    with connect(db, read_only=True) as con:
        d = _inputs(con, benchmark, db)
    frames = []
    groups = sorted(set(d["verdicts"][by].dropna()) | set(d["answers"][by].dropna()), key=str)
    for g in groups:
        v = d["verdicts"][d["verdicts"][by] == g]
        a = d["answers"][d["answers"][by] == g]
        ids = set(v["question_id"]) | set(a["question_id"])
        t = reliability_table(a, v, settled[settled["question_id"].isin(ids)], d["known"][d["known"].index.isin(ids)],
                              min_gold=min_gold, **d["flags"])
        few = t["n_gold"] < min_gold
        t.loc[few, "flagged"] = False
        t.loc[few, "reason"] = np.where(t.loc[few, "n_gold"] > 0, "few_gold", "no_gold")
        t.insert(0, by, g)
        frames.append(t)
    if not frames:
        return pd.DataFrame(columns=[by, *RELIABILITY_COLUMNS])
    return pd.concat(frames, ignore_index=True)


@resolves_benchmark
def gold_trajectory(benchmark: str | None, db: DbPath = None) -> pd.DataFrame:
    """Each reviewer's record after each of their answers to a known-answer
    item, in the order given: ``reviewer, n_gold, n_right, gold_accuracy_low,
    gold_accuracy_high, flagged`` — when a reviewer was first flagged."""
    with connect(db, read_only=True) as con:
        t = trust_from(con)
        a = con.execute(f"WITH {GOLD_RECORD_CTES} SELECT reviewer, review_id, is_right FROM gold_answers "
                        "ORDER BY reviewer, review_id", {"benchmark": benchmark}).df()
    a["n_gold"] = a.groupby("reviewer").cumcount() + 1
    a["n_right"] = a.groupby("reviewer")["is_right"].cumsum().astype("int64")
    low, high = wilson_interval(a["n_right"].to_numpy(), a["n_gold"].to_numpy())
    a["gold_accuracy_low"], a["gold_accuracy_high"] = low, high
    a["flagged"] = (a["n_gold"] >= t.flag_min_gold) & (a["gold_accuracy_high"] < t.flag_below)
    return a[["reviewer", "n_gold", "n_right", "gold_accuracy_low", "gold_accuracy_high", "flagged"]]


__all__ = [
    "RELIABILITY_COLUMNS", "MIN_GOLD", "DS_CLASSES", "GROUPINGS", "gold_accuracy", "agreement_with_settled",
    "estimated_accuracy", "reliability_table", "reviewer_reliability", "reliability_by", "gold_trajectory",
]
