"""Names: the benchmark-name rule shared by every importer and by exports,
and the one identifier rule for everything else that names someone or
something (accounts, models, families, judges, subjects, item ids).

A benchmark name becomes a folder name under ``exports/`` and appears in
pages and files, so import refuses exactly what export refuses: names start
with a letter or digit and use letters, digits, ``.``, ``_`` and ``-`` (at
most 64 characters); ``..``, ``/``, ``<script>`` and the like are refused
before anything is written.

An identifier (:func:`identity_name`) is NFC, trimmed, and holds no
control, format, private-use or unassigned character, no line or paragraph
separator, no variation selector (U+FE00–FE0F, U+E0100–E01EF) and no
character that prints as nothing (U+2800, the Hangul fillers, U+034F…): a
name ending in U+FE0F renders exactly like the name without it.  Two names
that print alike (the same UTS #39 skeleton) are one name too many: the
check goes through a :class:`NameIndex` (skeleton → names), so a new name
costs one dictionary look-up however many names are known.
"""
from __future__ import annotations

import re

from audit.errors import InputError

BENCHMARK_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def validate_benchmark(name) -> str:
    """Return *name* if it can safely name a folder, else raise InputError.

    >>> validate_benchmark("tlue")
    'tlue'
    >>> validate_benchmark("/tmp/x")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: invalid benchmark name '/tmp/x' (it names a folder of exports): use
    letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64 characters)
    """
    if not isinstance(name, str) or not BENCHMARK_PATTERN.fullmatch(name) or ".." in name:
        raise InputError(
            f"invalid benchmark name {name!r} (it names a folder of exports): use letters, digits, '.', '_' and '-', "
            "starting with a letter or digit (at most 64 characters)"
        )
    return name


# ---------------------------------------------------------------- identities

#: Longest account name (characters, after normalisation).
MAX_ACCOUNT_NAME = 64
#: Longest model name (provider paths and tags are long); also judges.
MAX_MODEL_NAME = 200
#: Longest family, subject or item id.
MAX_OTHER_NAME = 200
#: Characters that print as nothing, or change how the previous character
#: prints, beyond the categories refused as a whole (Cc, Cf, Cs, Co, Cn, Zl,
#: Zp): the combining grapheme joiner, Hangul fillers, Khmer inherent
#: vowels, Mongolian variation selectors, the blank Braille pattern.
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
)
_REFUSED_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
_INVISIBLE_RE = re.compile("[" + "".join(sorted(_INVISIBLE)) + "\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_PROTOTYPES: dict[int, str] | None = None


def invisible_char(name: str) -> str | None:
    """The first character of *name* that no identifier may hold (a control,
    format or invisible character, a variation selector), or None.

    >>> [f"U+{ord(invisible_char(n)):04X}" for n in ("Pema\\ufe0f", "\\u2800Pema", "q\\u200b1", "x\\U000e0100")]
    ['U+FE0F', 'U+2800', 'U+200B', 'U+E0100']
    >>> invisible_char("བསོད་ནམས"), invisible_char("Цэрэн")
    (None, None)
    """
    import unicodedata

    if name.isprintable():   # no Cc, Cf, Cs, Co, Cn, Zl, Zp (nor Zs but the space): the fast, common case
        if name.isascii():
            return None
        m = _INVISIBLE_RE.search(name)
        return m.group(0) if m else None
    for ch in name:
        cp = ord(ch)
        if (ch in _INVISIBLE or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF
                or unicodedata.category(ch) in _REFUSED_CATEGORIES):
            return ch
    return None


def _prototypes() -> dict[int, str]:
    """Character → its confusable prototype, from Unicode's confusables
    data (UTS #39, ``confusables.txt``) as shipped by the maintained
    ``confusable-homoglyphs`` package: each character maps to the smallest
    code point among itself and its homoglyphs (Latin ``P`` for Cyrillic
    ``Р``, Greek ``Ρ`` and full-width ``Ｐ``)."""
    global _PROTOTYPES
    if _PROTOTYPES is None:
        from confusable_homoglyphs.utils import load

        data = load("confusables.json")
        protos = {ch: min([ch, *(h["c"] for h in glyphs if len(h["c"]) == 1)]) for ch, glyphs in data.items()}
        # as a str.translate table (code point → text): the mapping runs in C, not a loop per character
        _PROTOTYPES = {ord(ch): p for ch, p in protos.items() if len(ch) == 1 and p != ch}
    return _PROTOTYPES


def name_skeleton(name: str) -> str:
    """The form two names share when they print alike: compatibility forms
    folded (NFKD: full-width and mathematical letters), then each character
    replaced by its confusable prototype (UTS #39 skeleton), case-folded.

    >>> name_skeleton("Рema") == name_skeleton("Pema") == "pema"   # Cyrillic Р
    True
    """
    import unicodedata

    table = _prototypes()
    once = unicodedata.normalize("NFKD", name).translate(table).casefold()
    return unicodedata.normalize("NFC", once.translate(table))


class NameIndex:
    """Known names by skeleton, for the look-alike check in one look-up.

    ``ascii_lookalikes=False``: two all-ASCII names never count as
    look-alikes (model names such as ``m-l`` and ``m-1`` are distinct by
    convention).

    >>> ix = NameIndex(["Pema", "gpt4"])
    >>> ix.lookalike("Рema"), ix.lookalike("pema"), ix.same("PEMA")
    ('Pema', None, 'Pema')
    >>> ix.add("Dorje"); ix.lookalike("Dоrje")                      # Cyrillic о
    'Dorje'
    """

    def __init__(self, names=(), *, ascii_lookalikes: bool = True):
        self.ascii_lookalikes = ascii_lookalikes
        self._by_skeleton: dict[str, list[str]] = {}
        self._by_fold: dict[str, str] = {}
        self._last: tuple[str, str] = ("", "")   # the last (name, skeleton) computed: add() after lookalike()
        for n in names:
            if n is not None:
                self.add(n)

    def __len__(self) -> int:
        return len(self._by_fold)

    def add(self, name: str) -> None:
        fold = name.casefold()
        if fold in self._by_fold:
            return
        self._by_fold[fold] = name
        self._by_skeleton.setdefault(self._skeleton(name), []).append(name)

    def _skeleton(self, name: str) -> str:
        if self._last[0] != name:
            self._last = (name, name_skeleton(name))
        return self._last[1]

    def same(self, name: str) -> str | None:
        """The known name equal to *name* ignoring case (the same name), or None."""
        return self._by_fold.get(name.casefold())

    def lookalike(self, name: str) -> str | None:
        """A known name that prints like *name* but is another name, or None."""
        fold = name.casefold()
        for other in self._by_skeleton.get(self._skeleton(name), ()):
            if other.casefold() == fold:
                continue
            if not self.ascii_lookalikes and name.isascii() and other.isascii():
                continue
            return other
        return None


def _limit(kind: str) -> int:
    if kind.startswith("account"):
        return MAX_ACCOUNT_NAME
    if kind.startswith(("model", "judge")):
        return MAX_MODEL_NAME
    return MAX_OTHER_NAME


def _shown(name: str) -> str:
    """*name* as a message may quote it: at most 80 characters, anything not
    printable as a ``\\u`` escape."""
    cut = name[:80]
    return cut if cut.isprintable() else cut.encode("unicode_escape").decode("ascii")


def identity_name(name, *, kind: str = "account name", existing=(), ascii_lookalikes: bool = True) -> str:
    """The one rule for names that identify someone or something (accounts,
    models, families, judges, subjects, item ids): returns the name
    NFC-normalised, trimmed, inner runs of spaces collapsed, or raises
    :class:`~audit.errors.InputError` (one line) when it is empty, longer
    than the limit (64 characters for accounts, 200 otherwise), holds a
    character of :func:`invisible_char`, starts with a combining mark, or is
    *confusable* with a different name in ``existing`` (a
    :class:`NameIndex`, or any iterable of names; same :func:`name_skeleton`:
    ``Рema`` with a Cyrillic ``Р`` beside ``Pema``).  A name equal to one in
    ``existing`` (ignoring case) is not a confusion: it is the same name.
    With ``ascii_lookalikes=False`` two all-ASCII names never count as
    confusable.

    >>> identity_name("  Pema   Dorje ")
    'Pema Dorje'
    >>> identity_name("Pe\\u200bma")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: account name 'Pe\\u200bma' holds an
    invisible or control character (U+200B); use visible letters only
    >>> identity_name("Рema", existing=["Pema"])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: account name 'Рema' looks like the existing name 'Pema'
    (U+0420 CYRILLIC CAPITAL LETTER ER); choose a name that reads differently
    """
    import unicodedata

    if name is None or not isinstance(name, str):
        raise InputError(f"{kind} must be text, not {name!r}")
    bad = invisible_char(name)
    if bad is not None:
        raise InputError(f"{kind} '{_shown(name)}' holds an invisible or control character (U+{ord(bad):04X}); "
                         "use visible letters only")
    clean = " ".join(unicodedata.normalize("NFC", name).split())
    if not clean:
        raise InputError(f"{kind} is empty")
    if unicodedata.category(clean[0]).startswith("M"):
        raise InputError(f"{kind} '{_shown(name)}' starts with a combining mark (U+{ord(clean[0]):04X}); "
                         "start it with a letter or digit")
    limit = _limit(kind)
    if len(clean) > limit:
        raise InputError(f"{kind} '{clean[:40]}…' is {len(clean):,} characters long (at most {limit})")
    index = existing if isinstance(existing, NameIndex) else NameIndex(existing, ascii_lookalikes=ascii_lookalikes)
    other = index.lookalike(clean) if len(index) else None
    if other is not None:
        odd = next((c for c in clean if not c.isascii() and c not in other), None) or \
            next((c for c in clean if c not in other), "?")
        what = f" (U+{ord(odd):04X} {unicodedata.name(odd, '?')})" if odd != "?" else ""
        raise InputError(f"{kind} '{clean}' looks like the existing name '{other}'{what}; "
                         "choose a name that reads differently")
    return clean


def check_identifiers(names, *, kind: str, index: NameIndex | None = None) -> dict[str, str]:
    """Every distinct name of *names* through :func:`identity_name`, checked
    against *index* and against each other (a file holding ``gpt4`` and
    ``gрt4`` is refused); the names are added to *index*.  Returns name →
    its clean form (a name equal to a known one ignoring case maps to the
    known spelling).  Linear in the number of names.

    >>> check_identifiers(["meta", "Meta", "qwen"], kind="family")
    {'meta': 'meta', 'Meta': 'meta', 'qwen': 'qwen'}
    """
    index = index if index is not None else NameIndex(ascii_lookalikes=False)
    out: dict[str, str] = {}
    for n in names:
        if n in out:
            continue
        clean = identity_name(n, kind=kind, existing=index)
        known = index.same(clean)
        if known is None:
            index.add(clean)
            known = clean
        out[n] = known
    return out


def identifier_text(value, *, kind: str) -> str:
    """The character part of the rule alone, for identifiers that are many
    and need no look-alike check (item ids): *value* unchanged when it holds
    no character of :func:`invisible_char`, else one :class:`InputError`.

    >>> identifier_text("q1", kind="question id")
    'q1'
    >>> identifier_text("q1\\nq2", kind="question id")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: question id 'q1\\nq2' holds an invisible
    or control character (U+000A); use visible letters only
    """
    bad = invisible_char(value)
    if bad is not None:
        raise InputError(f"{kind} '{_shown(value)}' holds an invisible or control character (U+{ord(bad):04X}); "
                         "use visible letters only")
    return value
