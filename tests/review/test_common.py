"""audit.review._common: ``run`` passes a SQL text only the ``$parameters``
it names (DuckDB rejects unused ones), so shared CTEs take one dict."""
from __future__ import annotations

import duckdb
import pytest

from audit.review._common import run


@pytest.fixture
def con():
    c = duckdb.connect()
    yield c
    c.close()


def test_only_the_named_parameters_are_passed(con):
    params = {"benchmark": "b", "reviewer": "x", "unused": 1, "tiers": [1, 2]}
    assert run(con, "SELECT $benchmark AS b, $reviewer || '!' AS r", params).fetchall() == [("b", "x!")]
    assert run(con, "SELECT len($tiers) AS n", params).fetchone() == (2,)


def test_a_parameter_used_twice_and_a_prefix_of_another(con):
    got = run(con, "SELECT $a + $a + $ab", {"a": 1, "ab": 10, "b": 99}).fetchone()
    assert got == (12,)


def test_no_parameters_and_a_missing_one(con):
    assert run(con, "SELECT 42", {"x": 1}).fetchone() == (42,)
    with pytest.raises(duckdb.Error):
        run(con, "SELECT $missing", {"other": 1})


def test_values_are_bound_not_spliced(con):
    hostile = "'; DROP TABLE t; --"
    con.execute("CREATE TABLE t (x VARCHAR)")
    assert run(con, "SELECT $v", {"v": hostile}).fetchone() == (hostile,)
    assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)
