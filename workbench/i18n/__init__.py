"""Interface languages of the workbench: English, Chinese (simplified) and
Tibetan.

Every text a reviewer reads is looked up by key with :func:`t`; the English
catalogue (:mod:`workbench.i18n.en`, which also takes in every label of
:mod:`audit.words`) is the source.  The Chinese and Tibetan catalogues are
**drafts awaiting review by native speakers** (``DRAFT = True`` in each);
a key missing from them falls back to English, and
``tests/test_i18n.py`` fails when a catalogue lacks a key.

The choice is per user: kept in the Streamlit session and, when a reviewer
is signed in, saved as their setting through
:func:`audit.review.set_user_language`.
"""
from __future__ import annotations

from types import ModuleType

from workbench.i18n import bo, en, zh_Hans

LANGUAGES: dict[str, str] = {"en": "English", "zh-Hans": "简体中文", "bo": "བོད་ཡིག"}
CATALOGUES: dict[str, ModuleType] = {"en": en, "zh-Hans": zh_Hans, "bo": bo}
DEFAULT = "en"
K_LANG = "wb_lang"


def messages(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` (English for an unknown code)."""
    return CATALOGUES.get(lang, en).MESSAGES


def translate(key: str, lang: str, /, **kwargs: object) -> str:
    """The text of ``key`` in ``lang``, falling back to English, then to the
    key itself; ``{name}`` placeholders are filled from ``kwargs``.

    >>> translate("item.save", "en"), translate("item.save", "xx")
    ('Save verdict', 'Save verdict')
    >>> translate("queue.progress_you", "en", n=3)
    'you reviewed 3'
    """
    text = messages(lang).get(key) or en.MESSAGES.get(key) or key
    return text.format(**kwargs) if kwargs else text


def words(lang: str) -> dict[str, str]:
    """The :mod:`audit.words` labels in ``lang`` (for ``audit.words.outcome``)."""
    from audit.words import catalogue

    return {k: translate(k, lang) for k in catalogue()}
