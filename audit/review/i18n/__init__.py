"""Interface languages of the workbench: English, Chinese (simplified) and
Tibetan.  The catalogues live in the library (the review stage: the words
reviewers read), so the Label Studio tasks the sync writes say what the
workbench says in the same three languages; the workbench only renders them.

Every text a reviewer reads is looked up by key with :func:`t`; the English
catalogue (:mod:`audit.review.i18n.en`, which also takes in every label of
:mod:`audit.words`) is the source.  The Chinese and Tibetan catalogues are
**drafts awaiting review by native speakers** (``DRAFT = True`` in each);
a key missing from them falls back to English, and
``tests/test_i18n.py`` fails when a catalogue lacks a key.

The choice is per user: kept in the Streamlit session and, when a reviewer
is signed in, saved as their setting through
:func:`audit.accounts.set_user_language`.
"""
from __future__ import annotations

from types import ModuleType

from audit.review.i18n import bo, en, zh_Hans

LANGUAGES: dict[str, str] = {"en": "English", "zh-Hans": "简体中文", "bo": "བོད་ཡིག"}
CATALOGUES: dict[str, ModuleType] = {"en": en, "zh-Hans": zh_Hans, "bo": bo}
DEFAULT = "en"
K_LANG = "wb_lang"


def from_accept_language(header: str | None) -> str | None:
    """The interface language a browser asks for in its ``Accept-Language``
    header (RFC 9110 §12.5.4: the highest ``q`` first, ties in order), or
    None when it names none of :data:`LANGUAGES`.  Any Chinese tag reads as
    simplified Chinese, any ``bo`` tag as Tibetan.

    >>> from_accept_language("bo-CN,bo;q=0.9,en;q=0.8")
    'bo'
    >>> from_accept_language("fr-FR, zh-TW;q=0.8, en;q=0.5")
    'zh-Hans'
    >>> from_accept_language("en;q=0.2, bo;q=0.7"), from_accept_language("de") is None
    ('bo', True)
    """
    if not header:
        return None
    ranked = []
    for i, part in enumerate(str(header).split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower()))
    for neg_q, _, tag in sorted(ranked):
        primary = tag.split("-")[0]
        if neg_q < 0 and primary in ("en", "bo"):
            return primary
        if neg_q < 0 and primary == "zh":
            return "zh-Hans"
    return None


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
