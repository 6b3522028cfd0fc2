"""Which benchmark a call means: the named one, which must exist, or the only
one of the database when it names none (every command's ``--benchmark``)."""
from __future__ import annotations

import functools
import inspect
from typing import Callable, ParamSpec, TypeVar

import duckdb

from audit.errors import InputError, NotFoundError
from audit.store._connect import connect
from audit.store.records import DbPath


def all_benchmarks(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The benchmarks in the database, by name."""
    return [r[0] for r in con.execute("SELECT name FROM benchmarks ORDER BY name").fetchall()]


def resolve_benchmark(con: duckdb.DuckDBPyConnection, benchmark: str | None) -> str:
    """The named benchmark (must exist), or the only one when ``None``."""
    names = all_benchmarks(con)
    if benchmark is None:
        if len(names) == 1:
            return names[0]
        if not names:
            raise NotFoundError("the database holds no benchmark yet; import one first (see 'audit import --help')")
        raise InputError(f"several benchmarks in the database ({', '.join(names)}); choose one with --benchmark")
    if benchmark not in names:
        known = ", ".join(names) if names else "none"
        raise NotFoundError(f"no benchmark named '{benchmark}' (known: {known})")
    return benchmark


def benchmark_name(benchmark: str | None, db: DbPath = None) -> str:
    """:func:`resolve_benchmark` on database *db* (opened read-only for the
    moment): the named benchmark, which must exist, or the only one."""
    with connect(db, read_only=True) as con:
        return resolve_benchmark(con, benchmark)


P = ParamSpec("P")
R = TypeVar("R")


def resolves_benchmark(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator: the function's ``benchmark`` argument may be ``None`` (the
    only benchmark of the database, as every command's ``--benchmark``), and
    a named benchmark must exist (:func:`benchmark_name`, on the function's
    ``db`` argument)."""
    return _wrap(fn, check=True)


def defaults_benchmark(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator like :func:`resolves_benchmark` for a function that checks
    a named benchmark itself (with its own message): only ``None`` is
    resolved."""
    return _wrap(fn, check=False)


def _wrap(fn: Callable[P, R], *, check: bool) -> Callable[P, R]:
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        bound = sig.bind_partial(*args, **kwargs)
        given = bound.arguments.get("benchmark")
        if check or given is None:
            bound.arguments["benchmark"] = benchmark_name(given, bound.arguments.get("db"))
        return fn(*bound.args, **bound.kwargs)

    return wrapper


__all__ = ["all_benchmarks", "resolve_benchmark", "benchmark_name", "resolves_benchmark", "defaults_benchmark"]
