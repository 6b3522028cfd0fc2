"""Shared CLI pieces: the --db option, error handling, output helpers."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer

DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="DuckDB file (default: $AUDIT_DB or data/workbench.duckdb).", show_default=False),
]
BenchmarkOption = Annotated[Optional[str], typer.Option("--benchmark", "-b", help="Benchmark name.")]


def echo(msg: str = "") -> None:
    typer.echo(msg)


def warn(msg: str) -> None:
    typer.echo(msg, err=True)


def resolve_benchmark(benchmark: str | None, db: Optional[Path]) -> str:
    """The benchmark a command works on: the one named, else the only one
    in the database (an error naming the choices otherwise)."""
    from audit.analyze import resolve_benchmark as _resolve
    from audit.store import connect

    with connect(db, read_only=True) as con:
        return _resolve(con, benchmark)


# Options shared by the commands that run a model over items (judge run, predict run).
TierOption = Annotated[Optional[List[int]], typer.Option("--tier", help="Only items of this tier in the latest "
                                                                        "audit run (repeatable).")]
SubjectOption = Annotated[Optional[List[str]], typer.Option("--subject", help="Only this subject (repeatable).")]
QuestionIdOption = Annotated[Optional[List[str]], typer.Option("--question-id", help="Only this item (repeatable).")]
LimitOption = Annotated[Optional[int], typer.Option("--limit", help="Only the first N selected items.")]
ConcurrencyOption = Annotated[int, typer.Option("--concurrency", "-c", help="Requests in flight at once.")]
MaxCostOption = Annotated[Optional[float], typer.Option("--max-cost", help="Stop sending requests once the replies "
                                                                            "received cost this many USD.")]
TimeoutOption = Annotated[float, typer.Option("--timeout", help="Seconds per request.")]
MaxRetriesOption = Annotated[int, typer.Option("--max-retries", help="Retries on 429 / 5xx / timeouts.")]
BackoffBaseOption = Annotated[float, typer.Option("--backoff-base", help="First retry delay in seconds (doubles).")]
InputCostOption = Annotated[Optional[float], typer.Option("--input-cost-per-token", help="USD per prompt token, for "
                                                                                       "models litellm has no price for.")]
OutputCostOption = Annotated[Optional[float], typer.Option("--output-cost-per-token", help="USD per completion token.")]
ProgressOption = Annotated[Optional[bool], typer.Option("--progress/--no-progress", help="Progress bar (default: "
                                                                                        "when stderr is a terminal).")]
