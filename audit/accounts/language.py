"""Each account's interface language, kept with the account."""
from __future__ import annotations

from audit._util.text import clean_name
from audit.errors import InputError
from audit.store import DbPath, connect, transaction
from audit.store.settings import read_setting, write_setting

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
        write_setting(con, f"user_language:{who.casefold()}", language)
    return language


def get_user_language(name: str, *, db: DbPath = None) -> str | None:
    """A reviewer's stored interface language, or None when not set."""
    who = clean_name(name)
    if not who:
        return None
    with connect(db, read_only=True) as con:
        v = read_setting(con, f"user_language:{who.casefold()}")
    return v if v in UI_LANGUAGES else None


__all__ = ["UI_LANGUAGES", "get_user_language", "set_user_language"]
