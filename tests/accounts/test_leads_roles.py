"""One source of truth for who leads: once a database has accounts, the
lead reviewers are the enabled accounts with the lead role; the stored list
and $WORKBENCH_LEADS are read only without accounts; setting the leads sets
roles; migration 046 gives the accounts an old list promoted the role."""
from __future__ import annotations

import pytest

import audit
from audit.accounts import add_account, get_leads, list_accounts, set_leads
from audit.accounts.roles import account_role
from audit.store import connect
from audit.store.settings import write_setting

PW = "correct horse battery"


@pytest.fixture
def team(db_path):
    add_account("Root", PW, db=db_path)
    for name, role in (("Pema", "reviewer"), ("Karma", "reviewer"), ("Lhamo", "lead")):
        add_account(name, PW, role=role, actor="Root", db=db_path)
    return db_path


def test_the_leads_are_the_accounts_with_the_lead_role(team, monkeypatch):
    assert get_leads(db=team) == ["Lhamo"]
    monkeypatch.setenv("WORKBENCH_LEADS", "Pema")
    with connect(team) as con:              # an old stored list no longer promotes anyone
        write_setting(con, "leads", ["Karma"])
    assert get_leads(db=team) == ["Lhamo"]
    assert account_role("Karma", db=team) == "reviewer" and account_role("Pema", db=team) == "reviewer"
    audit.accounts.set_disabled("Lhamo", actor="Root", db=team)
    assert get_leads(db=team) == []


def test_setting_the_leads_sets_the_roles(team):
    assert set_leads(["Pema", "Root"], actor="Root", db=team) == ["Pema"]
    roles = dict(zip(list_accounts(db=team)["name"], list_accounts(db=team)["role"]))
    assert roles == {"Root": "admin", "Pema": "lead", "Karma": "reviewer", "Lhamo": "reviewer"}
    assert audit.accounts.lead_reviewers(db=team).line() == "lead reviewers: Pema"
    with pytest.raises(audit.PermissionDeniedError):
        set_leads(["Karma"], actor="Pema", db=team)      # a lead does not make leads
    with pytest.raises(audit.InputError, match="no enabled account"):
        set_leads(["Nobody"], actor="Root", db=team)


def test_without_accounts_the_list_decides(db_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    assert set_leads(["Tenzin"], db=db_path) == ["Tenzin"]
    monkeypatch.setenv("WORKBENCH_LEADS", "Dawa")
    assert get_leads(db=db_path) == ["Dawa", "Tenzin"]
    assert account_role("Tenzin", db=db_path) == "lead" and account_role("Pema", db=db_path) == "reviewer"


def test_migration_049_gives_the_listed_accounts_the_lead_role(team):
    from audit.store._migrate import migrations

    sql = next(s for v, n, s in migrations() if n.endswith("_leads_are_roles.sql"))
    with connect(team) as con:
        write_setting(con, "leads", ["karma ", "Nobody"])
        con.execute(sql)
    assert account_role("Karma", db=team) == "lead"
    assert get_leads(db=team) == ["Karma", "Lhamo"]
