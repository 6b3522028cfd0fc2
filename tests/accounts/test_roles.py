"""audit.accounts.roles: what a role allows.  Pins the ladder
(reviewer < lead < admin), the effective role (the lead list promotes and
never demotes; disabled accounts and unknown names have none once accounts
exist; without accounts a listed name is a lead), who may adjudicate, and
each message of :func:`require_role` (accounts written straight into a
real database: tests/support/account_rows.py)."""
from __future__ import annotations

import pytest

from audit.accounts.roles import account_role, effective_role, may_adjudicate, require_role, role_allows
from audit.errors import PermissionDeniedError
from audit.store import connect
from audit.store.settings import write_setting
from tests.support.account_rows import add_rows


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)


@pytest.fixture(scope="module")
def team(tmp_path_factory, migrated_template):
    """One database for the file (the tests only read it)."""
    import shutil

    db_path = tmp_path_factory.mktemp("roles") / "team.duckdb"
    shutil.copyfile(migrated_template, db_path)
    add_rows(db_path, ("Dolma", "admin"), ("Tenzin", "lead"), ("Pema", "reviewer"), ("Lhamo", "reviewer"),
             ("Karma", "lead", "pw", True))
    with connect(db_path) as con:
        write_setting(con, "leads", ["Lhamo", "Dolma"])
    return db_path


def test_role_allows():
    ladder = ["reviewer", "lead", "admin"]
    for i, role in enumerate(ladder):
        for j, needed in enumerate(ladder):
            assert role_allows(role, needed) is (i >= j), (role, needed)
    assert role_allows(None, "reviewer") is False


def test_effective_role_with_accounts(team):
    expected = {
        "Dolma": "admin",          # listed, but the list never demotes
        "tenzin": "lead",
        "Pema": "reviewer",
        "Lhamo": "reviewer",       # with accounts the list promotes nobody: the leads are the lead accounts
        "Karma": None,             # disabled
        "Nobody": None,            # no account
        None: None,
    }
    with connect(team, read_only=True) as con:
        assert {n: effective_role(con, n) for n in expected} == expected
    assert account_role("LHAMO", db=team) == "reviewer"


def test_effective_role_without_accounts(db_path):
    assert account_role("Anyone", db=db_path) == "reviewer"
    with connect(db_path) as con:
        write_setting(con, "leads", ["Tenzin"])
        assert effective_role(con, "TENZIN") == "lead"
        assert effective_role(con, "Pema") == "reviewer"


def test_may_adjudicate(team):
    with connect(team, read_only=True) as con:
        assert [may_adjudicate(con, n) for n in ("Dolma", "Tenzin", "Lhamo", "Pema", "Karma", "Nobody", None, "")] \
            == [True, True, False, False, False, False, False, False]


def test_may_adjudicate_without_accounts(db_path):
    with connect(db_path) as con:
        assert may_adjudicate(con, "Anyone")                # no accounts, no list: anyone
        write_setting(con, "leads", ["Tenzin"])
        assert may_adjudicate(con, "Tenzin") and not may_adjudicate(con, "Anyone")


REFUSALS = [
    (None, "lead", "adjudicating needs a signed-in lead reviewer"),
    (None, "admin", "adjudicating needs a signed-in administrator"),
    ("Nobody", "reviewer", "'Nobody' has no enabled account and may not do this: adjudicating"),
    ("Karma", "reviewer", "'Karma' has no enabled account"),
    ("Pema", "lead", "'Pema' is a reviewer; adjudicating is for lead reviewers"),
    ("  tenzin ", "admin", "'tenzin' is a lead reviewer; adjudicating is for administrators"),
]


def test_require_role_refusals(team):
    with connect(team, read_only=True) as con:
        for actor, role, says in REFUSALS:
            with pytest.raises(PermissionDeniedError) as e:
                require_role(con, actor, role, "adjudicating")
            assert says in str(e.value), (actor, role)


def test_require_role_allows(team):
    with connect(team, read_only=True) as con:
        for actor, role in (("Dolma", "admin"), ("Tenzin", "lead"), ("Lhamo", "reviewer"), ("Pema", "reviewer")):
            require_role(con, actor, role, "x")


def test_require_role_without_accounts(db_path):
    with connect(db_path) as con:
        require_role(con, None, "lead", "adjudicating")       # one person working locally: no check
        require_role(con, None, "admin", "anything")
        write_setting(con, "leads", ["Tenzin"])
        with pytest.raises(PermissionDeniedError, match="say who you are"):
            require_role(con, None, "lead", "adjudicating")
        require_role(con, "Tenzin", "lead", "adjudicating")
        require_role(con, None, "admin", "anything")         # admin acts need accounts to check against
        with pytest.raises(PermissionDeniedError, match="'Pema' is a reviewer"):
            require_role(con, "Pema", "lead", "adjudicating")
