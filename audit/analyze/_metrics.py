"""Accuracy metrics per model (and model × subject) and difficulty per item.

All counting happens in DuckDB SQL; only the Wilson intervals are computed
afterwards (vectorised, statsmodels ``proportion_confint(method="wilson")``).

Definitions, for a model and a set of questions:

* ``n_questions`` — questions in the set;
* ``n_asked`` — questions the model was asked: those with a prediction of
  it (valid or not), and ``coverage = n_asked / n_questions``.  A model
  whose published outputs cover one subject of nine is asked that subject's
  items only: its accuracy is over them, and the coverage says how many
  they are ("answered 99 of 899 items");
* ``n_valid`` — asked questions with a valid prediction (a letter among the
  item's options); ``response_rate = n_valid / n_asked``;
* ``n_correct`` — valid predictions equal to the answer key;
* ``accuracy = n_correct / n_asked`` (correct / asked; correct / all only
  where the model was asked every question);
* multi-answer items (key a set of labels, flag ``multi_answer``, see
  :mod:`audit.ingest.multi_answer`) are scored by **exact set match**: a
  prediction is correct only when its set of labels equals the key's
  (both stored as sorted concatenated labels, so the test is equality);
* ``conditional_accuracy = n_correct / n_valid`` (correct / valid).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from audit._util.sql import unregister
from audit.analyze._stats import wilson_interval
from audit.analyze.inputs import QUESTIONS_SQL, RegisteredTables, model_set, usable_predictions_sql
from audit.errors import InputError
from audit.store import DbPath, connect
from audit.store.benchmarks import resolve_benchmark

DIFFICULTY_BANDS = ("very hard", "hard", "medium", "easy", "very easy")


def _keys_table(keys) -> pa.Table:
    if keys is None:
        return pa.table({"question_id": pa.array([], pa.string()), "answer_key": pa.array([], pa.string())})
    if not isinstance(keys, pd.DataFrame):
        raise InputError("keys must be a DataFrame with columns question_id, answer_key")
    missing = [c for c in ("question_id", "answer_key") if c not in keys.columns]
    if missing:
        raise InputError(f"keys lacks column(s) {', '.join(missing)} (needs question_id, answer_key)")
    k = keys[["question_id", "answer_key"]]
    if k["answer_key"].isna().any():
        bad = k.loc[k["answer_key"].isna(), "question_id"].astype(str).head(5).tolist()
        raise InputError(
            f"keys has an empty answer_key for {', '.join(bad)}; to leave items out of the scoring pass them in exclude"
        )
    dup = k["question_id"][k["question_id"].duplicated()].astype(str).unique().tolist()
    if dup:
        raise InputError(f"keys gives question id(s) twice: {', '.join(dup[:5])}")
    return pa.table(
        {
            "question_id": pa.array(k["question_id"].astype(str).tolist(), pa.string()),
            "answer_key": pa.array(k["answer_key"].astype(str).str.strip().tolist(), pa.string()),
        }
    )


def _exclude_table(exclude) -> pa.Table:
    ids = sorted({str(x) for x in exclude}) if exclude is not None else []
    return pa.table({"question_id": pa.array(ids, pa.string())})


# `_q` = the questions in scope with their effective key (corrected when given).
_EFFECTIVE_Q = f"""
    _q0 AS ({QUESTIONS_SQL}),
    _q AS (
        SELECT q.qn, q.question_id, q.subject, q.n_options, q.labels, q.standard_labels,
               coalesce(k.answer_key, q.answer_key) AS answer_key
        FROM _q0 q LEFT JOIN _keys k USING (question_id)
        WHERE q.question_id NOT IN (SELECT question_id FROM _excl)
    )
"""


def _usable_sql() -> str:
    """Usable predictions: the single-label ones, plus set answers ("AD") on
    multi-answer items, correct by exact set match."""
    return f"""{usable_predictions_sql()}
        UNION ALL
        SELECT q.qn, ms.model_id, ms.fam_id, ms.model, ms.family, p.answer, (p.answer = q.answer_key) AS is_key
        FROM all_predictions p
        JOIN _ms ms ON ms.model = p.model AND ms.run = p.run
        JOIN _q q ON q.question_id = p.question_id
        JOIN questions mq ON mq.benchmark = p.benchmark AND mq.question_id = p.question_id
        WHERE p.benchmark = $benchmark AND p.valid AND length(p.answer) > 1
          AND list_contains(mq.flags, 'multi_answer')
    """


class _Scope(RegisteredTables):
    """Registers the model set, keys and exclusions on a connection."""

    def __init__(self, con, benchmark, models, keys, exclude):
        self.con = con
        self.ms = model_set(con, benchmark, models)
        keys_t = _keys_table(keys)
        if keys_t.num_rows:
            con.register("_keys_check", keys_t)
            try:
                unknown = con.execute(
                    "SELECT question_id FROM _keys_check WHERE question_id NOT IN "
                    "(SELECT question_id FROM questions WHERE benchmark = ?) ORDER BY 1 LIMIT 5",
                    [benchmark],
                ).fetchall()
            finally:
                unregister(con, "_keys_check")
            if unknown:
                raise InputError(
                    f"keys names question(s) not in benchmark '{benchmark}': {', '.join(r[0] for r in unknown)}"
                )
        self.tables = {"_ms": self.ms.arrow(), "_keys": keys_t, "_excl": _exclude_table(exclude)}


def add_wilson(df: pd.DataFrame, name: str, k: str, n: str, confidence: float = 0.95) -> pd.DataFrame:
    """Add ``name`` = k/n and ``name_low`` / ``name_high`` (Wilson) columns."""
    kk = df[k].to_numpy(dtype=float)
    nn = df[n].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        df[name] = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    low, high = wilson_interval(kk, nn, confidence)
    df[f"{name}_low"] = low
    df[f"{name}_high"] = high
    return df


def model_metrics(
    benchmark: str | None = None,
    *,
    db: DbPath = None,
    by_subject: bool = False,
    models=None,
    keys: pd.DataFrame | None = None,
    exclude=None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Response rate, accuracy and conditional accuracy per model (and per
    model × subject with ``by_subject=True``), each with a Wilson interval
    (statsmodels ``proportion_confint(method="wilson")``).

    ``models``: restrict to these (default: every model with predictions).
    ``keys``: DataFrame[question_id, answer_key] of corrected keys; items not
    in it are scored against their original key.  ``exclude``: question ids
    left out entirely (e.g. items judged to have no correct answer) — ids not
    in the benchmark are ignored.

    Columns: model, family, [subject,] n_questions, n_asked, coverage,
    n_valid, response_rate, response_rate_low, response_rate_high,
    n_correct, accuracy, accuracy_low, accuracy_high, conditional_accuracy,
    conditional_accuracy_low, conditional_accuracy_high.  Rates are
    fractions in [0, 1]; the rates are over the questions the model was
    asked (``n_asked``, see the module docstring).

    >>> import tempfile, os
    >>> from audit.store import connect
    >>> db = os.path.join(tempfile.mkdtemp(), "m.duckdb")
    >>> with connect(db) as con:
    ...     _ = con.execute("INSERT INTO benchmarks VALUES ('b', 'demo', NULL, now())")
    ...     _ = con.execute("INSERT INTO questions (benchmark, question_id, seq, stem, options, answer_key) "
    ...         "SELECT 'b', 'q' || i, i, 's', [{'label': 'A', 'text': 'x'}, {'label': 'B', 'text': 'y'}], 'A' "
    ...         "FROM range(3) t(i)")
    ...     _ = con.execute("INSERT INTO predictions VALUES ('b','q0','m','default',NULL,'A','given',true), "
    ...         "('b','q1','m','default',NULL,'B','given',true), ('b','q2','m','default','?',NULL,'caa',false)")
    >>> m = model_metrics("b", db=db)
    >>> m[["model", "n_questions", "n_asked", "n_valid", "n_correct"]].to_dict("records")
    [{'model': 'm', 'n_questions': 3, 'n_asked': 3, 'n_valid': 2, 'n_correct': 1}]
    >>> m[["accuracy", "conditional_accuracy"]].round(3).to_dict("records")
    [{'accuracy': 0.333, 'conditional_accuracy': 0.5}]
    >>> import pandas as pd
    >>> model_metrics("b", db=db, keys=pd.DataFrame({"question_id": ["q1"], "answer_key": ["B"]}))["n_correct"].tolist()
    [2]
    """
    group = ", subject" if by_subject else ""
    join_subject = " AND per.subject IS NOT DISTINCT FROM nq.subject" if by_subject else ""
    sql = f"""
        WITH {_EFFECTIVE_Q},
        p AS (SELECT pp.*, q.subject FROM ({_usable_sql()}) pp JOIN _q q USING (qn)),
        per AS (SELECT model{group}, count(*) AS n_valid, count(*) FILTER (WHERE is_key) AS n_correct
                FROM p GROUP BY ALL),
        asked AS (SELECT ms.model{', q.subject' if by_subject else ''}, count(DISTINCT q.qn) AS n_asked
                  FROM all_predictions ap JOIN _ms ms ON ms.model = ap.model AND ms.run = ap.run
                  JOIN _q q ON q.question_id = ap.question_id
                  WHERE ap.benchmark = $benchmark GROUP BY ALL),
        nq AS (SELECT 1 AS one{group}, count(*) AS n_questions FROM _q GROUP BY ALL)
        SELECT ms.model, ms.family{', nq.subject' if by_subject else ''}, nq.n_questions::BIGINT AS n_questions,
               coalesce(asked.n_asked, 0)::BIGINT AS n_asked,
               coalesce(per.n_valid, 0)::BIGINT AS n_valid, coalesce(per.n_correct, 0)::BIGINT AS n_correct
        FROM _ms ms CROSS JOIN nq LEFT JOIN per ON per.model = ms.model{join_subject}
        LEFT JOIN asked ON asked.model = ms.model{join_subject.replace('per.', 'asked.')}
        ORDER BY ms.model{', nq.subject' if by_subject else ''}
    """
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        with _Scope(con, benchmark, models, keys, exclude):
            df = con.execute(sql, {"benchmark": benchmark}).df()
    add_wilson(df, "response_rate", "n_valid", "n_asked", confidence)
    add_wilson(df, "accuracy", "n_correct", "n_asked", confidence)
    add_wilson(df, "conditional_accuracy", "n_correct", "n_valid", confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        df["coverage"] = np.where(
            df["n_questions"] > 0, df["n_asked"] / df["n_questions"].where(df["n_questions"] > 0, 1), np.nan
        )
    cols = ["model", "family"] + (["subject"] if by_subject else []) + [
        "n_questions", "n_asked", "coverage", "n_valid", "response_rate", "response_rate_low", "response_rate_high",
        "n_correct", "accuracy", "accuracy_low", "accuracy_high",
        "conditional_accuracy", "conditional_accuracy_low", "conditional_accuracy_high",
    ]
    return df[cols]


def difficulty_band(n_correct, n_models):
    """Band index 0..4 (very hard .. very easy) = ⌊5·c / (N + 1)⌋.

    This splits the N + 1 possible counts 0..N into five bands of (nearly)
    equal width and reproduces CMiLBench's bands for 14 models exactly
    (0–2 very hard, 3–5 hard, 6–8 medium, 9–11 easy, 12–14 very easy).
    With fewer than 5 models some bands cannot occur.

    >>> [difficulty_band(c, 14) for c in range(15)]
    [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    """
    return (5 * int(n_correct)) // (int(n_models) + 1)


def item_difficulty(
    benchmark: str | None = None,
    *,
    db: DbPath = None,
    models=None,
    keys: pd.DataFrame | None = None,
    exclude=None,
) -> pd.DataFrame:
    """Per item: chance rate 1/k and how many models got it right.

    Columns: question_id, subject, n_options, chance_rate (1/k), n_models,
    n_valid, n_correct, p_correct (n_correct / n_models), above_chance
    (p_correct > chance_rate), band_index (0..4, see :func:`difficulty_band`,
    computed in SQL as ``(5 * n_correct) // (n_models + 1)``) and band
    ('very hard', 'hard', 'medium', 'easy', 'very easy').  ``keys`` and
    ``exclude`` as in :func:`model_metrics`.
    """
    bands = "[" + ", ".join(f"'{b}'" for b in DIFFICULTY_BANDS) + "]"
    sql = f"""
        WITH {_EFFECTIVE_Q},
        p AS ({_usable_sql()}),
        per AS (SELECT qn, count(*) AS n_valid, count(*) FILTER (WHERE is_key) AS n_correct FROM p GROUP BY qn)
        SELECT q.question_id, q.subject, q.n_options::INTEGER AS n_options, 1.0 / q.n_options AS chance_rate,
               $n::INTEGER AS n_models, coalesce(per.n_valid, 0)::INTEGER AS n_valid,
               coalesce(per.n_correct, 0)::INTEGER AS n_correct,
               coalesce(per.n_correct, 0) / $n AS p_correct,
               coalesce(per.n_correct, 0) / $n > 1.0 / q.n_options AS above_chance,
               ((5 * coalesce(per.n_correct, 0)) // ($n + 1))::INTEGER AS band_index,
               {bands}[((5 * coalesce(per.n_correct, 0)) // ($n + 1)) + 1] AS band
        FROM _q q LEFT JOIN per USING (qn)
        ORDER BY q.qn
    """
    with connect(db, read_only=True) as con:
        benchmark = resolve_benchmark(con, benchmark)
        with _Scope(con, benchmark, models, keys, exclude) as scope:
            return con.execute(sql, {"benchmark": benchmark, "n": scope.ms.n}).df()


__all__ = ["model_metrics", "item_difficulty", "difficulty_band", "DIFFICULTY_BANDS"]
