"""Which script a text is written in: the one rule, for importing items and
for rendering them.

A script is an ISO 15924 code: ``Tibt`` (Tibetan, also Dzongkha), ``Hans`` /
``Hant`` (Chinese, simplified / traditional), ``Arab`` (Uyghur, Kazakh in
Arabic script, …), ``Mong`` (traditional Mongolian, written vertically),
``Cyrl``, ``Latn``, ``Kore`` (Hangul, with or without Hanja) and ``Jpan``
(kana, with or without kanji).

A script belongs to a text, not to an item: a Chinese stem may have Tibetan,
Uyghur or Mongolian options (CMiLBench), each rendered in its own script.
:func:`option_scripts` gives the options' scripts when one differs from the
stem's.
"""
from __future__ import annotations

import re

# Language subtag → ISO 15924 script, for the languages this tool is built for.
LANGUAGE_SCRIPT = {
    "bo": "Tibt", "dz": "Tibt", "zh-hans": "Hans", "zh-cn": "Hans", "zh-sg": "Hans", "zh": "Hans",
    "zh-hant": "Hant", "zh-tw": "Hant", "zh-hk": "Hant", "zh-mo": "Hant", "ug": "Arab", "ug-arab": "Arab",
    "kk-arab": "Arab", "ky-arab": "Arab", "ar": "Arab", "fa": "Arab", "ur": "Arab", "mn-mong": "Mong",
    "mn-cyrl": "Cyrl", "mn": "Cyrl", "kk": "Cyrl", "ru": "Cyrl", "ky": "Cyrl", "en": "Latn", "fr": "Latn",
    "de": "Latn", "es": "Latn", "ug-latn": "Latn", "kk-latn": "Latn", "ja": "Jpan", "ko": "Kore",
}



def script_of(text: str | None, language: str | None = None) -> str | None:
    """ISO 15924 script of an item, decided by the letters of its text.

    Order: an explicit script subtag in the language tag (``zh-Hant``,
    ``mn-Mong``) wins; otherwise the script with the most letters in the
    text (so ``mn`` with Mongolian letters is ``Mong``, with Cyrillic
    ``Cyrl``); the language tag alone decides only when the text has no
    letters of a known script (and for ``ja``/``ko``, whose Han characters
    are not Chinese).  Han text is simplified or traditional as
    ``hanzidentifier`` (a maintained library built on CC-CEDICT data) says;
    when it cannot tell (text valid in both), the language tag decides
    (``zh-TW`` → Hant), else ``Hans``.

    >>> [script_of(t) for t in ["བོད་ཡིག", "这个问题", "這個問題", "ئۇيغۇر", "ᠮᠣᠩᠭᠣᠯ", "Hello"]]
    ['Tibt', 'Hans', 'Hant', 'Arab', 'Mong', 'Latn']
    >>> script_of("anything", "zh-Hant"), script_of("ᠮᠣᠩᠭᠣᠯ ᠬᠡᠯᠡ", "mn"), script_of("Монгол хэл", "mn")
    ('Hant', 'Mong', 'Cyrl')
    >>> script_of("莎士比亞的《李爾王》是____。"), script_of("中文", "zh-TW"), script_of("", "bo")
    ('Hant', 'Hant', 'Tibt')

    Hangul makes a text Korean and kana Japanese, with the Han characters
    they are written with; Latin letters inside LaTeX (``$…$``, ``\\(…\\)``,
    ``\\frac``) do not outvote the Chinese around them:

    >>> script_of("옥수수 복교잡종의 特徵이 아닌 것은?")
    'Kore'
    >>> script_of("2019年現在、同性愛を社会が受け入れるべきだとする割合は？")
    'Jpan'
    >>> script_of("已知复数 $z=\\\\frac{\\\\sqrt{3}+i}{(1-\\\\sqrt{3} i)^{2}}$, 则 $z \\\\cdot \\\\bar{z}=$")
    'Hans'
    """
    tag = str(language).strip().lower().replace("_", "-") if language else ""
    parts = tag.split("-") if tag else []
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():  # an explicit script subtag
            return part.capitalize()
    from_tag = LANGUAGE_SCRIPT.get(tag) or (LANGUAGE_SCRIPT.get(parts[0]) if parts else None)
    if parts and parts[0] in ("ja", "ko"):
        return from_tag
    if not text:
        return from_tag
    text = text[:4000]  # enough letters to decide; keeps long items cheap
    if text.isascii():   # (the common case of English benchmarks, decided without counting)
        return "Latn" if _ASCII_LETTER.search(text) else from_tag
    counts = {name: len(rx.findall(text)) for name, rx in _SCRIPT_RX.items()}
    best = _best(counts)
    if best is None:
        return from_tag
    if best == "Latn" and counts["Hani"]:
        # Chinese full of LaTeX: \frac, \sqrt and the variables are no Latin text
        math_free = _without_math(text)
        if math_free is not text:
            plain = {name: len(rx.findall(math_free)) for name, rx in _SCRIPT_RX.items()}
            if plain["Hani"] and plain["Hani"] >= plain["Latn"]:
                counts, best = plain, _best(plain) or "Hani"
    if best in ("Kore", "Jpan"):
        return best
    if best == "Hani":
        import hanzidentifier

        kind = hanzidentifier.identify("".join(_SCRIPT_RX["Hani"].findall(text)))
        if kind == hanzidentifier.TRADITIONAL:
            return "Hant"
        if kind == hanzidentifier.SIMPLIFIED:
            return "Hans"
        return from_tag if from_tag in ("Hans", "Hant") else "Hans"
    return best


_SCRIPT_RANGES = {
    "Tibt": "\u0F00-\u0FFF",
    "Arab": "\u0600-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFF",
    "Mong": "\u1800-\u18AF\U00011660-\U0001167F",
    "Hani": "\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF",
    "Hang": "\uAC00-\uD7AF\u1100-\u11FF\u3130-\u318F",
    # kana, without the middle dot ・ (U+30FB) that Chinese text uses too
    "Kana": "\u3040-\u309F\u30A0-\u30FA\u30FC-\u30FF\u31F0-\u31FF",
    "Cyrl": "\u0400-\u04FF",
    "Latn": "A-Za-z\u00C0-\u024F",
}
_SCRIPT_RX = {k: re.compile(f"[{v}]") for k, v in _SCRIPT_RANGES.items()}
_ASCII_LETTER = re.compile("[A-Za-z]")
_ANY_LETTER = re.compile("[" + "".join(_SCRIPT_RANGES.values()) + "]")
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]|\\[A-Za-z]+", re.S)


def _best(counts: dict[str, int]) -> str | None:
    """The script with the most letters (Hangul with Han: ``Kore``; kana with
    Han: ``Jpan``); None when there are no letters."""
    others = max(v for k, v in counts.items() if k not in ("Hani", "Hang", "Kana"))
    if counts["Hang"] and counts["Hang"] + counts["Hani"] >= others and counts["Hang"] >= counts["Kana"]:
        return "Kore"
    if counts["Kana"] and counts["Kana"] + counts["Hani"] >= others:
        return "Jpan"
    plain = {k: v for k, v in counts.items() if k not in ("Hang", "Kana")}
    best = max(plain, key=lambda s: (plain[s], s))
    return best if plain[best] else None


def _without_math(text: str) -> str:
    """*text* without LaTeX math (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``) and
    ``\\command`` tokens; *text* itself when it holds none."""
    if "$" not in text and "\\" not in text:
        return text
    return _MATH.sub(" ", text)


#: For a stem in script S: a letter of any other script (Han counts as the
#: stem's own for Chinese, Japanese and Korean).
_OWN = {"Tibt": ("Tibt",), "Arab": ("Arab",), "Mong": ("Mong",), "Cyrl": ("Cyrl",), "Latn": ("Latn",),
        "Hans": ("Hani",), "Hant": ("Hani",), "Jpan": ("Hani", "Kana"), "Kore": ("Hani", "Hang")}
_OTHER_LETTER = {code: re.compile("[" + "".join(v for k, v in _SCRIPT_RANGES.items() if k not in own) + "]")
                 for code, own in _OWN.items()}


def option_scripts(stem_script: str | None, texts: list[str], language: str | None = None) -> list[str | None] | None:
    """The script of each option text when one of them is written in a script
    other than the stem's (a Chinese saying with its Tibetan rendering as
    options), else None: the options are read in the stem's script.  An
    option without letters (a number, a formula) gets None.  One search over
    the options decides the common case (all in the stem's script).

    >>> option_scripts("Hans", ["ཤ་ཚའི་ཁ་ནས།", "སྨན་བཟང་"]), option_scripts("Latn", ["Paris", "42"])
    (['Tibt', 'Tibt'], None)
    >>> option_scripts("Hans", ["يادرو ئېلېكتىر", "12"])
    ['Arab', None]
    """
    joined = "\n".join(texts)
    if stem_script == "Latn" and joined.isascii():
        return None
    other = _OTHER_LETTER.get(stem_script or "")
    if other is not None and not other.search(joined):
        return None
    if other is None and not has_letters(joined, len(joined)):
        return None
    found = [script_of(t) if has_letters(t, len(t)) else None for t in texts]
    if all(x == stem_script or x is None for x in found):
        return None
    return found


def has_letters(text: str, limit: int = 4000) -> bool:
    """Whether the first *limit* characters hold a letter of a known script.

    >>> has_letters("2 + 2 = ?"), has_letters("x = 2")
    (False, True)
    """
    return bool(_ANY_LETTER.search(text, 0, limit))
