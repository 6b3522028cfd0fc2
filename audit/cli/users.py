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

import sys
from typing import Annotated, Optional

import typer

from audit.cli._common import DbOption, echo

AsOption = Annotated[Optional[str], typer.Option(
    "--as", help="The acting account (an admin here; a lead for 'audit export create'). Its password is "
                 "asked at a prompt, or read from the first line of stdin with --password-stdin.",
    show_default=False)]
PasswordStdinOption = Annotated[bool, typer.Option(
    "--password-stdin", help="Read passwords from standard input, one per line (the acting account's "
                             "first, then the new password), instead of prompting.")]


class _Passwords:
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


def acting_account(name: str | None, passwords: _Passwords, db: DbOption, *,
                   required_for: str | None = None) -> str | None:
    """Authenticate the ``--as`` account (None when not given) and return its
    name as stored.  With ``required_for`` (what the command does), a
    database with accounts refuses the command without ``--as``: it acts as
    a signed account, never as a name typed on the command line."""
    from audit.errors import PermissionDeniedError
    from audit.accounts import accounts_exist, authenticate

    if name is None:
        if required_for is not None and accounts_exist(db=db):
            raise PermissionDeniedError(f"{required_for} needs a signed-in account: --as NAME (its password is "
                                        "asked at a prompt, or read with --password-stdin)")
        return None
    return authenticate(name, passwords.get(f"Password of {name}"), db=db).name


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
    role: Annotated[str, typer.Option("--role", "-r", help="reviewer | lead | admin (the first account is always admin).")] = "reviewer",
    as_: AsOption = None,
    password_stdin: PasswordStdinOption = False,
    db: DbOption = None,
) -> None:
    """Add an account.  The first account of a database becomes the admin; later ones need
    --as ADMIN."""
    from audit.accounts import add_account

    pw = _Passwords(password_stdin)
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

    pw = _Passwords(password_stdin)
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

    pw = _Passwords(password_stdin)
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

    pw = _Passwords(password_stdin)
    actor = acting_account(as_, pw, db)
    acc = reset_password(name, pw.get(f"New password for {name}", confirm=True), actor=actor, db=db)
    echo(f"new password set for {acc.name}; their open sessions have ended")
