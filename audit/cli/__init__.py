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
    from audit.cli import analyze, demo, export, ingest, judge, models, review, sync, users

    for module in (demo, ingest, models, analyze, review, judge, sync, export, users):
        module.register(app, import_app)


_register_groups()


def main() -> None:
    """Entry point.  Click handles usage errors (message, exit 2) and --help;
    an AuditError becomes one line on stderr and exit code 1."""
    try:
        app()  # standalone: exits with the command's code
    except AuditError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("interrupted; nothing was half-written (the open transaction was rolled back)", err=True)
        sys.exit(130)
