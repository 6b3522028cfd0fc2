"""Cyrillic option letters: models answering in Kazakh, Kyrgyz, Russian or
Mongolian write the option letters in Cyrillic (``А) 323``, ``Б) Н. Бор``);
method "final" reads them as the Latin letters they stand for."""
from __future__ import annotations

import re
from collections.abc import Sequence

from audit.ingest.extract._filters import norm_option
from audit.options import LATIN_LABELS

__all__ = ["cyrillic_letters"]

# Models answering in Kazakh, Kyrgyz, Russian or Mongolian write the option letters in Cyrillic: "А) 323",
# "Б) Н. Бор", "Д) Ауа тамыр.".  A letter may stand for the Latin letter it looks or sounds like (А→A, Б→B,
# В→B, Д→D, С→C, Е→E) or for its place in the Cyrillic alphabet А Б В Г Д Е (→ A B C D E F).  The
# readings, the look/sound one first:
_CYR_READINGS: dict[str, tuple[str, ...]] = {
    "А": ("A",), "Б": ("B",), "В": ("B", "C"), "Г": ("D",), "Д": ("D", "E"), "Е": ("E", "F"), "С": ("C",)}
_CYR_READINGS.update({k.lower(): v for k, v in _CYR_READINGS.items()})
_CYR_WORD = "А-Яа-яЁёӘәҒғҚқҢңӨөҰұҮүҺһІіЇїЄєЎўҖҗ"
# A free-standing Cyrillic capital used as an option marker: "Б)", "(В)", "**Д**", "Жауабы: Б", "Б нұсқасы",
# and at the start of a line (or after a colon or dash) "Б. Н. Бор" / "Б: …"; a lower-case one only as "б)".
# Not "В 1914 жылы" (the preposition), "А ол …" (the conjunction), "г." (a year).
_CYR_MARK = re.compile(
    rf"(?:(?P<u>[АБВГДЕС])|(?P<lo>[абвгде])(?=[)）]))(?<![\w«\"“„'‘].)(?![\w])"
    rf"(?:(?=\*{{0,2}}[ \t]*(?:[)）]|\*\*|[,;!?]|[.:]?[ \t]*$))"
    rf"|(?=[ \t]+(?:нұсқа|вариант|жауап|жооп|сонголт|хариулт|ответ)(?![{_CYR_WORD}]{{6}}))"
    rf"|(?=(?P<dot>[.:])[ \t]))", re.M)
_CYR_GATE = re.compile("[" + "".join(_CYR_READINGS) + "]")   # (a class alone: the engine scans for it fast)
_CYR_HEAD = re.compile(r"(?:^|\n)[ \t>#*_\-•]{0,8}$|[:：—–][ \t*]{0,4}$")


def cyrillic_letters(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str:
    """``text`` with the Cyrillic letters used as option markers replaced by the Latin letters they stand
    for (the same length, so positions do not move).  When a letter has two readings (В: B by its look, C
    by its place; Д: D or E; Е: E or F), the option text written after it decides; without one, the
    reading by place when the response marks options with Г or with both Б and В (the Cyrillic order),
    else the reading by look or sound.  A letter followed by the text of an option that is not one of its
    readings stays as it is (the answer may then be read from the text).

    >>> cyrillic_letters("Жауабы: Б) Н. Бор", ("A", "B", "C", "D"))
    'Жауабы: B) Н. Бор'
    >>> cyrillic_letters("В) Ауа тамыр", ("A", "B", "C", "D"), ["323", "Н. Бор", "Ауа тамыр", "Күн"])
    'C) Ауа тамыр'
    >>> cyrillic_letters("В 1914 жылы", ("A", "B", "C", "D"))
    'В 1914 жылы'
    """
    if text.isascii() or not _CYR_GATE.search(text):
        return text
    marks = list(_CYR_MARK.finditer(text))
    if not marks:
        return text
    used = {(m.group("u") or m.group("lo")).upper() for m in marks}
    by_place = "Г" in used or {"Б", "В"} <= used
    norm = [norm_option(o) for o in options] if options else []
    out = list(text)
    for m in marks:
        raw = m.group("u") or m.group("lo")
        readings = [x for x in _CYR_READINGS[raw] if x in valid]
        if not readings:
            continue
        after = norm_option(text[m.end():m.end() + 200].split("\n", 1)[0])
        named: list[int] = []
        if norm:
            if any(o and o.startswith(raw.casefold() + " ") and norm_option(text[m.start():m.start() + 200]
                                                                              .split("\n", 1)[0]).startswith(o)
                   for o in norm):
                continue   # the letter begins an option's own text ("С. Сейфуллин")
            named = [i for i, o in enumerate(norm) if o and (after == o or after.startswith(o + " "))]
            if named:
                fits = [x for x in readings if LATIN_LABELS.index(x) in named]
                if not fits:
                    continue   # the text names another option: the letter cannot be read
                readings = fits
        if m.group("dot") is not None:   # "Б. Н. Бор": only where an option is written (a line start, after a colon)
            if not _CYR_HEAD.search(text, max(0, m.start() - 9), m.start()):
                continue
            if not named and re.match(r"[.:][ \t]?[A-ZА-ЯЁ]\.", text[m.end():m.end() + 4]):
                continue   # initials ("В. И. Ленин") when the option texts cannot tell
        out[m.start()] = readings[-1] if by_place else readings[0]
    return "".join(out)
