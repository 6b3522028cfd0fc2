"""model_set's fast path (one run value in the benchmark: DISTINCT model
only) gives the same model set as the general DISTINCT (model, run)."""
from __future__ import annotations

from audit.analyze.inputs import _one_run_models, model_set
from audit.store import connect

_GENERAL = ("SELECT pr.model, list(pr.run ORDER BY pr.run) AS runs, any_value(m.family) AS family "
            "FROM (SELECT DISTINCT model, run FROM predictions WHERE benchmark = ?) pr "
            "LEFT JOIN models m ON m.name = pr.model GROUP BY pr.model ORDER BY pr.model")


def test_fast_path_matches_general_query(db_path):
    with connect(db_path) as con:
        con.execute("INSERT INTO benchmarks VALUES ('one', 'demo', NULL, now()), ('two', 'demo', NULL, now()), "
                    "('none', 'demo', NULL, now())")
        con.execute(
            "INSERT INTO models VALUES ('m1', 'f1', NULL, 'set'), ('m2', 'f1', NULL, 'set')"
        )  # m3: no family row
        con.execute("INSERT INTO predictions SELECT 'one', 'q' || i, m, 'r7', NULL, 'A', 'given', true "
                    "FROM range(5) t(i), (VALUES ('m2'), ('m1'), ('m3')) v(m)")
        con.execute("INSERT INTO predictions SELECT 'two', 'q' || i, m, r, NULL, 'A', 'given', true "
                    "FROM range(5) t(i), (VALUES ('m1', 'default'), ('m1', 'b'), ('m2', 'b')) v(m, r)")
        fast = _one_run_models(con, "one")
        assert fast is not None and [tuple(r) for r in fast] == [
            tuple(r) for r in con.execute(_GENERAL, ["one"]).fetchall()
        ]
        assert [r[0] for r in fast] == ["m1", "m2", "m3"] and all(r[1] == ["r7"] for r in fast)
        assert _one_run_models(con, "two") is None          # several runs: the general query
        assert _one_run_models(con, "none") is None         # no predictions
        ms = model_set(con, "two")
        assert ms.runs == {"m1": "default", "m2": "b"}
        assert model_set(con, "one").runs == {"m1": "r7", "m2": "r7", "m3": "r7"}
        assert model_set(con, "one").families == {"m1": "f1", "m2": "f1", "m3": "m3"}
