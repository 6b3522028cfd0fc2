"""audit.accounts.leads: the lead list.  Pins ``$WORKBENCH_LEADS`` parsing
(commas, spaces, empty parts), the union of the stored list and the
variable (first spelling kept, sorted case-insensitively), that the
variable is ignored once the database has accounts, ``is_lead`` matching
names as accounts do, and the one-line summary."""
from __future__ import annotations

import pytest

from audit.accounts import get_leads, set_leads
from audit.accounts.leads import LEADS_ENV, LeadReviewers, env_leads, is_lead, leads_from, union_leads
from audit.store import connect
from tests.support.account_rows import add_rows


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv(LEADS_ENV, raising=False)


def test_env_leads(monkeypatch):
    assert env_leads() == []
    monkeypatch.setenv(LEADS_ENV, " Tenzin ,, dolma  la ,")
    assert env_leads() == ["Tenzin", "dolma la"]


def test_union_keeps_first_spelling_and_sorts(monkeypatch):
    monkeypatch.setenv(LEADS_ENV, "TENZIN,Karma")
    assert union_leads(["Tenzin", "dolma"]) == ["dolma", "Karma", "Tenzin"]
    assert union_leads(["Tenzin", "dolma"], accounts=True) == ["dolma", "Tenzin"]
    assert union_leads(None) == ["Karma", "TENZIN"]


def test_is_lead():
    leads = ["Tenzin", "བསྟན་འཛིན"]
    assert is_lead("  tenzin ", leads) and is_lead("བསྟན་འཛིན", leads)
    assert not is_lead("Tenzi", leads) and not is_lead("", [])


def test_env_counts_only_without_accounts(db_path, monkeypatch):
    monkeypatch.setenv(LEADS_ENV, "Karma")
    set_leads(["Tenzin"], db=db_path)
    assert get_leads(db=db_path) == ["Karma", "Tenzin"]
    add_rows(db_path, ("Tenzin", "lead"), ("Karma", "reviewer"))
    with connect(db_path, read_only=True) as con:
        assert leads_from(con) == ["Tenzin"]   # with accounts, the leads are the accounts with the lead role


def test_an_empty_list(db_path):
    assert get_leads(db=db_path) == []


def test_line():
    assert LeadReviewers([], []).line() == "lead reviewers: none configured (anyone may adjudicate)"
    assert LeadReviewers(["dolma", "Tenzin"], ["Karma"]).line() == \
        f"lead reviewers: dolma, Tenzin  [{LEADS_ENV}: Karma]"
