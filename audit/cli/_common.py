"""Shared CLI pieces: the --db option, error handling, output helpers."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

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
