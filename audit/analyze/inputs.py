"""What the analysis stage reads, and what the later stages read from it.

Which benchmark, which models, which run of each model, and the SQL that
yields one usable answer per (question, model); and the audit runs the
analysis writes (``audit_runs``: one row per ``audit analyze``;
``audit_results``: every item's tier in a run), read here so that later
stages never write their own "latest run" query.

A prediction is *usable* (valid) when it was stored as valid, has a letter,
and that letter is one of the item's option labels.  Missing and invalid
predictions never count as agreeing with anything and never count as
correct.  When a model has several runs on a benchmark, the run named
``default`` is used, otherwise the first run in alphabetical order; the
choice is recorded in the audit run's config.

The *current audit* of a benchmark is its latest run (highest ``run_id``).

>>> import tempfile, os
>>> from audit.demo import build_demo
>>> from audit.store import connect
>>> db = os.path.join(tempfile.mkdtemp(), "d.duckdb"); _ = build_demo(db)
>>> with connect(db, read_only=True) as con:
...     run = find_latest_run(con, "demo")
...     none = find_latest_run(con, "nope")
...     n = con.execute(f"SELECT count(*) FROM ({CURRENT_AUDIT_SQL})", {"benchmark": "demo"}).fetchone()[0]
>>> run["run_id"], len(run["models"]), none, n
(1, 8, None, 300)
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit._util.sql import unregister
from audit.errors import InputError, NotFoundError
from audit.options import LATIN_LABELS, SQL_LABELS, sql_is_label

__all__ = [
    "ModelSet", "model_set", "parse_models", "usable_predictions_sql", "QUESTIONS_SQL", "questions_table",
    "CURRENT_AUDIT_SQL", "find_latest_run", "latest_run", "latest_run_models",
]

# The model bitmask of the usable answer cells (:mod:`audit.analyze._cells`):
# each model is one bit of a few DOUBLE words, MASK_BITS models per word (the
# sums of distinct powers of two below 2^52 stay exact in float64).
# :meth:`ModelSet.arrow` gives each model its bit.
MASK_BITS = 52


def mask_words(n_models: int) -> int:
    """DOUBLE words of the model bitmask for ``n_models`` models.

    >>> mask_words(1), mask_words(52), mask_words(100), mask_words(1000)
    (1, 1, 2, 20)
    """
    return max(1, math.ceil(n_models / MASK_BITS))


@dataclass(frozen=True)
class ModelSet:
    """The models of an analysis with the family and run used for each."""

    benchmark: str
    models: tuple[str, ...]
    families: dict[str, str]
    runs: dict[str, str]
    #: every prediction of the benchmark has the same run: matching a
    #: prediction to the model set then needs its model only
    single_run: bool = False

    @property
    def n(self) -> int:
        return len(self.models)

    def fam_ids(self) -> np.ndarray:
        """Each model's family index (families sorted by name)."""
        index = {f: i for i, f in enumerate(sorted(set(self.families.values())))}   # one look-up per model
        return np.array([index[self.families[m]] for m in self.models], dtype=np.int64)

    def arrow(self) -> pa.Table:
        """The model set as a table: model, run, family, model_id, fam_id,
        and the model's bit in the bitmask words ``mb0``, ``mb1``, … (see
        :func:`usable_cells`)."""
        ids = np.arange(len(self.models))
        cols = {
            "model": pa.array(list(self.models), pa.string()),
            "run": pa.array([self.runs[m] for m in self.models], pa.string()),
            "family": pa.array([self.families[m] for m in self.models], pa.string()),
            "model_id": pa.array(ids, pa.int32()),
            "fam_id": pa.array(self.fam_ids(), pa.int32()),
        }
        for k in range(mask_words(len(self.models))):
            inword = ids // MASK_BITS == k
            bit = np.where(inword, ids - k * MASK_BITS, 0)   # models outside the word: no 2**huge (overflow warning)
            cols[f"mb{k}"] = pa.array(np.where(inword, np.ldexp(1.0, bit), 0.0), pa.float64())
        return pa.table(cols)


def parse_models(models) -> list[str] | None:
    """Accept None, a comma-separated string or an iterable of names."""
    if models is None:
        return None
    if isinstance(models, str):
        models = models.split(",")
    out = [str(m).strip() for m in models if str(m).strip()]
    if not out:
        raise InputError("the model list is empty")
    if len(set(out)) != len(out):
        dup = sorted({m for m in out if out.count(m) > 1})
        raise InputError(f"model listed twice: {', '.join(dup)}")
    return out


def _one_run_models(con, benchmark: str) -> list | None:
    """``model_set``'s rows (model, [run], family) when every prediction of
    the benchmark has the same run, else None.  ``min(run)``/``max(run)``
    come nearly free (column statistics) and ``DISTINCT model`` costs a
    fifth of ``DISTINCT model, run`` over 10 M predictions.
    Must read the same relation as :func:`model_set`'s general query."""
    lo, hi = con.execute("SELECT min(run), max(run) FROM all_predictions WHERE benchmark = ?", [benchmark]).fetchall()[
        0
    ]
    if lo is None or lo != hi:
        return None
    return con.execute(
        "SELECT pr.model, [?] AS runs, any_value(m.family) AS family "
        "FROM (SELECT DISTINCT model FROM all_predictions WHERE benchmark = ?) pr "
        "LEFT JOIN models m ON m.name = pr.model GROUP BY pr.model ORDER BY pr.model",
        [lo, benchmark],
    ).fetchall()


def model_set(con, benchmark: str, models=None) -> ModelSet:
    """Resolve the model set of a benchmark (default: every model with
    predictions for it) and the run used for each model."""
    one_run = _one_run_models(con, benchmark)
    rows = one_run or con.execute(
        "SELECT pr.model, list(pr.run ORDER BY pr.run) AS runs, any_value(m.family) AS family "
        "FROM (SELECT DISTINCT model, run FROM all_predictions WHERE benchmark = ?) pr "
        "LEFT JOIN models m ON m.name = pr.model GROUP BY pr.model ORDER BY pr.model",
        [benchmark],
    ).fetchall()
    available = {name: (runs, family) for name, runs, family in rows}
    wanted = parse_models(models)
    if wanted is None:
        if not available:
            raise NotFoundError(f"benchmark '{benchmark}' has no predictions; import predictions first")
        wanted = sorted(available)
    else:
        missing = [m for m in wanted if m not in available]
        if missing:
            raise NotFoundError(
                f"no predictions for benchmark '{benchmark}' from: {', '.join(missing)} "
                f"(models with predictions: {', '.join(sorted(available)) or 'none'})"
            )
    runs = {m: ("default" if "default" in available[m][0] else available[m][0][0]) for m in wanted}
    families = {m: (available[m][1] or m) for m in wanted}
    return ModelSet(benchmark, tuple(wanted), families, runs, single_run=bool(one_run))


def usable_predictions_sql(bench_param: str = "$benchmark", *, option_index: bool = False) -> str:
    """SQL (a subquery body) with one row per usable prediction of the model
    set registered as ``_ms``: qn (question number), model_id, fam_id, model,
    family, answer, is_key (and with ``option_index`` y, the answer's 0-based
    position among the item's options).  Expects a relation ``_q`` built
    from ``QUESTIONS_SQL``."""
    y = (""",
               (CASE WHEN q.standard_labels THEN ascii(p.answer) - 65
                     ELSE list_position(q.labels, p.answer) - 1 END)::TINYINT AS y""" if option_index else "")
    return f"""
        SELECT q.qn, ms.model_id, ms.fam_id, ms.model, ms.family, p.answer,
               (p.answer IS NOT DISTINCT FROM q.answer_key) AS is_key{y}
        FROM all_predictions p
        JOIN _ms ms ON ms.model = p.model AND ms.run = p.run
        JOIN _q q ON q.question_id = p.question_id
        WHERE p.benchmark = {bench_param} AND p.valid AND p.answer IS NOT NULL
          AND CASE WHEN q.standard_labels
                   THEN {sql_is_label("p.answer", "q.n_options")}
                   ELSE list_contains(q.labels, p.answer) END
    """


QUESTIONS_SQL = f"""
    SELECT row_number() OVER (ORDER BY seq, question_id)::INTEGER AS qn, question_id, subject, answer_key,
           len(options) AS n_options,
           [o.label FOR o IN options] AS labels,
           -- labels A, B, C, … in order: the option check is then a cheap range test
           [o.label FOR o IN options] = {SQL_LABELS}[1:len(options)] AS standard_labels
    FROM questions WHERE benchmark = $benchmark
"""


class RegisteredTables:
    """Context manager that registers ``self.tables`` (name → Arrow table) on
    ``self.con`` for the queries of one call and unregisters them after."""

    con: object
    tables: dict[str, pa.Table]

    def __enter__(self):
        for name, t in self.tables.items():
            self.con.register(name, t)
        return self

    def __exit__(self, *exc):
        unregister(self.con, *self.tables)



# QUESTIONS_SQL's columns before the ordering and the label check, which
# :func:`questions_table` does in NumPy (a window ``row_number`` over 100,000
# questions and a list comparison per question cost twice the scan itself)
_QUESTIONS_SCAN_SQL = """
    SELECT seq, question_id, subject, answer_key, [o.label FOR o IN options] AS labels
    FROM questions WHERE benchmark = $benchmark
"""


def _standard_labels(labels: pa.ListArray) -> pa.Array:
    """Per list: its labels are A, B, C, … in order (QUESTIONS_SQL's
    ``labels = SQL_LABELS[1:len(options)]``; NULL for a NULL list).  Each
    label must be one byte, the letter at its position: read from the
    flattened strings' buffers, no Python objects."""
    flat = labels.flatten()
    offs = labels.offsets.to_numpy()
    lengths = np.diff(offs)
    parent = np.repeat(np.arange(len(labels)), lengths)
    pos = np.arange(len(flat)) - (offs[:-1] - offs[0])[parent]
    f_offs = np.frombuffer(flat.buffers()[1], dtype=np.int32, count=len(flat) + 1, offset=flat.offset * 4) \
        if len(flat) else np.zeros(1, np.int32)
    data = np.frombuffer(flat.buffers()[2], dtype=np.uint8) if len(flat) and flat.buffers()[2] is not None \
        else np.zeros(1, np.uint8)
    one_byte = np.diff(f_offs) == 1
    first = data[np.minimum(f_offs[:-1], max(len(data) - 1, 0))] if len(data) else np.zeros(len(flat), np.uint8)
    ok = one_byte & (first.astype(np.int64) == 65 + pos) & (pos < len(LATIN_LABELS))
    if flat.null_count:
        ok &= flat.is_valid().to_numpy(zero_copy_only=False)
    bad = np.bincount(parent[~ok], minlength=len(labels))
    return pa.array(bad == 0, mask=labels.is_null().to_numpy(zero_copy_only=False))


def questions_table(con: Any, benchmark: str) -> pa.Table:
    """The rows of ``QUESTIONS_SQL`` for ``benchmark`` as an Arrow table, to
    register once as ``_q`` when several queries of one analysis need them
    (each ``WITH _q AS (QUESTIONS_SQL)`` would recompute them).  The same
    rows, computed with a plain scan and the ordering (seq, question_id)
    and the label check in NumPy (tests/analyze/test_inputs.py compares
    both)."""
    rel = con.sql(_QUESTIONS_SCAN_SQL, params={"benchmark": benchmark})
    t = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
    seq = t.column("seq").to_numpy(zero_copy_only=False)
    order = np.argsort(seq, kind="stable")
    ordered = seq[order]
    if len(ordered) > 1 and bool((ordered[1:] == ordered[:-1]).any()):     # a tie: question_id decides
        order = pc.sort_indices(t, sort_keys=[("seq", "ascending"), ("question_id", "ascending")]).to_numpy()
    if not np.array_equal(order, np.arange(len(order))):     # the scan usually gives import order already
        t = t.take(pa.array(order))
    labels = t.column("labels").combine_chunks()
    if not isinstance(labels, pa.ListArray):       # an empty table's column
        labels = pa.array([], pa.list_(pa.string()))
    return pa.table({
        "qn": pa.array(np.arange(1, len(t) + 1, dtype=np.int32)),
        "question_id": t.column("question_id"), "subject": t.column("subject"), "answer_key": t.column("answer_key"),
        "n_options": pc.list_value_length(labels).cast(pa.int64()), "labels": labels,
        "standard_labels": _standard_labels(labels),
    })


#: The current audit's results of ``$benchmark`` (a SELECT usable as a
#: sub-query or CTE body): question_id, tier, bucket, top_answer,
#: agreement_count, agreeing_families, n_models, n_valid, n_correct.
CURRENT_AUDIT_SQL = """
    SELECT question_id, tier, bucket, top_answer, agreement_count, agreeing_families, n_models, n_valid, n_correct
    FROM audit_results
    WHERE benchmark = $benchmark
      AND run_id = (SELECT max(run_id) FROM audit_runs WHERE benchmark = $benchmark)"""


def find_latest_run(con: duckdb.DuckDBPyConnection, benchmark: str) -> dict[str, Any] | None:
    """run_id, created_at, config (dict) and models (list) of the latest
    audit run of *benchmark*, or None when it has not been analysed."""
    row = con.execute(
        "SELECT run_id, created_at, config, models FROM audit_runs WHERE benchmark = ? ORDER BY run_id DESC LIMIT 1",
        [benchmark],
    ).fetchall()
    if not row:
        return None
    run_id, created_at, config, models = row[0]
    config = json.loads(config) if isinstance(config, str) else (config or {})
    return {"run_id": run_id, "created_at": created_at, "config": config, "models": list(models or [])}


def latest_run(con: duckdb.DuckDBPyConnection, benchmark: str) -> dict[str, Any]:
    """Like :func:`find_latest_run`; a benchmark never analysed is a
    :class:`~audit.errors.NotFoundError` saying what to run."""
    run = find_latest_run(con, benchmark)
    if run is None:
        raise NotFoundError(
            f"benchmark '{benchmark}' has not been analysed yet; run 'audit analyze --benchmark {benchmark}'"
        )
    return run


def latest_run_models(con: duckdb.DuckDBPyConnection, benchmark: str) -> list[str] | None:
    """The model set of the latest audit run, or None when there is none."""
    run = find_latest_run(con, benchmark)
    return run["models"] if run else None
