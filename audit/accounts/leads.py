"""The lead list (``audit review leads`` and ``$WORKBENCH_LEADS``): names that
may adjudicate disputed items.  A name on the stored list is a lead even
when its account says ``reviewer`` (the list promotes, it never demotes).
Once the database has accounts only enabled accounts act, and
``$WORKBENCH_LEADS`` is ignored; with no account at all, the list alone
decides who adjudicates (anyone, when it is empty)."""
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
    """Lead reviewers from the settings table and the environment (union,
    first spelling kept, sorted case-insensitively)."""
    return union_leads(read_setting(con, "leads"), has_accounts(con))


def is_lead(name: str, leads: list[str]) -> bool:
    return clean_name(name).casefold() in {l.casefold() for l in leads}


def get_leads(*, db: DbPath = None) -> list[str]:
    """Lead reviewers (may adjudicate disputed items).  Empty list = no lead
    list configured, and then anyone may adjudicate.

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
    """The lead reviewers: ``stored`` in the database and ``from_env``
    (``$WORKBENCH_LEADS``, which adds to them)."""

    stored: list[str]
    from_env: list[str]

    def line(self) -> str:
        """One line in plain words."""
        return ("lead reviewers: " + (", ".join(self.stored) if self.stored else
                                      "none configured (anyone may adjudicate)")
                + (f"  [{LEADS_ENV}: {', '.join(self.from_env)}]" if self.from_env else ""))


__all__ = ["LEADS_ENV", "env_leads", "union_leads", "leads_from", "is_lead", "get_leads", "LeadReviewers"]
