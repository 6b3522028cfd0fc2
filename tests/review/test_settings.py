"""audit.review.settings: how many reviews settle an item — the defaults,
the tier rule, storing a partial change, the 1–20 bounds, and that once
accounts exist only an admin changes it."""
from __future__ import annotations

import pytest

from audit.accounts import add_account
from audit.errors import InputError, PermissionDeniedError
from audit.review import get_required_reviews, set_required_reviews
from audit.review.settings import FLAGGED_TIERS, RequiredReviews, required_reviews, settings_from
from audit.store import connect


@pytest.mark.parametrize("tier, want", [(1, 3), (2, 3), (0, 1), (3, 1), (5, 1), (None, 1)])
def test_for_tier(tier, want):
    assert FLAGGED_TIERS == (1, 2)
    assert RequiredReviews(flagged=3, other=1).for_tier(tier) == want


def test_defaults_and_a_partial_change(db_path):
    assert get_required_reviews(db=db_path) == RequiredReviews(2, 1)
    assert set_required_reviews(other=2, db=db_path) == RequiredReviews(2, 2)
    assert set_required_reviews(flagged=3, db=db_path) == RequiredReviews(3, 2)
    assert get_required_reviews(db=db_path) == RequiredReviews(3, 2)
    with connect(db_path, read_only=True) as con:
        leads, req = settings_from(con)
    assert req == RequiredReviews(3, 2) and leads == []


@pytest.mark.parametrize("kwargs", [{"flagged": 0}, {"other": 21}, {"flagged": -1}, {"other": True},
                                    {"flagged": 2.0}, {"other": "2"}])
def test_bounds_and_types_are_checked_and_nothing_is_stored(db_path, kwargs):
    with pytest.raises(InputError, match="must be a whole number from 1 to 20"):
        set_required_reviews(db=db_path, **kwargs)
    assert get_required_reviews(db=db_path) == RequiredReviews()


def test_the_wrapper_reads_or_sets(db_path):
    assert required_reviews(db=db_path) == RequiredReviews()
    assert required_reviews(20, 20, db=db_path) == RequiredReviews(20, 20)
    with pytest.raises(InputError):
        required_reviews(0, db=db_path)            # 0 is a value to set, and refused
    assert required_reviews(db=db_path) == RequiredReviews(20, 20)


def test_with_accounts_only_an_admin_changes_it(db_path):
    add_account("root", "a long admin passphrase", role="admin", db=db_path)
    add_account("pema", "a long reviewer passphrase", role="reviewer", actor="root", db=db_path)
    with pytest.raises(PermissionDeniedError):
        set_required_reviews(flagged=3, db=db_path)
    with pytest.raises(PermissionDeniedError):
        set_required_reviews(flagged=3, actor="pema", db=db_path)
    assert set_required_reviews(flagged=3, actor="root", db=db_path) == RequiredReviews(3, 1)
