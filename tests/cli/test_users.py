"""audit.cli.users: ``audit users add|list|disable|enable|reset-password``
through the Typer app on a real DuckDB file, passwords on stdin
(``--password-stdin``) — --help of each, the first account an admin without
sign-in, every later change signed with --as and the admin's password, the
list equal to the library's and never a password, and refusals as one line
on stderr with exit code 1 that names the fix."""
import shutil

import pytest

from audit.accounts import authenticate, list_accounts
from tests.support.cli import invoke, run_main
from tests.support.tiny import rows

ADMIN_PW = "admin password one"
NEW_PW = "reviewer password 2"
COMMANDS = [["users", c] for c in ("add", "list", "disable", "enable", "reset-password")]


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help(cmd):
    r = invoke([*cmd, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")
    if cmd[1] != "list":
        assert "--password-stdin" in r.output


@pytest.fixture(scope="module")
def with_admin(migrated_template, tmp_path_factory):
    """A database whose first account, Admin, was added through the command (password hashing is slow:
    done once)."""
    db = tmp_path_factory.mktemp("users") / "admin.duckdb"
    shutil.copyfile(migrated_template, db)
    assert invoke(["users", "list", "--db", db]).output.startswith("no accounts yet; add the first")
    r = invoke(["users", "add", "Admin", "--password-stdin", "--db", db], input=ADMIN_PW + "\n")
    assert r.exit_code == 0 and r.output == "added account Admin (admin)\n"
    return db


@pytest.fixture
def db(with_admin, tmp_path):
    path = tmp_path / "u.duckdb"
    shutil.copyfile(with_admin, path)
    return path


@pytest.mark.slow
def test_accounts_lifecycle(db):
    db_path = db
    r = invoke(["users", "add", "ཚེ་རིང་", "-r", "lead", "--as", "admin", "--password-stdin", "--db", db_path],
               input=f"{ADMIN_PW}\n{NEW_PW}\n")
    assert r.exit_code == 0 and r.output == "added account ཚེ་རིང་ (lead)\n"
    listed = invoke(["users", "list", "--db", db_path]).output
    assert listed == list_accounts(db=db_path).to_string(index=False) + "\n"
    assert ADMIN_PW not in listed and NEW_PW not in listed
    r = invoke(["users", "disable", "ཚེ་རིང་", "--as", "Admin", "--password-stdin", "--db", db_path],
               input=ADMIN_PW + "\n")
    assert r.output == "disabled account ཚེ་རིང་\n"
    assert rows(db_path, "SELECT disabled FROM accounts WHERE name = 'ཚེ་རིང་'") == [(True,)]
    r = invoke(["users", "enable", "ཚེ་རིང་", "--as", "Admin", "--password-stdin", "--db", db_path],
               input=ADMIN_PW + "\n")
    assert r.output == "enabled account ཚེ་རིང་\n"
    r = invoke(["users", "reset-password", "ཚེ་རིང་", "--as", "Admin", "--password-stdin", "--db", db_path],
               input=f"{ADMIN_PW}\nbrand new password\n")
    assert r.output == "new password set for ཚེ་རིང་; their open sessions have ended\n"
    assert authenticate("ཚེ་རིང་", "brand new password", db=db_path).role == "lead"


def test_prompted_passwords_are_confirmed(db_path):
    r = invoke(["users", "add", "Admin", "--db", db_path], input=f"{ADMIN_PW}\n{ADMIN_PW}\n")
    assert r.exit_code == 0 and r.output.endswith("added account Admin (admin)\n")
    assert ADMIN_PW not in r.output


@pytest.mark.parametrize("args,stdin,message", [
    (["users", "add", "Bob"], NEW_PW + "\n", "needs a signed-in administrator (e.g. --as name)"),
    (["users", "add", "Bob", "--as", "Admin"], "wrong password\n" + NEW_PW + "\n",
     "the name or the password is not right"),
    (["users", "disable", "Admin", "--as", "Admin"], ADMIN_PW + "\n", "last"),
    (["users", "add", "Bob", "--as", "Admin"], ADMIN_PW + "\n", "no line left on standard input"),
    (["users", "add", "Bob", "--as", "Admin"], ADMIN_PW + "\nshort\n", "at least"),
])
def test_refusals_are_one_line(db, args, stdin, message):
    db_path = db
    r = run_main([*args, "--password-stdin", "--db", db_path], input=stdin)
    assert r.code == 1 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr.lower()
    assert ADMIN_PW not in r.stderr
    assert rows(db_path, "SELECT count(*) FROM accounts") == [(1,)]
