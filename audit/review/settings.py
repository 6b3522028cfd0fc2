"""How many independent reviews an item needs before it is settled: ``flagged``
for items in Tier 1–2 of the benchmark's current audit, ``other`` for the
rest (setting ``required_reviews``; changing it is an admin's act once the
database has accounts)."""
from __future__ import annotations

from dataclasses import dataclass

from audit.accounts import require_role
from audit.accounts.leads import leads_from
from audit.errors import InputError
from audit.store import DbPath, connect, transaction
from audit.store.settings import read_setting, write_setting

FLAGGED_TIERS = (1, 2)


@dataclass(frozen=True)
class RequiredReviews:
    """Independent reviews an item needs to be settled: ``flagged`` for items
    in Tier 1–2 of the benchmark's current audit, ``other`` for the rest."""

    flagged: int = 2
    other: int = 1

    def for_tier(self, tier: int | None) -> int:
        return self.flagged if tier in FLAGGED_TIERS else self.other


def settings_from(con) -> tuple[list[str], "RequiredReviews"]:
    """(leads, required reviews): what the item page needs of the settings."""
    return leads_from(con), required_reviews_from(con)


def required_reviews_from(con) -> RequiredReviews:
    v = read_setting(con, "required_reviews")
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
        write_setting(con, "required_reviews", {"flagged": new.flagged, "other": new.other})
    return new


def required_reviews(flagged: int | None = None, other: int | None = None, *, actor: str | None = None,
                     db: DbPath = None) -> RequiredReviews:
    """How many independent reviews settle an item (``audit review
    required``); with *flagged* or *other* (0 included, which is refused),
    set them first (:func:`set_required_reviews`)."""
    if flagged is not None or other is not None:
        return set_required_reviews(flagged=flagged, other=other, actor=actor, db=db)
    return get_required_reviews(db=db)


__all__ = [
    "FLAGGED_TIERS", "RequiredReviews", "settings_from", "required_reviews_from", "get_required_reviews",
    "set_required_reviews", "required_reviews",
]
