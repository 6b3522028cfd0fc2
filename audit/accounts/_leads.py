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
from audit.accounts._table import has_accounts
from audit.errors import InputError
from audit.store import DbPath, connect, read_setting, transaction, write_setting

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
    >>> set_leads(["Tenzin", "dolma"], db=db)
    ['dolma', 'Tenzin']
    >>> get_leads(db=db) == ['dolma', 'Tenzin'] or bool(os.environ.get("WORKBENCH_LEADS"))
    True
    """
    with connect(db, read_only=True) as con:
        return leads_from(con)


def set_leads(names, *, actor: str | None = None, db: DbPath = None) -> list[str]:
    """Replace the stored lead reviewers (``$WORKBENCH_LEADS`` still adds to
    them while the database has no account).  Once accounts exist this is an
    admin's act (``actor``, signed in by the caller) and every name must be
    an enabled account.  Returns the stored list."""
    from audit.accounts._roles import require_role
    from audit.accounts._table import account_from

    if isinstance(names, str):
        names = names.split(",")
    cleaned = [clean_name(n) for n in names]
    cleaned = [n for n in cleaned if n]
    uniq: dict[str, str] = {}
    for n in cleaned:
        uniq.setdefault(n.casefold(), n)
    stored = sorted(uniq.values(), key=str.casefold)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing the lead reviewers")
        if has_accounts(con):
            for n in stored:
                acc = account_from(con, n)
                if acc is None or acc.disabled:
                    raise InputError(f"'{n}' has no enabled account and cannot be a lead reviewer")
        write_setting(con, "leads", stored)
    return stored


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


def lead_reviewers(set_to: str | list[str] | None = None, *, actor: str | None = None,
                   db: DbPath = None) -> LeadReviewers:
    """The lead reviewers (``audit review leads``); with *set_to*, first
    replace the stored list (``""`` clears it; see :func:`set_leads`, an
    admin's act once accounts exist)."""
    if set_to is not None:
        set_leads(set_to, actor=actor, db=db)
    with connect(db, read_only=True) as con:
        stored = union_leads(read_setting(con, "leads"), True)
        accounts = has_accounts(con)
    return LeadReviewers(stored=stored, from_env=[] if accounts else env_leads())
