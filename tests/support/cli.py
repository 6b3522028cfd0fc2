"""Running the ``audit`` command in this process.

``invoke`` drives the Typer app with its test runner (output and exit code).
``run_main`` runs :func:`audit.cli.main`, the entry point that turns an error
the user can act on into one line on stderr and exit code 1, with the same
runner's stream capture (click 8.2+ keeps stdout and stderr apart).
``run_cli`` does the same with pytest's ``capsys``; ``db_snapshot`` reads a
database back to compare it before and after an operation that must change
nothing."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from typer.testing import CliRunner


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def invoke(args: list[str], *, input: str | None = None):
    from audit.cli import app

    return CliRunner().invoke(app, [str(a) for a in args], input=input, catch_exceptions=False)


def run_main(args: list[str], *, input: str | None = None) -> Run:
    from audit.cli import main

    runner = CliRunner()
    old = sys.argv
    with runner.isolation(input=input) as (out, err, _):
        sys.argv = ["audit", *map(str, args)]
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.argv = old
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    return Run(code, stdout, stderr)


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """Run ``audit ARGS…`` in this process: (exit code, stdout, stderr)."""
    from audit.cli import main

    capsys.readouterr()  # drop what earlier steps printed
    old = sys.argv
    sys.argv = ["audit", *map(str, args)]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err
