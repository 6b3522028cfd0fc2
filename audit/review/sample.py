"""The random audit sample: a count of wrong keys that does not rest on the
models.

:func:`draw_sample` draws items at random — by default stratified by
key-error score band, the likely-wrong bands oversampled (Neyman's
allocation), or by subject, or unstratified — and stores, for every item of
the benchmark, its stratum and inclusion probability *at draw time* (table
``audit_sample_frame``): the estimate uses the strata the sample was drawn
with, never ones recomputed after a rescore.  A benchmark's latest sample is
the one in use.

The drawn items enter every reviewer's queue (whatever its tier filter,
the queue entry setting or the reviewer's assignments), and nothing on the
item page, in the queue or in Label Studio tells them apart from any other
item: a reviewer who knew an item was drawn at random, and so probably
fine, would review it differently.

:func:`sampled_counts` turns the settled verdicts on drawn items into the
design-based count of wrong keys (Horvitz–Thompson with the strata's
weights, and an interval that stays honest with 0–5 wrong keys in the
sample: :func:`audit.analyze.keyerror.sampled_count`), for the benchmark
and per subject.  The same verdicts move the level of the key-error score
(:mod:`audit.review.evidence`).
"""
from __future__ import annotations

import secrets
from typing import Any

import numpy as np
import pandas as pd

from audit._util.clock import utc_now
from audit._util.sql import unregister
from audit._util.text import clean_name
from audit.accounts import require_role
from audit.analyze.keyerror import DESIGNS, draw_items, intervals_disagree, sampled_count
from audit.errors import InputError, NotFoundError
from audit.i18n import translate
from audit.review._common import run
from audit.review._status import AUDIT_CTE, DONE, base_params, status_expr, summary_ctes
from audit.review.evidence import EVIDENCE_CTE, refresh_evidence
from audit.store import DbPath, connect, transaction
from audit.store.benchmarks import resolve_benchmark

#: SQL (``$benchmark``): the items drawn in the benchmark's latest sample.
SAMPLE_ITEMS_SQL = ("(SELECT question_id FROM audit_sample_frame WHERE drawn AND sample_id = "
                    "(SELECT max(sample_id) FROM audit_samples WHERE benchmark = $benchmark))")

_FRAME_SQL = f"""
WITH {EVIDENCE_CTE}
SELECT q.question_id, coalesce(q.subject, '') AS subject, ke.key_error
FROM questions q LEFT JOIN cur_evidence ke USING (question_id)
WHERE q.benchmark = $benchmark
ORDER BY q.seq, q.question_id"""


def draw_sample(
    benchmark: str | None,
    size: int,
    *,
    seed: int | None = None,
    by: str = "band",
    actor: str | None = None,
    db: DbPath = None,
) -> list[dict]:
    """Draw ``size`` items of ``benchmark`` at random (``by``: ``band`` — the
    key-error score bands, likely-wrong bands oversampled; ``subject``;
    ``none``), store each item's stratum and inclusion probability, and
    return the drawn items as ``{"question_id", "inclusion_probability"}``
    in benchmark order.  ``seed`` makes the draw repeatable (one is chosen
    and stored when not given).  An admin's act once accounts exist.

    >>> import tempfile, os
    >>> from audit.demo import build_demo
    >>> db = os.path.join(tempfile.mkdtemp(), "d.duckdb"); _ = build_demo(db)
    >>> rows = draw_sample("demo", 20, seed=1, db=db)
    >>> len(rows), sorted(rows[0])
    (20, ['inclusion_probability', 'question_id'])
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise InputError(f"the sample size is a whole number of at least 1, not {size!r}")
    if by not in DESIGNS:
        raise InputError(f"unknown sample design '{by}' (choose one of {', '.join(DESIGNS)})")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise InputError(f"the seed is a whole number of at least 0, not {seed!r}")
    seed = secrets.randbits(32) if seed is None else int(seed)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "drawing a random audit sample")
        benchmark = resolve_benchmark(con, benchmark)
        frame = con.execute(_FRAME_SQL, {"benchmark": benchmark}).df()
        if frame.empty:
            raise NotFoundError(f"benchmark '{benchmark}' has no items")
        score = frame["key_error"].to_numpy(dtype=float)
        if by == "band" and np.isnan(score).all():
            raise InputError(f"a sample by score band needs the key-error score of '{benchmark}': run "
                             "'audit analyze' first, or draw --by subject or --by none")
        d = draw_items(score, int(size), subject=frame["subject"], by=by, seed=seed)
        run_id = con.execute("SELECT max(run_id) FROM audit_runs WHERE benchmark = ?", [benchmark]).fetchall()[0][0]
        sample_id = con.execute("SELECT coalesce(max(sample_id), 0) + 1 FROM audit_samples").fetchall()[0][0]
        con.execute("INSERT INTO audit_samples VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [sample_id, benchmark, by, len(d), seed, run_id, clean_name(actor) or None, utc_now()])
        drawn = np.zeros(len(frame), dtype=bool)
        drawn[d["item"].to_numpy()] = True
        strata, names = _strata(score, frame["subject"], by)
        n_h = np.bincount(strata[drawn], minlength=len(names))
        N_h = np.bincount(strata, minlength=len(names))
        rows = pd.DataFrame({"sample_id": sample_id, "question_id": frame["question_id"],
                             "stratum": np.asarray(names, dtype=object)[strata],
                             "inclusion_probability": (n_h / np.maximum(N_h, 1))[strata], "drawn": drawn})
        con.register("_frame", rows)
        try:
            con.execute("INSERT INTO audit_sample_frame SELECT sample_id, question_id, stratum, inclusion_probability, "
                        "drawn FROM _frame")
        finally:
            unregister(con, "_frame")
        refresh_evidence(con, benchmark)
    out = rows[rows["drawn"]]
    return [{"question_id": str(q), "inclusion_probability": float(p)}
            for q, p in zip(out["question_id"], out["inclusion_probability"])]


def _strata(score: np.ndarray, subject: pd.Series, by: str) -> tuple[np.ndarray, list[str]]:
    from audit.analyze.keyerror import strata_of

    h, names = strata_of(score, subject, by=by)
    return np.asarray(h, dtype=np.int64), names


_SETTLED_SQL = f"""
WITH {summary_ctes(full=True)}, {AUDIT_CTE}
SELECT f.question_id, coalesce(q.subject, '') AS subject, f.stratum, f.drawn,
       {status_expr()} = '{DONE}' AS settled, s.verdict
FROM audit_sample_frame f
JOIN questions q ON q.benchmark = $benchmark AND q.question_id = f.question_id
LEFT JOIN review_summary s ON s.question_id = f.question_id
LEFT JOIN cur_audit a ON a.question_id = f.question_id
WHERE f.sample_id = $sample_id
ORDER BY q.seq, f.question_id"""


def sample_frame(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """The benchmark's latest sample frame: question_id, subject, stratum,
    drawn, settled (a settled verdict), verdict — every item of the
    benchmark when the sample was drawn; empty without a sample."""
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        sid = _latest_sample(con, benchmark)
        if sid is None:
            return pd.DataFrame(columns=["question_id", "subject", "stratum", "drawn", "settled", "verdict"])
        params = {**base_params(con, benchmark), "sample_id": sid}
        df = run(con, _SETTLED_SQL, params).df()
        design = con.execute("SELECT design FROM audit_samples WHERE sample_id = ?", [sid]).fetchall()[0][0]
    df["settled"] = df["settled"].fillna(False).astype(bool)
    df.attrs["design"] = design
    return df


def _latest_sample(con: Any, benchmark: str) -> int | None:
    try:
        row = con.execute("SELECT max(sample_id) FROM audit_samples WHERE benchmark = ?", [benchmark]).fetchall()
    except Exception:   # a file opened read-only before its migration
        return None
    return row[0][0] if row and row[0][0] is not None else None


def sampled_counts(benchmark: str | None = None, *, level: float = 0.9, db: DbPath = None) -> dict:
    """The design-based count of wrong keys from the settled verdicts on the
    latest sample's items: ``benchmark`` {estimate, low, high, n_sampled,
    n_settled} — null figures and a plain ``reason`` when no drawn item is
    settled — and ``by_subject`` (a list of the same with ``subject``),
    ``design`` and ``level``."""
    df = sample_frame(benchmark, db=db)
    if df.empty:
        empty = {"estimate": None, "low": None, "high": None, "n_sampled": 0, "n_settled": 0,
                 "reason": translate("sample.reason.no_sample", "en")}
        return {"benchmark": empty, "by_subject": [], "design": None, "level": level}
    codes, _ = pd.factorize(df["stratum"])
    drawn = df["drawn"].to_numpy(bool)
    settled = df["settled"].to_numpy(bool)
    wrong = (df["verdict"] == "key_wrong").to_numpy()

    def one(domain: np.ndarray | None) -> dict:
        r = sampled_count(codes, drawn, settled, wrong, level=level, domain=domain)
        out = {k: r[k] for k in ("estimate", "low", "high", "n_sampled", "n_settled")}
        if r.get("reason"):
            code = "none_in_subject" if domain is not None and r["reason"] == "no_sample" else r["reason"]
            out["reason"] = translate(f"sample.reason.{code}", "en")
        elif r.get("strata_missing"):
            out["note"] = translate("sample.strata_missing", "en", n=r["strata_missing"])
        return out

    by = [{"subject": s, **one((df["subject"] == s).to_numpy())} for s in sorted(df["subject"].unique())]
    return {"benchmark": one(None), "by_subject": by, "design": df.attrs.get("design"), "level": level}


def report_fields(benchmark: str, model_based: dict | None, *, db: DbPath = None) -> dict:
    """The report's keys for the sampled count: ``expected_wrong_keys_sampled``,
    ``expected_wrong_keys_sampled_by_subject`` and ``sampled_note`` (a plain
    sentence: the two counts side by side, and whether they disagree beyond
    their intervals; None without a sample)."""
    sc = sampled_counts(benchmark, db=db)
    return {"expected_wrong_keys_sampled": sc["benchmark"], "expected_wrong_keys_sampled_by_subject": sc["by_subject"],
            "sampled_note": compare_counts(model_based, sc["benchmark"])}


def compare_counts(model_based: dict | None, sampled: dict, lang: str = "en") -> str | None:
    """One plain sentence on the sampled count beside the model-based one,
    saying when their intervals do not overlap; None when nothing is
    settled in the sample.

    >>> compare_counts({"estimate": 20.0, "low": 2.0, "high": 50.0}, {"estimate": 80.0, "low": 60.0, "high": 110.0,
    ...                "n_sampled": 300, "n_settled": 300}).split(";")[0]
    'The random audit sample gives about 80 wrong keys (90% interval 60–110, 300 of 300 drawn items settled)'
    """
    if not sampled or sampled.get("estimate") is None:
        return None
    text = translate("sample.count", lang, est=f"{sampled['estimate']:.0f}", lo=f"{sampled['low']:.0f}",
                     hi=f"{sampled['high']:.0f}", k=sampled["n_settled"], n=sampled["n_sampled"])
    if model_based and model_based.get("estimate") is not None:
        key = "sample.disagree" if intervals_disagree(model_based, sampled) else "sample.agree"
        text += translate(key, lang, est=f"{model_based['estimate']:.0f}", lo=f"{model_based['low']:.0f}",
                          hi=f"{model_based['high']:.0f}")
    return text


__all__ = ["SAMPLE_ITEMS_SQL", "draw_sample", "sample_frame", "sampled_counts", "report_fields", "compare_counts"]
