"""Shared CLI pieces: the --db option, error handling, output helpers."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, List, Optional

import typer

if TYPE_CHECKING:
    import pandas as pd

DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="DuckDB file (default: $AUDIT_DB or data/workbench.duckdb).", show_default=False),
]
BenchmarkOption = Annotated[Optional[str], typer.Option("--benchmark", "-b", help="Benchmark name.")]


def echo(msg: str = "") -> None:
    typer.echo(msg)


def warn(msg: str) -> None:
    typer.echo(msg, err=True)


def emit_frame(df: "pd.DataFrame", fmt: str, output: Optional[Path]) -> None:
    """Print (or write to *output*) a DataFrame as a table or as CSV (formula
    cells neutralised by :mod:`audit._util.safe_csv`)."""
    import sys

    from audit._util.safe_csv import write_csv
    from audit.errors import InputError

    if fmt not in ("table", "csv"):
        raise InputError(f"unknown format '{fmt}' (choose table or csv)")
    if fmt == "csv":
        if output is not None:
            write_csv(df, output)
            echo(f"written to {output}")
        else:
            write_csv(df, sys.stdout)
        return
    text = "(none)" if df.empty else df.to_string(index=False, na_rep="")
    if output is not None:
        output.write_text(text + "\n", encoding="utf-8")
        echo(f"written to {output}")
    else:
        echo(text)


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
