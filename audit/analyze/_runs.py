"""Read functions for the tables the analyze stage owns: ``audit_runs`` (one
row per ``audit analyze``) and ``audit_results`` (every item's tier in a
run).  Later stages call these instead of writing their own "latest run"
query.

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
from typing import Any

import duckdb

from audit.errors import NotFoundError

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
        raise NotFoundError(f"benchmark '{benchmark}' has not been analysed yet; run 'audit analyze --benchmark {benchmark}'")
    return run


def latest_run_models(con: duckdb.DuckDBPyConnection, benchmark: str) -> list[str] | None:
    """The model set of the latest audit run, or None when there is none."""
    run = find_latest_run(con, benchmark)
    return run["models"] if run else None
