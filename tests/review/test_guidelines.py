"""The campaign's guidelines: one text per language, a new version on every
change (never on a save that changes nothing), English for a language
without its own text, an admin's act, and Markdown shown without running
or fetching anything."""
from __future__ import annotations

import pytest

import audit
from audit.review.guidelines import get_guidelines, guideline_history, safe_markdown, set_guidelines
from tests.support.accounts import ensure_account


@pytest.fixture
def db(db_path):
    ensure_account("Admin G", "admin", db=db_path)
    ensure_account("Pema G", db=db_path)
    return db_path


def test_versions_carry_the_other_languages_over(db):
    assert get_guidelines("en", db=db) is None
    assert set_guidelines("Read first.", actor="Admin G", db=db) == 1
    assert set_guidelines("སྔོན་ལ་ཀློག", language="bo", actor="Admin G", db=db) == 2
    assert set_guidelines("སྔོན་ལ་ཀློག", language="bo", actor="Admin G", db=db) == 2     # unchanged: no version
    assert set_guidelines("先读题。", language="zh-Hans", actor="Admin G", db=db) == 3
    assert (get_guidelines("en", db=db).text, get_guidelines("bo", db=db).text) == ("Read first.", "སྔོན་ལ་ཀློག")
    assert get_guidelines("zh-Hans", version=2, db=db).language == "en"                 # none then: English
    assert set_guidelines("", language="zh-Hans", actor="Admin G", db=db) == 4          # taken out again
    assert get_guidelines("zh-Hans", db=db).text == "Read first."
    hist = guideline_history(db=db)
    assert hist["version"].max() == 4 and set(hist.loc[hist["version"] == 3, "language"]) == {"en", "bo", "zh-Hans"}
    with pytest.raises(audit.NotFoundError):
        get_guidelines("en", version=9, db=db)


def test_only_an_admin_sets_them_and_the_input_is_checked(db):
    with pytest.raises(audit.PermissionDeniedError):
        set_guidelines("x", actor="Pema G", db=db)
    with pytest.raises(audit.InputError, match="unknown language"):
        set_guidelines("x", language="fr", actor="Admin G", db=db)
    with pytest.raises(audit.InputError, match="empty"):
        set_guidelines("  ", actor="Admin G", db=db)
    assert get_guidelines("en", db=db) is None


def test_the_text_shown_runs_and_fetches_nothing():
    shown = safe_markdown('<script>alert(1)</script> ![x](https://t.example/p.png) [a](data:text/html,x) '
                          '[b](https://example.org)\n[r]: javascript:alert(1)')
    assert "<" not in shown and "https://t.example" not in shown and "data:" not in shown
    assert "javascript:" not in shown and "[b](https://example.org)" in shown
