"""audit.accounts.language: each reviewer's interface language.  Pins the
three languages, that the name is matched as accounts are (case, spaces),
one reviewer's choice not touching another's, the refusals, and that a
stored value that is not a language reads as unset."""
from __future__ import annotations

import pytest

from audit.accounts.language import UI_LANGUAGES, get_user_language, set_user_language
from audit.errors import InputError
from audit.store import connect
from audit.store.settings import write_setting


def test_languages_are_those_of_the_catalogues():
    from audit import i18n

    assert set(UI_LANGUAGES) == set(i18n.LANGUAGES)


def test_set_and_get(db_path):
    assert get_user_language("Pema", db=db_path) is None
    assert set_user_language("Pema", "bo", db=db_path) == "bo"
    set_user_language("བསྟན་འཛིན", "zh-Hans", db=db_path)
    assert get_user_language("  PEMA ", db=db_path) == "bo"
    assert get_user_language("བསྟན་འཛིན", db=db_path) == "zh-Hans"
    set_user_language("pema", "en", db=db_path)                # the same reviewer
    assert get_user_language("Pema", db=db_path) == "en"
    assert get_user_language("", db=db_path) is None


@pytest.mark.parametrize("name, lang, says", [
    ("", "bo", "needs the reviewer's name"),
    ("   ", "en", "needs the reviewer's name"),
    ("Pema", "zh", "unknown interface language 'zh'"),
    ("Pema", "BO", "unknown interface language"),
    ("Pema", "zh-Hant", "unknown interface language"),
])
def test_refusals(db_path, name, lang, says):
    with pytest.raises(InputError, match=says):
        set_user_language(name, lang, db=db_path)


def test_a_stored_value_that_is_not_a_language_reads_as_unset(db_path):
    with connect(db_path) as con:
        write_setting(con, "user_language:pema", "fr")
    assert get_user_language("Pema", db=db_path) is None
