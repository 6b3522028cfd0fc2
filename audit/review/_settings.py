"""Review settings: who may adjudicate (lead reviewers) and how many
independent reviews an item needs before it is settled.

Settings live in the ``review_settings`` table (JSON values).  Lead reviewers
may also come from the environment variable ``WORKBENCH_LEADS``
(comma-separated) while the database has no account; the leads are then the
union of both.  Once accounts exist the variable is ignored, and changing
the lead list or the required reviews needs an admin ``actor`` (see
:func:`audit.review._accounts.require_role`); every listed lead must then be
an enabled account.  Names compare without regard to case or surrounding
spaces.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from audit.errors import InputError
from audit.review._common import clean_name, has_accounts, utc_now
from audit.store import DbPath, connect, transaction

LEADS_ENV = "WORKBENCH_LEADS"
FLAGGED_TIERS = (1, 2)


@dataclass(frozen=True)
class RequiredReviews:
    """Independent reviews an item needs to be settled: ``flagged`` for items
    in Tier 1–2 of the benchmark's current audit, ``other`` for the rest."""

    flagged: int = 2
    other: int = 1

    def for_tier(self, tier: int | None) -> int:
        return self.flagged if tier in FLAGGED_TIERS else self.other


def _read_setting(con, name: str):
    rows = con.execute("SELECT value FROM review_settings WHERE name = ?", [name]).fetchall()
    return json.loads(rows[0][0]) if rows else None


def _write_setting(con, name: str, value) -> None:
    con.execute(
        "INSERT INTO review_settings (name, value, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        [name, json.dumps(value, ensure_ascii=False), utc_now()],
    )


def env_leads() -> list[str]:
    """Lead reviewers named in ``$WORKBENCH_LEADS`` (comma-separated)."""
    raw = os.environ.get(LEADS_ENV, "")
    return [n for n in (clean_name(x) for x in raw.split(",")) if n]


def _union_leads(stored, accounts: bool = False) -> list[str]:
    names = list(stored or []) + ([] if accounts else env_leads())
    seen: dict[str, str] = {}
    for n in names:
        seen.setdefault(n.casefold(), n)
    return sorted(seen.values(), key=str.casefold)


def leads_from(con) -> list[str]:
    """Lead reviewers from the settings table and the environment (union,
    first spelling kept, sorted case-insensitively)."""
    return _union_leads(_read_setting(con, "leads"), has_accounts(con))


def settings_from(con) -> tuple[list[str], "RequiredReviews"]:
    """(leads, required reviews) in one query (the item page's fast path)."""
    values = {n: json.loads(v) for n, v in con.execute("SELECT name, value FROM review_settings").fetchall()}
    req = values.get("required_reviews")
    return (_union_leads(values.get("leads"), has_accounts(con)),
            RequiredReviews(**req) if req else RequiredReviews())


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
    from audit.review._accounts import account_from, require_role

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
        _write_setting(con, "leads", stored)
    return stored


def required_reviews_from(con) -> RequiredReviews:
    v = _read_setting(con, "required_reviews")
    return RequiredReviews(**v) if v else RequiredReviews()


def get_required_reviews(*, db: DbPath = None) -> RequiredReviews:
    """How many independent reviews settle an item (default: 2 for Tier 1–2,
    1 otherwise)."""
    with connect(db, read_only=True) as con:
        return required_reviews_from(con)


def set_required_reviews(*, flagged: int | None = None, other: int | None = None, actor: str | None = None,
                         db: DbPath = None) -> RequiredReviews:
    """Store the number of independent reviews required for Tier 1–2 items
    (``flagged``) and for the others (``other``); each from 1 to 20.  Once
    accounts exist this is an admin's act (``actor``)."""
    from audit.review._accounts import require_role

    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing the required reviews")
        cur = required_reviews_from(con)
        new = RequiredReviews(
            flagged=cur.flagged if flagged is None else flagged,
            other=cur.other if other is None else other,
        )
        for label, n in (("flagged", new.flagged), ("other", new.other)):
            if not isinstance(n, int) or isinstance(n, bool) or n < 1 or n > 20:
                raise InputError(f"required reviews ({label}) must be a whole number from 1 to 20, not {n!r}")
        _write_setting(con, "required_reviews", {"flagged": new.flagged, "other": new.other})
    return new


UI_LANGUAGES = ("en", "zh-Hans", "bo")


def set_user_language(name: str, language: str, *, db: DbPath = None) -> str:
    """Store a reviewer's interface language (``en``, ``zh-Hans`` or ``bo``).

    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "s.duckdb")
    >>> set_user_language("Pema", "bo", db=db), get_user_language(" pema ", db=db), get_user_language("Tenzin", db=db)
    ('bo', 'bo', None)
    """
    who = clean_name(name)
    if not who:
        raise InputError("a user language needs the reviewer's name")
    if language not in UI_LANGUAGES:
        raise InputError(f"unknown interface language {language!r} (use one of: {', '.join(UI_LANGUAGES)})")
    with connect(db) as con, transaction(con):
        _write_setting(con, f"user_language:{who.casefold()}", language)
    return language


def get_user_language(name: str, *, db: DbPath = None) -> str | None:
    """A reviewer's stored interface language, or None when not set."""
    who = clean_name(name)
    if not who:
        return None
    with connect(db, read_only=True) as con:
        v = _read_setting(con, f"user_language:{who.casefold()}")
    return v if v in UI_LANGUAGES else None


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
        stored = _union_leads(_read_setting(con, "leads"), True)
        accounts = has_accounts(con)
    return LeadReviewers(stored=stored, from_env=[] if accounts else env_leads())


def required_reviews(flagged: int | None = None, other: int | None = None, *, actor: str | None = None,
                     db: DbPath = None) -> RequiredReviews:
    """How many independent reviews settle an item (``audit review
    required``); with *flagged* or *other* (0 included, which is refused),
    set them first (:func:`set_required_reviews`)."""
    if flagged is not None or other is not None:
        return set_required_reviews(flagged=flagged, other=other, actor=actor, db=db)
    return get_required_reviews(db=db)
