"""The campaign's review guidelines: Markdown, one text per interface
language, versioned.

An admin sets them (the Admin page, or :func:`set_guidelines`); reviewers
open them from the item page, and every verdict records the version in
force when it was saved (``reviews.guideline_version``, see
:func:`audit.review.record.add_reviews`), so a later change of the rules
can be told apart from a change of mind.

* Every save is a new version (table ``review_guidelines``, never updated);
  a version holds every language: saving one language's text carries the
  others over unchanged, and an empty text takes that language out.
* A language without its own text reads the English one
  (:func:`get_guidelines` says which language it returns).
* The text is untrusted: :func:`safe_markdown` is what is shown — no raw
  HTML, no images (an image from another server would tell it who reads
  the guidelines), links only to ``http``, ``https`` and ``mailto``.

>>> import tempfile, os
>>> from audit.accounts import add_account
>>> db = os.path.join(tempfile.mkdtemp(), "g.duckdb")
>>> _ = add_account("Dolma", "correct horse", db=db)
>>> set_guidelines("Answer **first**, then look.", language="en", actor="Dolma", db=db)
1
>>> set_guidelines("ལན་སྔོན་ལ་འདེབས།", language="bo", actor="Dolma", db=db)
2
>>> g = get_guidelines("zh-Hans", db=db)       # no Chinese text: the English one
>>> (g.version, g.language, g.text)
(2, 'en', 'Answer **first**, then look.')
>>> get_guidelines("en", version=1, db=db).text == get_guidelines("en", db=db).text
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from audit._util.sql import table_exists
from audit._util.text import clean_name
from audit.accounts import require_role
from audit.accounts.language import UI_LANGUAGES
from audit.errors import InputError, NotFoundError
from audit.store import DbPath, connect, transaction

__all__ = [
    "Guidelines", "MAX_GUIDELINE_CHARS", "current_version", "get_guidelines", "set_guidelines", "guideline_history",
    "safe_markdown",
]

MAX_GUIDELINE_CHARS = 100_000


@dataclass(frozen=True)
class Guidelines:
    """One language's guidelines at one version."""

    version: int
    language: str          # the language of ``text`` (English when the one asked for has none)
    text: str
    created_at: datetime
    created_by: str | None


def current_version(con) -> int | None:
    """The latest guideline version on connection ``con`` (None: none yet)."""
    if not table_exists(con, "review_guidelines"):
        return None
    return con.execute("SELECT max(version) FROM review_guidelines").fetchall()[0][0]


def set_guidelines(text: str, *, language: str = "en", actor: str | None = None, db: DbPath = None) -> int:
    """Save ``text`` (Markdown) as the guidelines in ``language`` and return
    the new version; the other languages' texts carry over; an empty text
    removes ``language`` from the new version.  An admin's act once the
    database has accounts."""
    if language not in UI_LANGUAGES:
        raise InputError(f"unknown language {language!r} for the guidelines (use one of: {', '.join(UI_LANGUAGES)})")
    text = "" if text is None else str(text).replace("\r\n", "\n").strip()
    if len(text) > MAX_GUIDELINE_CHARS:
        raise InputError(f"the guidelines hold at most {MAX_GUIDELINE_CHARS:,} characters, not {len(text):,}")
    with connect(db) as con, transaction(con):
        require_role(con, actor, "admin", "changing the review guidelines")
        prev = current_version(con)
        texts: dict[str, str] = {}
        if prev is not None:
            texts = dict(con.execute("SELECT language, text FROM review_guidelines WHERE version = ?",
                                     [prev]).fetchall())
        if texts.get(language, "") == text:
            if prev is None:
                raise InputError("the guidelines are empty: write them first")
            return prev            # nothing changed: no new version
        if text:
            texts[language] = text
        else:
            texts.pop(language, None)
        version = (prev or 0) + 1
        now = con.execute("SELECT timezone('UTC', now())::TIMESTAMP").fetchall()[0][0]
        by = clean_name(actor) or None     # a session's Account or a plain name
        for lang, t in sorted(texts.items()):
            con.execute("INSERT INTO review_guidelines (version, language, text, created_at, created_by) "
                        "VALUES (?, ?, ?, ?, ?)", [version, lang, t, now, by])
        if not texts:   # every language removed: an empty English text keeps the version visible
            con.execute("INSERT INTO review_guidelines (version, language, text, created_at, created_by) "
                        "VALUES (?, 'en', '', ?, ?)", [version, now, by])
    return version


def get_guidelines(language: str = "en", *, version: int | None = None, db: DbPath = None) -> Guidelines | None:
    """The guidelines in ``language`` (English when it has none) at
    ``version`` (default: the latest); None when there are none at all."""
    with connect(db, read_only=True) as con:
        v = current_version(con) if version is None else int(version)
        if v is None:
            return None
        rows = con.execute("SELECT language, text, created_at, created_by FROM review_guidelines WHERE version = ?",
                           [v]).fetchall()
    if not rows:
        raise NotFoundError(f"no guideline version {v}")
    by = {r[0]: r for r in rows}
    lang, text, at, who = by.get(language) or by.get("en") or rows[0]
    return Guidelines(v, lang, text, at, who)


def guideline_history(*, db: DbPath = None) -> pd.DataFrame:
    """Every guideline version and language: ``version, language,
    created_at`` (UTC), ``created_by, characters``; the newest first."""
    with connect(db, read_only=True) as con:
        if not table_exists(con, "review_guidelines"):
            return pd.DataFrame(columns=["version", "language", "created_at", "created_by", "characters"])
        return con.execute("SELECT version, language, created_at, created_by, length(text) AS characters "
                           "FROM review_guidelines ORDER BY version DESC, language").df()


_IMAGE = re.compile(r"!\[([^\]\n]*)\]\s*(\([^)\n]*\)|\[[^\]\n]*\])")
_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?((?:[^()\s>]|\([^()\s]*\))*)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*(\S+).*$", re.M)
_SAFE_URL = re.compile(r"^(https?://|mailto:)", re.I)


def safe_markdown(text: str | None) -> str:
    """Markdown that shows ``text`` without running or fetching anything:
    ``<`` becomes an entity (no HTML element, comment or autolink),
    an image becomes its alt text in brackets, a link to anything but
    ``http``, ``https`` or ``mailto`` becomes its text.

    >>> safe_markdown('<img src=x onerror=alert(1)> **ok** ![logo](http://t.example/p.png)')
    '&lt;img src=x onerror=alert(1)> **ok** [logo]'
    >>> safe_markdown('[docs](https://example.org/g) [x](javascript:alert(1))')
    '[docs](https://example.org/g) x'
    """
    if not text:
        return ""
    s = str(text).replace("<", "&lt;")
    s = _IMAGE.sub(lambda m: f"[{m.group(1)}]", s)
    s = _LINK.sub(lambda m: m.group(0) if _SAFE_URL.match(m.group(2)) else m.group(1), s)
    s = _REF_DEF.sub(lambda m: m.group(0) if _SAFE_URL.match(m.group(1)) else "", s)
    return s
