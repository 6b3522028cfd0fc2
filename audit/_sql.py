"""Small catalogue queries shared by every stage: does a table exist, which
columns does it have (older databases may lack a table a later migration
adds), which benchmark a call means when it names none."""
from __future__ import annotations

import functools
import inspect
from typing import Callable, ParamSpec, TypeVar

import duckdb

from audit.errors import InputError, NotFoundError
from audit.store import DbPath


def table_exists(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the main schema holds a table (or view) called *name*.

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT)")
    >>> table_exists(con, "t"), table_exists(con, "u")
    (True, False)
    """
    return bool(con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ? AND table_schema = 'main'", [name]
    ).fetchall()[0][0])


def table_columns(con: duckdb.DuckDBPyConnection, name: str) -> set[str]:
    """The column names of table *name* (empty when it does not exist).

    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE t (a INT, b TEXT)")
    >>> sorted(table_columns(con, "t"))
    ['a', 'b']
    """
    return {r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = 'main'", [name]
    ).fetchall()}


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
    from audit.store import connect

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
