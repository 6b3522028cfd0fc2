"""Shared CLI pieces: the --db option, signing in with --as, output helpers,
the options of a model run."""
from __future__ import annotations

import sys
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
    """Print one message to stdout.  Everything the CLI prints goes through
    here (and :func:`warn`): untrusted text in it (names, rationales,
    replies) reaches the terminal with no escape sequence
    (:func:`audit._util.terminal.terminal_safe`), and secrets are redacted."""
    from audit._util.redact import redact
    from audit._util.terminal import terminal_safe

    typer.echo(terminal_safe(redact(msg) or ""))


def table_text(df: "pd.DataFrame", empty: str = "(none)") -> str:
    """A DataFrame as a plain-text table, every cell terminal-safe
    (:func:`audit._util.terminal.frame_text`)."""
    from audit._util.terminal import frame_text

    return frame_text(df, empty=empty)


def terminal_text(text: str) -> str:
    """Untrusted text as it may reach a terminal (:func:`audit._util.terminal.terminal_safe`)."""
    from audit._util.terminal import terminal_safe

    return terminal_safe(text)


def json_out(obj, **kwargs) -> str:
    """JSON with every control character escaped (:func:`audit._util.terminal.json_text`)."""
    from audit._util.terminal import json_text

    return json_text(obj, **kwargs)


def warn(msg: str) -> None:
    """:func:`echo` to stderr."""
    from audit._util.redact import redact
    from audit._util.terminal import terminal_safe

    typer.echo(terminal_safe(redact(msg) or ""), err=True)


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
    text = table_text(df)
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
InputCostOption = Annotated[
    Optional[float],
    typer.Option("--input-cost-per-token", help="USD per prompt token, for models litellm has no price for."),
]
OutputCostOption = Annotated[Optional[float], typer.Option("--output-cost-per-token", help="USD per completion token.")]
ProgressOption = Annotated[Optional[bool], typer.Option("--progress/--no-progress", help="Progress bar (default: "
                                                                                        "when stderr is a terminal).")]


# Signing in on the command line: --as NAME, its password at a prompt or on stdin.
AsOption = Annotated[Optional[str], typer.Option(
    "--as", help="The acting account, once the database has accounts (an admin for accounts and settings; "
                 "a lead or admin for imports, runs, analyses and exports). Its password is asked at a "
                 "prompt, or read from the first line of stdin with --password-stdin.",
    show_default=False)]
PasswordStdinOption = Annotated[bool, typer.Option(
    "--password-stdin", help="Read passwords from standard input, one per line (the acting account's "
                             "first, then the new password), instead of prompting.")]


class Passwords:
    """Passwords from prompts or from stdin lines, in the order asked."""

    def __init__(self, from_stdin: bool):
        self.from_stdin = from_stdin
        self._lines: list[str] | None = None

    def get(self, prompt: str, *, confirm: bool = False) -> str:
        from audit.errors import InputError

        if self.from_stdin:
            if self._lines is None:
                # Lines end at "\n" only (a Windows "\r" before it is dropped): a password
                # holding U+2028 or another Unicode line break stays one line.
                text = sys.stdin.read()
                self._lines = [l[:-1] if l.endswith("\r") else l for l in text.split("\n")] if text else []
                if self._lines and self._lines[-1] == "" and text.endswith("\n"):
                    self._lines.pop()
            if not self._lines:
                raise InputError(f"--password-stdin: no line left on standard input for: {prompt.lower()}")
            return self._lines.pop(0)
        return typer.prompt(prompt, hide_input=True, confirmation_prompt=confirm)


def acting_account(name: str | None, passwords: Passwords, db: DbOption, *,
                   required_for: str | None = None) -> str | None:
    """Authenticate the ``--as`` account (None when not given) and return its
    name as stored.  With ``required_for`` (what the command does), a
    database with accounts refuses the command without ``--as``: it acts as
    a signed account, never as a name typed on the command line."""
    from audit.accounts import authenticate
    from audit.accounts.table import accounts_exist
    from audit.errors import PermissionDeniedError
    from audit.store import resolve_db_path

    if name is None:
        # a database not made yet has no account (an import may create it)
        if required_for is not None and resolve_db_path(db).exists() and accounts_exist(db=db):
            raise PermissionDeniedError(f"{required_for} needs a signed-in account: --as NAME (its password is "
                                        "asked at a prompt, or read with --password-stdin)")
        return None
    return authenticate(name, passwords.get(f"Password of {name}"), db=db).name
