"""``audit users add|list|disable|enable|reset-password``: workbench accounts.

Who acts: the first ``audit users add`` of a database needs no sign-in (that
account becomes the admin).  After that every change names an admin with
``--as NAME`` and proves it with that admin's password (asked at a prompt,
or the first line of standard input with ``--password-stdin``).  A new
password is asked at a prompt (twice), or read from the next line of
standard input with ``--password-stdin``.  Passwords never appear on the
command line, in the database or in logs.
"""
from __future__ import annotations

from typing import Annotated

import typer

from audit.cli._common import AsOption, DbOption, Passwords, PasswordStdinOption, acting_account, echo


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    users_app = typer.Typer(help="Workbench accounts and roles (reviewer, lead, admin).", no_args_is_help=True)
    users_app.command("add")(add_cmd)
    users_app.command("list")(list_cmd)
    users_app.command("disable")(disable_cmd)
    users_app.command("enable")(enable_cmd)
    users_app.command("reset-password")(reset_cmd)
    app.add_typer(users_app, name="users")


def add_cmd(
    name: Annotated[str, typer.Argument(help="The account's name (what the reviewer types to sign in).")],
    role: Annotated[
        str, typer.Option("--role", "-r", help="reviewer | lead | admin (the first account is always admin).")
    ] = "reviewer",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Add an account.  The first account of a database becomes the admin; later ones need
    --as ADMIN."""
    from audit.accounts import add_account

    pw = Passwords(password_stdin)
    actor = acting_account(as_, pw, db)
    acc = add_account(name, pw.get(f"New password for {name}", confirm=True), role=role, actor=actor, db=db)
    echo(f"added account {acc.name} ({acc.role})")


def list_cmd(db: DbOption = None) -> None:
    """List the accounts: name, role, disabled, created and updated (UTC).  No passwords."""
    from audit.accounts import list_accounts

    df = list_accounts(db=db)
    if df.empty:
        echo("no accounts yet; add the first (it becomes the admin) with: audit users add NAME")
        return
    echo(df.to_string(index=False))


def disable_cmd(
    name: Annotated[str, typer.Argument(help="The account to disable.")],
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Disable an account: it can no longer sign in and its open sessions end.  Its verdicts stay."""
    from audit.accounts import set_disabled

    pw = Passwords(password_stdin)
    acc = set_disabled(name, True, actor=acting_account(as_, pw, db), db=db)
    echo(f"disabled account {acc.name}")


def enable_cmd(
    name: Annotated[str, typer.Argument(help="The account to enable again.")],
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Enable a disabled account again."""
    from audit.accounts import set_disabled

    pw = Passwords(password_stdin)
    acc = set_disabled(name, False, actor=acting_account(as_, pw, db), db=db)
    echo(f"enabled account {acc.name}")


def reset_cmd(
    name: Annotated[str, typer.Argument(help="The account whose password is set.")],
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Set a new password (an admin for anyone, or --as the account itself with its old
    password).  The account's open sessions end."""
    from audit.accounts import reset_password

    pw = Passwords(password_stdin)
    actor = acting_account(as_, pw, db)
    acc = reset_password(name, pw.get(f"New password for {name}", confirm=True), actor=actor, db=db)
    echo(f"new password set for {acc.name}; their open sessions have ended")
