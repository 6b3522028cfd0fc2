"""Every sentence and label a person reads, in the interface languages:
English (the source, :mod:`audit.i18n.en`), Chinese (simplified) and
Tibetan.  The catalogues live in the library so the CLI, the Label Studio
tasks the sync writes and the workbench say the same things; the workbench
only renders them.  Stored codes (:mod:`audit.vocab`) never carry English:
:func:`label` gives their words.

Every text is looked up by key with :func:`translate`.  The Chinese and
Tibetan catalogues are **drafts awaiting review by native speakers**
(``DRAFT = True`` in each); a key missing from them falls back to English,
and a test fails when a catalogue lacks a key.

The choice is per user: kept in the Streamlit session and, when a reviewer
is signed in, saved with the account
(:func:`audit.accounts.language.set_user_language`).
"""
# the catalogues are imported so that ``audit.i18n.bo`` and its peers resolve as attributes
from audit.i18n import bo as bo
from audit.i18n import en as en
from audit.i18n import zh_Hans as zh_Hans
from audit.i18n._catalogue import (
    DEFAULT,
    LANGUAGES,
    from_accept_language,
    glossary_table,
    humanise,
    label,
    messages,
    outcome,
    translate,
)

__all__ = [
    "LANGUAGES", "DEFAULT", "translate", "label", "outcome", "messages", "glossary_table", "humanise",
    "from_accept_language",
]
