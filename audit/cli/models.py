"""``audit init`` and ``audit models …``."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from audit.cli._common import (
    AsOption,
    BenchmarkOption,
    DbOption,
    Passwords,
    PasswordStdinOption,
    acting_account,
    echo,
    table_text,
)

models_app = typer.Typer(help="List models and set their families.", no_args_is_help=True)


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    app.command("init")(init)
    app.add_typer(models_app, name="models")


def init(db: DbOption = None) -> None:
    """Create the database (or bring an existing one up to the current schema)."""
    from audit.store import init_db

    path = init_db(db)
    echo(f"database ready: {path}")


@models_app.command("list")
def list_cmd(db: DbOption = None, benchmark: BenchmarkOption = None) -> None:
    """Models with their family and provider."""
    from audit.ingest import list_models

    df = list_models(db=db, benchmark=benchmark)
    echo(table_text(df, empty="no models yet"))


@models_app.command("set-family")
def set_family_cmd(
    name: Annotated[str, typer.Argument(help="Model name as imported.")],
    family: Annotated[str, typer.Argument(help="Family, e.g. anthropic, google, openai.")],
    new: Annotated[bool, typer.Option("--new", help="Register the model when it is not known yet (a judge's "
                                                    "model, or one whose predictions come later).")] = False,
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Override the family inferred from a known model's name (the model must exist, or
    pass --new; a family that looks like another one is refused)."""
    from audit.ingest import set_family

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="setting a model's family")
    stored = set_family(name, family, db=db, create=new, actor=actor)
    echo(f"{name}: family = {stored}")


@models_app.command("import")
def import_cmd(
    path: Annotated[Path, typer.Argument(readable=False, help="CSV/JSONL with columns name, family[, provider].")],
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Set families for many models from a file (one row per model; every name a known
    model, unless the database knows no model yet)."""
    from audit.ingest import import_models

    actor = acting_account(as_, Passwords(password_stdin), db, required_for="setting model families")
    n = import_models(path, db=db, actor=actor)
    echo(f"{n} model families set")
