"""The lead reviewers: who may adjudicate disputed items.

One fact, one source.  Once the database has accounts, the lead reviewers
*are* the enabled accounts with the ``lead`` role, and nothing else: the
stored list and ``$WORKBENCH_LEADS`` are not read (setting the list sets the
roles, :func:`audit.accounts.set_leads`).  Only a database without any
account keeps a list of names (``audit review leads`` and
``$WORKBENCH_LEADS``, which adds to it); there the list alone decides who
adjudicates (anyone, when it is empty)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from audit._util.text import clean_name
from audit.accounts.table import has_accounts
from audit.store import DbPath, connect
from audit.store.settings import read_setting

LEADS_ENV = "WORKBENCH_LEADS"


def env_leads() -> list[str]:
    """Lead reviewers named in ``$WORKBENCH_LEADS`` (comma-separated)."""
    raw = os.environ.get(LEADS_ENV, "")
    return [n for n in (clean_name(x) for x in raw.split(",")) if n]


def union_leads(stored, accounts: bool = False) -> list[str]:
    names = list(stored or []) + ([] if accounts else env_leads())
    seen: dict[str, str] = {}
    for n in names:
        seen.setdefault(n.casefold(), n)
    return sorted(seen.values(), key=str.casefold)


def leads_from(con) -> list[str]:
    """The lead reviewers, sorted case-insensitively: the enabled accounts
    with the ``lead`` role once the database has accounts; else the stored
    list and the environment (union, first spelling kept)."""
    if has_accounts(con):
        return [n for (n,) in con.execute(
            "SELECT name FROM accounts WHERE role = 'lead' AND NOT disabled ORDER BY name_key").fetchall()]
    return union_leads(read_setting(con, "leads"))


def is_lead(name: str, leads: list[str]) -> bool:
    return clean_name(name).casefold() in {l.casefold() for l in leads}


def get_leads(*, db: DbPath = None) -> list[str]:
    """Lead reviewers (may adjudicate disputed items; see the module).  In a
    database without accounts an empty list means no lead list is
    configured, and then anyone may adjudicate.

    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "s.duckdb")
    >>> from audit.accounts import set_leads
    >>> set_leads(["Tenzin", "dolma"], db=db)
    ['dolma', 'Tenzin']
    >>> get_leads(db=db) == ['dolma', 'Tenzin'] or bool(os.environ.get("WORKBENCH_LEADS"))
    True
    """
    with connect(db, read_only=True) as con:
        return leads_from(con)



@dataclass(frozen=True)
class LeadReviewers:
    """The lead reviewers: ``stored`` (the accounts with the lead role, or
    the stored list of a database without accounts) and ``from_env``
    (``$WORKBENCH_LEADS``, which adds to them without accounts only)."""

    stored: list[str]
    from_env: list[str]

    def line(self) -> str:
        """One line in plain words."""
        return ("lead reviewers: " + (", ".join(self.stored) if self.stored else
                                      "none configured (anyone may adjudicate)")
                + (f"  [{LEADS_ENV}: {', '.join(self.from_env)}]" if self.from_env else ""))


__all__ = ["LEADS_ENV", "env_leads", "union_leads", "leads_from", "is_lead", "get_leads", "LeadReviewers"]
