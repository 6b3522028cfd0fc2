"""audit.accounts.table: the ``accounts`` table.  Pins the name key (NFC,
spaces collapsed, case-folded, bounded), looking an account up in any case,
``has_accounts`` on a database without the table, the role ladder of
:class:`Account.has` (a disabled account has no role), ``check_role``, and
that passwords are hashed with Argon2id."""
from __future__ import annotations

import duckdb
import pytest

from audit.accounts.table import (
    ROLE_LABELS,
    ROLES,
    Account,
    account_from,
    accounts_exist,
    check_role,
    has_accounts,
    name_key,
    password_hasher,
)
from audit.errors import InputError
from audit.store import connect
from tests.support.account_rows import add_rows


def test_name_key():
    assert name_key("  Pema   DORJE ") == "pema dorje"
    assert name_key("Straße") == "strasse"                     # full case folding
    assert name_key("e\u0301") == name_key("\u00e9")
    assert name_key("བསྟན་འཛིན") == "བསྟན་འཛིན"
    assert len(name_key("x" * 10_000)) == 256


def test_account_has():
    assert Account("a", "admin").has("lead") and Account("a", "admin").has("admin")
    assert Account("l", "lead").has("reviewer") and not Account("l", "lead").has("admin")
    assert not Account("r", "reviewer").has("lead")
    assert not Account("d", "admin", disabled=True).has("reviewer")
    assert list(ROLE_LABELS) == list(ROLES) == ["reviewer", "lead", "admin"]


@pytest.mark.parametrize("raw, role", [("lead", "lead"), (" ADMIN ", "admin"), ("Reviewer", "reviewer")])
def test_check_role(raw, role):
    assert check_role(raw) == role


@pytest.mark.parametrize("raw", ["", "root", "leader", "ལས་བྱེད"])
def test_check_role_refuses(raw):
    with pytest.raises(InputError, match="unknown role"):
        check_role(raw)


def test_has_accounts_without_the_table():
    con = duckdb.connect()
    assert has_accounts(con) is False
    assert account_from(con, "Pema") is None


def test_account_from_any_case_and_disabled(db_path):
    assert accounts_exist(db=db_path) is False
    add_rows(db_path, ("Dolma", "admin", "correct horse"), ("Pema Dorje", "reviewer", "battery", True))
    assert accounts_exist(db=db_path) is True
    with connect(db_path, read_only=True) as con:
        assert has_accounts(con) is True
        assert account_from(con, " dolma ") == Account("Dolma", "admin", False)
        assert account_from(con, "PEMA   dorje") == Account("Pema Dorje", "reviewer", True)
        assert account_from(con, "Karma") is None
        assert account_from(con, None) is None and account_from(con, "") is None


def test_passwords_are_argon2id(db_path):
    from audit.accounts import add_account

    add_account("Dolma", "correct horse", db=db_path)          # the production hash, once
    with connect(db_path, read_only=True) as con:
        stored = con.execute("SELECT password_hash FROM accounts WHERE name = 'Dolma'").fetchone()[0]
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    assert password_hasher().verify(stored, "correct horse")
    assert not password_hasher().check_needs_rehash(stored)
