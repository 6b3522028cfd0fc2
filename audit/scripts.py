"""Which script a text is written in: the one rule, for importing items and
for rendering them.

A script is an ISO 15924 code: ``Tibt`` (Tibetan, also Dzongkha), ``Hans`` /
``Hant`` (Chinese, simplified / traditional), ``Arab`` (Uyghur, Kazakh in
Arabic script, …), ``Mong`` (traditional Mongolian, written vertically),
``Cyrl``, ``Latn``, and from the language tag alone ``Jpan`` / ``Kore``.
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
    counts = {name: len(rx.findall(text)) for name, rx in _SCRIPT_RX.items()}
    best = max(counts, key=lambda s: (counts[s], s))
    if counts[best] == 0:
        return from_tag
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
    "Cyrl": "\u0400-\u04FF",
    "Latn": "A-Za-z\u00C0-\u024F",
}
_SCRIPT_RX = {k: re.compile(f"[{v}]") for k, v in _SCRIPT_RANGES.items()}
_ANY_LETTER = re.compile("[" + "".join(_SCRIPT_RANGES.values()) + "]")


def has_letters(text: str, limit: int = 4000) -> bool:
    """Whether the first *limit* characters hold a letter of a known script.

    >>> has_letters("2 + 2 = ?"), has_letters("x = 2")
    (False, True)
    """
    return bool(_ANY_LETTER.search(text, 0, limit))
