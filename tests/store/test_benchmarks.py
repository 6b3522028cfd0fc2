"""audit.store.benchmarks: which benchmark a call means.  Pins the three
cases of ``--benchmark`` left out (none, one, several), an unknown name
listing the known ones, and the two decorators: ``resolves_benchmark``
checks a named benchmark and fills in the only one, ``defaults_benchmark``
fills in only ``None``, positional or keyword, with the function's ``db``."""
from __future__ import annotations

import pytest

from audit.errors import InputError, NotFoundError
from audit.store import connect
from audit.store.benchmarks import (
    all_benchmarks,
    benchmark_name,
    defaults_benchmark,
    resolve_benchmark,
    resolves_benchmark,
)


def add(db, *names):
    with connect(db) as con:
        for n in names:
            con.execute("INSERT INTO benchmarks (name, source) VALUES (?, 'questions')", [n])


def test_no_benchmark(db_path):
    with connect(db_path, read_only=True) as con:
        assert all_benchmarks(con) == []
        with pytest.raises(NotFoundError, match="holds no benchmark yet"):
            resolve_benchmark(con, None)
        with pytest.raises(NotFoundError, match=r"no benchmark named 'tlue' \(known: none\)"):
            resolve_benchmark(con, "tlue")


def test_one_benchmark_is_the_default(db_path):
    add(db_path, "tlue")
    assert benchmark_name(None, db_path) == "tlue"
    assert benchmark_name("tlue", db_path) == "tlue"
    with pytest.raises(NotFoundError):
        benchmark_name("TLUE", db_path)            # names are exact


def test_several_benchmarks_need_a_name(db_path):
    add(db_path, "tlue", "cmmlu", "Arab-ug")
    with connect(db_path, read_only=True) as con:
        assert all_benchmarks(con) == ["Arab-ug", "cmmlu", "tlue"]
        with pytest.raises(InputError, match=r"several benchmarks in the database \(Arab-ug, cmmlu, tlue\)"):
            resolve_benchmark(con, None)
        with pytest.raises(NotFoundError, match=r"known: Arab-ug, cmmlu, tlue"):
            resolve_benchmark(con, "mmlu")


@resolves_benchmark
def _checked(x, benchmark=None, *, db=None):
    return x, benchmark


@defaults_benchmark
def _defaulted(benchmark=None, db=None):
    return benchmark


def test_resolves_benchmark_decorator(db_path):
    add(db_path, "only")
    assert _checked(1, db=db_path) == (1, "only")
    assert _checked(2, "only", db=db_path) == (2, "only")
    assert _checked(3, benchmark="only", db=db_path) == (3, "only")
    with pytest.raises(NotFoundError):
        _checked(4, "other", db=db_path)
    assert _checked.__name__ == "_checked"


def test_defaults_benchmark_decorator_leaves_a_named_benchmark_alone(db_path):
    add(db_path, "only")
    assert _defaulted(db=db_path) == "only"
    assert _defaulted("not-there", db_path) == "not-there"     # the function checks it itself
