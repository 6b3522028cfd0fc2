"""Benchmark names: the one rule shared by every importer and by exports.

A benchmark name becomes a folder name under ``exports/`` and appears in
pages and files, so import refuses exactly what export refuses: names start
with a letter or digit and use letters, digits, ``.``, ``_`` and ``-`` (at
most 64 characters); ``..``, ``/``, ``<script>`` and the like are refused
before anything is written.
"""
from __future__ import annotations

import re

from audit.errors import InputError

BENCHMARK_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def validate_benchmark(name) -> str:
    """Return *name* if it can safely name a folder, else raise InputError.

    >>> validate_benchmark("tlue")
    'tlue'
    >>> validate_benchmark("/tmp/x")
    Traceback (most recent call last):
    ...
    audit.errors.InputError: invalid benchmark name '/tmp/x' (it names a folder of exports): use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64 characters)
    """
    if not isinstance(name, str) or not BENCHMARK_PATTERN.fullmatch(name) or ".." in name:
        raise InputError(
            f"invalid benchmark name {name!r} (it names a folder of exports): use letters, digits, '.', '_' and '-', "
            "starting with a letter or digit (at most 64 characters)"
        )
    return name




# ---------------------------------------------------------------- identities: account and model names

#: Longest account name (characters, after normalisation).
MAX_ACCOUNT_NAME = 64
#: Longest model name (provider paths and tags are long).
MAX_MODEL_NAME = 200
#: Characters no identity may hold beyond the control characters (category
#: Cc): zero-width, joiners, bidirectional marks and overrides, the byte
#: order mark, line and paragraph separators, invisible operators.
_INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
    "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2028\u2029\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f"
    "\u3164\ufeff\uffa0"
)
_PROTOTYPES: dict[str, str] | None = None


def _prototypes() -> dict[str, str]:
    """Character → its confusable prototype, from Unicode's confusables
    data (UTS #39, ``confusables.txt``) as shipped by the maintained
    ``confusable-homoglyphs`` package: each character maps to the smallest
    code point among itself and its homoglyphs (Latin ``P`` for Cyrillic
    ``Р``, Greek ``Ρ`` and full-width ``Ｐ``)."""
    global _PROTOTYPES
    if _PROTOTYPES is None:
        from confusable_homoglyphs.utils import load

        data = load("confusables.json")
        _PROTOTYPES = {ch: min([ch, *(h["c"] for h in glyphs if len(h["c"]) == 1)])
                       for ch, glyphs in data.items()}
    return _PROTOTYPES


def name_skeleton(name: str) -> str:
    """The form two names share when they print alike: compatibility forms
    folded (NFKD: full-width and mathematical letters), then each character
    replaced by its confusable prototype (UTS #39 skeleton), case-folded.

    >>> name_skeleton("Рema") == name_skeleton("Pema") == "pema"   # Cyrillic Р
    True
    """
    import unicodedata

    protos = _prototypes()
    once = "".join(protos.get(ch, ch) for ch in unicodedata.normalize("NFKD", name)).casefold()
    return unicodedata.normalize("NFC", "".join(protos.get(ch, ch) for ch in once))


def identity_name(name, *, kind: str = "account name", existing=(), ascii_lookalikes: bool = True) -> str:
    """The one rule for names that identify someone or something (account
    names, model names): returns the name NFC-normalised, trimmed, inner
    runs of spaces collapsed, or raises :class:`~audit.errors.InputError`
    (one line) when it is empty, longer than the limit (64 characters for
    accounts, 200 for models), holds a control, zero-width, bidirectional
    or other invisible character, or is *confusable* with a different name
    in ``existing`` (same :func:`name_skeleton`: ``Рema`` with a Cyrillic
    ``Р`` beside ``Pema``).  A name equal to one in ``existing`` (ignoring
    case) is not a confusion: it is the same name.  With
    ``ascii_lookalikes=False`` two all-ASCII names never count as confusable
    (model names such as ``m-l`` and ``m-1`` are distinct by convention).

    >>> identity_name("  Pema   Dorje ")
    'Pema Dorje'
    >>> identity_name("Pe\\u200bma")
    Traceback (most recent call last):
    ...
    audit.errors.InputError: account name 'Pe\\u200bma' holds an invisible or control character (U+200B); use visible letters only
    >>> identity_name("Рema", existing=["Pema"])
    Traceback (most recent call last):
    ...
    audit.errors.InputError: account name 'Рema' looks like the existing name 'Pema' (U+0420 CYRILLIC CAPITAL LETTER ER); choose a name that reads differently
    """
    import unicodedata

    if name is None or not isinstance(name, str):
        raise InputError(f"{kind} must be text, not {name!r}")
    limit = MAX_MODEL_NAME if kind.startswith("model") else MAX_ACCOUNT_NAME
    shown = name[:80].encode("unicode_escape").decode("ascii") if not name.isprintable() else name[:80]
    for ch in name:
        if ch in _INVISIBLE or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise InputError(f"{kind} '{shown}' holds an invisible or control character (U+{ord(ch):04X}); "
                             "use visible letters only")
    clean = " ".join(unicodedata.normalize("NFC", name).split())
    if not clean:
        raise InputError(f"{kind} is empty")
    if unicodedata.category(clean[0]).startswith("M"):
        raise InputError(f"{kind} '{shown}' starts with a combining mark (U+{ord(clean[0]):04X}); "
                         "start it with a letter or digit")
    if len(clean) > limit:
        raise InputError(f"{kind} '{clean[:40]}…' is {len(clean):,} characters long (at most {limit})")
    skel = name_skeleton(clean)
    for other in existing:
        if other is None or other.casefold() == clean.casefold():
            continue
        if name_skeleton(other) != skel:
            continue
        if not ascii_lookalikes and clean.isascii() and other.isascii():
            continue
        odd = next((c for c in clean if not c.isascii() and c not in other), None) or \
            next((c for c in clean if c not in other), "?")
        what = f" (U+{ord(odd):04X} {unicodedata.name(odd, '?')})" if odd != "?" else ""
        raise InputError(f"{kind} '{clean}' looks like the existing name '{other}'{what}; "
                         "choose a name that reads differently")
    return clean
