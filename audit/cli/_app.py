"""The ``audit`` application: the root command, its ``--db`` default for
every subcommand, the command groups in help order, and :func:`main`, which
turns an error the user can act on into one line on stderr."""
from __future__ import annotations

import sys
from typing import Any

import typer

from audit.cli import analyze, demo, export, ingest, judge, ls, models, predict, review, users
from audit.cli._common import DbOption
from audit.errors import AuditError

app = typer.Typer(
    name="audit",
    help="Find and fix wrong answer keys in multiple-choice LLM benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help (paragraphs rewrapped); rich would cost ~0.5 s at start
    context_settings={"help_option_names": ["-h", "--help"]},
)
import_app = typer.Typer(help="Import questions, predictions, reference data and judge files.", no_args_is_help=True)
app.add_typer(import_app, name="import")


def _db_defaults(group: Any, db: str) -> dict[str, Any]:
    """default_map giving every (nested) subcommand's ``--db`` the value *db*
    (typer vendors its own click: groups are recognised by ``.commands``)."""
    out: dict[str, Any] = {}
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            out[name] = _db_defaults(cmd, db)
            if any(p.name == "db" for p in cmd.params):   # a group with options of its own (audit report)
                out[name]["db"] = db
        elif any(p.name == "db" for p in cmd.params):
            out[name] = {"db": db}
    return out


@app.callback()
def _root(ctx: typer.Context, db: DbOption = None) -> None:
    """Find and fix wrong answer keys in multiple-choice LLM benchmarks."""
    # `audit --db PATH COMMAND` works like `audit COMMAND --db PATH` (which still wins).
    if db is not None and hasattr(ctx.command, "commands"):
        ctx.default_map = {**(ctx.default_map or {}), **_db_defaults(ctx.command, str(db))}


# Each module adds its own commands; the order here is the help order.
for _module in (demo, ingest, predict, models, analyze, review, judge, ls, export, users):
    _module.register(app, import_app)


def _error_line(exc: BaseException) -> str | None:
    """The one-line message for an error the user can act on (None: a bug,
    shown as a traceback).  Secrets in it are redacted."""
    import re

    import duckdb

    from audit._util.redact import redact
    from audit._util.terminal import terminal_safe

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
    return "error: " + terminal_safe(redact(msg) or "")


def main() -> None:
    """Entry point.  Click handles usage errors (message, exit 2) and --help;
    an AuditError (and an OSError naming a file, a RecursionError, a DuckDB
    error) becomes one redacted line on stderr and exit code 1."""
    import logging
    import os

    # a failed --as sign-in is logged for the workbench's server log; on the command line the one
    # 'error:' line says it (Python would otherwise print the record to stderr before that line)
    logging.getLogger("audit.accounts").addHandler(logging.NullHandler())
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
