"""Shared plumbing of the analysis stage: which benchmark, which models,
which run of each model, and the SQL that yields one usable answer per
(question, model).

A prediction is *usable* (valid) when it was stored as valid, has a letter,
and that letter is one of the item's option labels.  Missing and invalid
predictions never count as agreeing with anything and never count as
correct.  When a model has several runs on a benchmark, the run named
``default`` is used, otherwise the first run in alphabetical order; the
choice is recorded in the audit run's config.
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from audit.errors import InputError, NotFoundError
from audit._sql import all_benchmarks, resolve_benchmark  # noqa: F401  (the analysis stage's names for them)
from audit.labels import SQL_LABELS, sql_is_label


@dataclass(frozen=True)
class ModelSet:
    """The models of an analysis with the family and run used for each."""

    benchmark: str
    models: tuple[str, ...]
    families: dict[str, str]
    runs: dict[str, str]

    @property
    def n(self) -> int:
        return len(self.models)

    def arrow(self) -> pa.Table:
        fams = sorted(set(self.families.values()))
        fam_id = {f: i for i, f in enumerate(fams)}
        return pa.table(
            {
                "model": pa.array(list(self.models), pa.string()),
                "run": pa.array([self.runs[m] for m in self.models], pa.string()),
                "family": pa.array([self.families[m] for m in self.models], pa.string()),
                "model_id": pa.array(range(len(self.models)), pa.int32()),
                "fam_id": pa.array([fam_id[self.families[m]] for m in self.models], pa.int32()),
            }
        )


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


def model_set(con, benchmark: str, models=None) -> ModelSet:
    """Resolve the model set of a benchmark (default: every model with
    predictions for it) and the run used for each model."""
    rows = con.execute(
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
    return ModelSet(benchmark, tuple(wanted), families, runs)


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
    SELECT row_number() OVER (ORDER BY seq, question_id)::INTEGER AS qn, question_id, subject, answer_key, len(options) AS n_options,
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
        for name in self.tables:
            self.con.unregister(name)
