"""What new models' answers changed: the items whose evidence moved since a
key version (``audit review changes``).

Why: a benchmark lives on — new models are imported or run, ``audit
analyze`` refits the key-error score — and nothing said what the new answers
change.  Settled verdicts must stand (an expert decided, having seen the
evidence of the time), yet a key the new evidence now strongly rejects
deserves a second look, and an unsettled item may enter or leave the queue.

The comparison is between two audit runs of the benchmark:

* **before**: the audit run recorded in the manifest of the version *since*
  (default: the latest exported version; with no version, the run before
  the latest).  For a settled item, the run in effect when its verdict was
  settled, if that is later: an expert who settled an item after the new
  models came in has already seen their answers.
* **after**: the latest audit run.

Each run stores, per item, the fitted key-error score (``score``, the
probability that the key is wrong) and the posterior of the answer the
models hold true (``p_reject`` = P(it is not the key), ``alternative`` and
``p_alternative``: the most likely other option and its probability).

* ``entered_queue`` / ``left_queue`` (unsettled items): the item meets the
  queue entry rule after but not before (or the reverse).  The rule is the
  campaign's queue entry setting (:mod:`audit.review.campaign`: tiers or a
  key-error threshold); with none set, the queue's default view: Tier 1–2
  (:data:`DEFAULT_TIERS`).
* ``reopened`` (settled ``key_correct`` or ``key_wrong`` items): the
  probability that the models hold another answer than the **settled** key
  crossed :data:`REOPEN_THRESHOLD` upward.  For a key settled correct it is
  ``p_reject``; for a key corrected to X it is 1 − P(the models hold X):
  1 − ``p_alternative`` when X is the alternative, else at least
  1 − min(``p_alternative``, ``p_reject`` − ``p_alternative``) (X shares the
  mass left to the other options).  The settled verdict is not touched: the
  item is listed, and its page says why, until a lead reviews it again.

Nothing is written: the comparison is recomputed from the stored runs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from audit.errors import NotFoundError
from audit.i18n import translate
from audit.review._status import review_status, settled_verdicts
from audit.review.campaign import queue_entry_from
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

#: The tiers of the queue's default view: an unsettled item is counted in the queue by them when no
#: queue entry rule is set (:func:`audit.review.review_queue` shows Tier 1–2 unless told otherwise).
DEFAULT_TIERS = (1, 2)
#: Probability that the models hold another answer than the settled key at which a settled item is reopened.
REOPEN_THRESHOLD = 0.9
#: Codes of ``change``.
CHANGES = ("reopened", "entered_queue", "left_queue")
#: Columns of :func:`review_changes` (the JSON rows of ``audit review changes`` are the first three).
CHANGE_COLUMNS = ["question_id", "change", "reason", "before", "after", "tier_before", "tier_after", "threshold",
                  "settled_verdict", "settled_key", "run_before", "run_after", "new_models"]
JSON_COLUMNS = CHANGE_COLUMNS[:3]


@dataclass(frozen=True)
class Baseline:
    """The run the comparison starts from and what it is named after."""

    run_id: int | None
    since: str | None        # the version, or None (the previous run)


def _runs(con, benchmark: str) -> pd.DataFrame:
    try:
        return con.execute(
            "SELECT run_id, models, timezone('UTC', created_at::TIMESTAMPTZ) AS created_utc FROM audit_runs "
            "WHERE benchmark = ? ORDER BY run_id", [benchmark]).df()
    except Exception:   # a build without time zone support: the stored time as it is
        return con.execute("SELECT run_id, models, created_at AS created_utc FROM audit_runs WHERE benchmark = ? "
                           "ORDER BY run_id", [benchmark]).df()


def _version_run(con, benchmark: str, version: str, runs: pd.DataFrame) -> int | None:
    row = con.execute("SELECT path, created_at FROM key_versions WHERE benchmark = ? AND version = ?",
                      [benchmark, version]).fetchone()
    if row is None:
        raise NotFoundError(f"'{benchmark}' has no version {version}; see 'audit export list {benchmark}'")
    try:
        m = json.loads((Path(row[0]) / "manifest.json").read_text(encoding="utf-8"))
        return (m.get("audit_run") or {}).get("run_id")
    except (OSError, ValueError):   # the folder is gone: the last run created before the version
        before = runs[runs["created_utc"] <= row[1]]
        return int(before["run_id"].iloc[-1]) if len(before) else None


def _version_order(version: str) -> tuple[int, ...]:
    """Numeric order of version names (``1.10`` after ``1.9``).

    >>> sorted(["1.10", "1.9", "1.0"], key=_version_order)
    ['1.0', '1.9', '1.10']
    """
    parts = [int(p) for p in version.split(".") if p.isdigit()]
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def baseline(benchmark: str, since: str | None = None, *, db: DbPath = None) -> Baseline:
    """The run *since* names (see the module docstring)."""
    with connect(db, read_only=True) as con:
        runs = _runs(con, benchmark)
        if since is not None:
            return Baseline(_version_run(con, benchmark, since, runs), since)
        versions = sorted((r[0] for r in con.execute("SELECT version FROM key_versions WHERE benchmark = ?",
                                                     [benchmark]).fetchall()), key=_version_order)
        if versions:
            return Baseline(_version_run(con, benchmark, versions[-1], runs), versions[-1])
    return Baseline(int(runs["run_id"].iloc[-2]) if len(runs) >= 2 else None, None)


def _scores(con, run_id: int) -> pd.DataFrame:
    return con.execute(
        "SELECT s.question_id, s.score, coalesce(s.p_reject, s.score) AS p_reject, s.alternative, s.p_alternative, "
        "r.tier FROM key_error_scores s LEFT JOIN audit_results r ON r.run_id = s.run_id "
        "AND r.question_id = s.question_id WHERE s.run_id = ?", [run_id]).df()


def _flagged(df: pd.DataFrame, entry) -> np.ndarray:
    """The queue entry rule over ``score``, ``tier``, ``subject``."""
    tiers = entry.tiers if entry.tiers is not None or entry.min_key_error is not None else DEFAULT_TIERS
    ok = np.zeros(len(df), bool)
    if tiers is not None:
        ok |= df["tier"].isin(list(tiers)).to_numpy()
    if entry.min_key_error is not None:
        ok |= df["score"].fillna(-1).to_numpy() >= entry.min_key_error
    if entry.subjects is not None:
        ok &= df["subject"].isin(list(entry.subjects)).to_numpy()
    return ok


def _rule_words(entry, lang: str) -> str:
    """The queue's entry rule in words."""
    tiers = entry.tiers if entry.tiers is not None or entry.min_key_error is not None else DEFAULT_TIERS
    parts = []
    if tiers is not None:
        parts.append(translate("changes.rule_tiers", lang, tiers=", ".join(str(t) for t in tiers)))
    if entry.min_key_error is not None:
        parts.append(translate("changes.rule_score", lang, threshold=_p(entry.min_key_error)))
    return parts[0] if len(parts) == 1 else translate("changes.rule_or", lang, a=parts[0], b=parts[1])


def _tier(x) -> str:
    return "–" if x is None or pd.isna(x) else str(int(x))


def against_settled_key(settled_key, original_key, p_reject, alternative, p_alternative) -> float:
    """P(the models hold another answer than *settled_key*) from a run's
    stored posterior summary (see the module docstring).

    >>> against_settled_key("A", "A", 0.3, "B", 0.2)          # the original key stands
    0.3
    >>> round(against_settled_key("B", "A", 0.97, "B", 0.95), 2)   # corrected to the alternative
    0.05
    >>> round(against_settled_key("C", "A", 0.97, "B", 0.95), 2)   # corrected to another option
    0.98
    """
    if p_reject is None or pd.isna(p_reject):
        return float("nan")
    if settled_key == original_key:
        return float(p_reject)
    pa = 0.0 if p_alternative is None or pd.isna(p_alternative) else float(p_alternative)
    if settled_key == alternative:
        return 1.0 - pa
    return 1.0 - min(pa, max(float(p_reject) - pa, 0.0))


def _settled_runs(settled: pd.DataFrame, runs: pd.DataFrame) -> pd.Series:
    """Per settled item, the run in effect when it was settled (NaN: before any run)."""
    if settled.empty or runs.empty:
        return pd.Series(np.nan, index=settled.index)
    t = pd.to_datetime(runs["created_utc"]).to_numpy()
    at = pd.to_datetime(settled["last_reviewed_at"]).to_numpy()
    pos = np.searchsorted(t, at, side="right") - 1
    ids = runs["run_id"].to_numpy()
    return pd.Series(np.where(pos >= 0, ids[np.clip(pos, 0, None)], np.nan), index=settled.index)


def review_changes(benchmark: str | None = None, *, since: str | None = None, db: DbPath = None,
                   lang: str = "en") -> pd.DataFrame:
    """The items whose evidence moved since *since* (a version; default the
    latest, or the previous audit run): columns :data:`CHANGE_COLUMNS`, one
    row per item, reopened items first, then by question id.  ``reason``
    says why in *lang*.  Empty when there is nothing to compare (no earlier
    run)."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
    base = baseline(benchmark, since, db=db)
    status = review_status(benchmark, db=db)
    settled = settled_verdicts(benchmark, db=db)
    with connect(db, read_only=True) as con:
        runs = _runs(con, benchmark)
        if runs.empty or base.run_id is None:
            return pd.DataFrame(columns=CHANGE_COLUMNS)
        after_id = int(runs["run_id"].iloc[-1])
        entry = queue_entry_from(con)
        q = con.execute("SELECT question_id, subject, answer_key FROM questions WHERE benchmark = ? ORDER BY seq",
                        [benchmark]).df()
        cache = {rid: _scores(con, rid) for rid in {after_id, int(base.run_id)}}
        models = {int(r): set(m) for r, m in zip(runs["run_id"], runs["models"])}

        def scores(run_id: int) -> pd.DataFrame:
            if run_id not in cache:
                cache[run_id] = _scores(con, run_id)
            return cache[run_id]

        if after_id == base.run_id:
            return pd.DataFrame(columns=CHANGE_COLUMNS)
        since_words = base.since or translate("changes.previous_run", lang)
        rows: list[dict] = []
        # unsettled items: the queue entry rule before and after
        a = q.merge(scores(int(base.run_id)), on="question_id", how="left")
        b = q.merge(scores(after_id), on="question_id", how="left")
        fa, fb = _flagged(a, entry), _flagged(b, entry)
        done = set(status.loc[status["status"] == "done", "question_id"])
        new = sorted(models[after_id] - models.get(int(base.run_id), set()))
        thr = entry.min_key_error
        rule = _rule_words(entry, lang)
        for i, qid in enumerate(q["question_id"]):
            if qid in done or fa[i] == fb[i]:
                continue
            change = "entered_queue" if fb[i] else "left_queue"
            before, after = a["score"].iloc[i], b["score"].iloc[i]
            tb, ta = a["tier"].iloc[i], b["tier"].iloc[i]
            rows.append({"question_id": qid, "change": change, "before": before, "after": after,
                         "tier_before": None if pd.isna(tb) else int(tb),
                         "tier_after": None if pd.isna(ta) else int(ta),
                         "threshold": thr, "settled_verdict": None, "settled_key": None, "run_before": int(base.run_id),
                         "run_after": after_id, "new_models": len(new),
                         "reason": translate(f"changes.{change}", lang, before=_p(before), after=_p(after),
                                             tier_before=_tier(tb), tier_after=_tier(ta), rule=rule, n=len(new),
                                             since=since_words)})
        # settled items: evidence strong against the settled key
        s = settled[settled["verdict"].isin(["key_correct", "key_wrong"])].copy()
        s = s.merge(q[["question_id", "answer_key"]].rename(columns={"answer_key": "original_key"}), on="question_id")
        s["settled_key"] = np.where(s["verdict"] == "key_wrong", s["corrected_answer"], s["original_key"])
        at_settle = _settled_runs(s, runs)
        sb = scores(after_id).set_index("question_id")
        for (_, r), r_settle in zip(s.iterrows(), at_settle):
            start = int(base.run_id) if pd.isna(r_settle) else max(int(base.run_id), int(r_settle))
            if start == after_id or r["question_id"] not in sb.index:
                continue
            sa = scores(start).set_index("question_id")
            if r["question_id"] not in sa.index:
                continue
            x, y = sa.loc[r["question_id"]], sb.loc[r["question_id"]]
            before = against_settled_key(r["settled_key"], r["original_key"], x["p_reject"], x["alternative"],
                                         x["p_alternative"])
            after = against_settled_key(r["settled_key"], r["original_key"], y["p_reject"], y["alternative"],
                                        y["p_alternative"])
            if not (after >= REOPEN_THRESHOLD and not before >= REOPEN_THRESHOLD):
                continue
            n_new = len(models[after_id] - models.get(start, set()))
            rows.append({"question_id": r["question_id"], "change": "reopened", "before": before, "after": after,
                         "tier_before": None, "tier_after": None, "threshold": REOPEN_THRESHOLD,
                         "settled_verdict": r["verdict"],
                         "settled_key": r["settled_key"], "run_before": start, "run_after": after_id,
                         "new_models": n_new,
                         "reason": translate("changes.reopened", lang, key=r["settled_key"], before=_p(before),
                                             after=_p(after), threshold=_p(REOPEN_THRESHOLD), n=n_new,
                                             since=since_words)})
    df = pd.DataFrame(rows, columns=CHANGE_COLUMNS)
    order = {c: i for i, c in enumerate(CHANGES)}
    return df.sort_values(["change", "question_id"], key=lambda c: c.map(order) if c.name == "change" else c
                          ).reset_index(drop=True)


def _p(x) -> str:
    return "–" if x is None or pd.isna(x) else f"{float(x):.2f}"


def item_change(benchmark: str, question_id: str, *, since: str | None = None, db: DbPath = None,
                lang: str = "en") -> dict | None:
    """The change of one item (a row of :func:`review_changes` as a dict),
    or None: what its page shows."""
    df = review_changes(benchmark, since=since, db=db, lang=lang)
    hit = df[df["question_id"] == question_id]
    return None if hit.empty else hit.iloc[0].to_dict()


__all__ = ["DEFAULT_TIERS", "REOPEN_THRESHOLD", "CHANGES", "CHANGE_COLUMNS", "JSON_COLUMNS", "Baseline",
           "baseline", "against_settled_key", "review_changes", "item_change"]
