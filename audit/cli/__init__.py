"""The ``audit`` command line: a thin layer over the public Python API.
Each command calls one public function and prints what it returns."""
from __future__ import annotations

import sys

import typer

from audit.errors import AuditError

app = typer.Typer(
    name="audit",
    help="Find and fix wrong answer keys in multiple-choice LLM benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # joins wrapped docstring lines into paragraphs
    context_settings={"help_option_names": ["-h", "--help"]},
)
import_app = typer.Typer(help="Import questions, predictions, reference data and judge files.", no_args_is_help=True)
app.add_typer(import_app, name="import")


def _register_groups() -> None:
    # Each module adds its own commands; the order here is the help order.
    from audit.cli import analyze, demo, export, ingest, judge, models, review, sync

    for module in (demo, ingest, models, analyze, review, judge, sync, export):
        module.register(app, import_app)


_register_groups()


def _error_line(exc: BaseException) -> str | None:
    """The one-line message for an error the user can act on (None: a bug,
    shown as a traceback).  Secrets in it are redacted."""
    import re

    import duckdb

    from audit.redact import redact

    if isinstance(exc, AuditError):
        msg = str(exc)
    elif isinstance(exc, OSError) and (exc.filename or exc.strerror):
        where = f"{exc.filename}: " if exc.filename else ""
        what = (exc.strerror or str(exc)).lower()
        if isinstance(exc, FileNotFoundError) and exc.filename:
            what = "no such file or folder (does its folder exist?)"
        elif isinstance(exc, IsADirectoryError):
            what = "is a folder, expected a file"
        msg = where + what
    elif isinstance(exc, RecursionError):
        msg = "the input is nested too deeply to process"
    elif isinstance(exc, duckdb.Error):
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        m = re.search(r'file "([^"]+)"', first)
        if isinstance(exc, duckdb.IOException) and m:   # a damaged or truncated database file
            msg = f"{m.group(1)}: cannot open the database: {first} (is it a complete DuckDB file?)"
        else:
            msg = "database: " + first
    else:
        return None
    return "error: " + (redact(msg) or "")


def main() -> None:
    """Entry point.  Click handles usage errors (message, exit 2) and --help;
    an AuditError (and an OSError naming a file, a RecursionError, a DuckDB
    error) becomes one redacted line on stderr and exit code 1."""
    import os

    try:
        app()  # standalone: exits with the command's code
    except (AuditError, OSError, RecursionError, Exception) as exc:
        line = _error_line(exc)
        if line is None or os.environ.get("AUDIT_DEBUG"):
            raise
        typer.echo(line, err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("interrupted; nothing was half-written (the open transaction was rolled back)", err=True)
        sys.exit(130)
