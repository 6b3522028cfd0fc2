"""The pre-processing every method shares: the reasoning filter, the exclude
list and the letter search.

1. **Reasoning filter** (:func:`strip_reasoning`) – ``<think>…</think>``
   blocks are removed (an unclosed ``<think>`` removes the rest of the
   response, a lone ``</think>`` removes everything before it), and so are
   ChatGPT-style traces "Reasoning … Reasoned for N seconds".
2. **Exclude list** – phrases whose capital letter is not an option letter
   are blanked: the English article "A" ("A plant is …"), "°C"/"°F"/"℃",
   "B.C."/"A.D."/"C.E.", "Q&A", "C++"/"C#"/"F#", "vitamin C", "hepatitis B",
   "Plan B", "E. coli", hyphenated words ("B-cell", "Type-A").
3. **Letter search** (:func:`candidate_letters`) – a Latin capital A–F (A–J for an item of more
   than six options)
   counts only as a free-standing token: not touching another Latin letter
   or digit (so "CaCO3", "C4", "ABC-transporter" do not count, while
   "**C**", "(C)", "Answer: C", "答案：C", "ལན་ནི་C་རེད" do).  Only the first
   ``n_options`` letters are valid (2 ≤ n ≤ 6).  Tibetan letters ཀ ཁ ག ང
   (→ A–D) are searched **only when no valid Latin letter was found**, and
   only as a free-standing syllable followed by punctuation, the end of the
   text, or a copula (རེད, ཡིན …), so that ཀ inside བཀའ or the pronoun ང in
   ང་ཚོ do not count.

Lower-case letters never count (the English article "a" would swamp them).

>>> candidate_letters("A. 36°C\\nB. 37.8°C\\nThe answer is B.", 4)
['A', 'B', 'B']
"""
from __future__ import annotations

import operator
import re

from audit.options import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS, TIBETAN_TO_LATIN

__all__ = ["strip_reasoning", "candidate_letters", "find_letters", "scan_letters", "prepare", "check_n",
           "norm_option", "FULLWIDTH", "LATIN", "LATIN_WIDE", "LETTER_FOLLOWERS", "widen", "latin_for"]

# --- reasoning filter -------------------------------------------------------
# Blocks are found by scanning for their tags (never ``<open>.*?<close>``: a lazy match from each of
# many opening tags without a closing one reads the rest of the text each time, quadratic time).
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.I)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.I)
_REASONING = re.compile(r"\bReasoning\b")
_REASONED = re.compile(r"\bReasoned\b[^\n]{0,120}?\bseconds?\b")

# --- exclude list ------------------------------------------------------------
# Words after "A" that show it is the option letter, not the article.
LETTER_FOLLOWERS = (
    "is|was|were|are|be|would|will|should|could|can|might|may|must|seems|seem|"
    "appears|appear|fits|fit|matches|match|says|states|describes|refers|represents|"
    "contains|gives|provides|remains|correctly|best|only|alone|too|also|then|here|"
    "and|or|nor|but|because|since|as|vs|versus|which|whereas|while|if|"
    "option|choice|answer|looks"
)
# Context rules that are cheap to test at each candidate letter are part of the
# letter pattern itself (below): letters touching other Latin letters or digits,
# hyphenated words ("B-cell", "Type-A"), "°C"/"°F", and the article "A".
# Phrases are blanked first, each only when a cheap substring test says the
# phrase can occur (this keeps extraction fast on a million responses).
_PHRASES: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("B.", "A.", "C.", "P."),
        re.compile(
            r"(?:B(?<![A-Za-z]B)\.\s?C\.(?:\s?E\.)?|A(?<![A-Za-z]A)\.\s?D\.|C(?<![A-Za-z]C)\.\s?E\.|"
            r"A(?<![A-Za-z]A)\.\s?M\.|P(?<![A-Za-z]P)\.\s?M\.)"
        ),
    ),
    (("&",), re.compile(r"Q\s?&\s?A")),
    (("++", "#"), re.compile(r"(?<![A-Za-z])(?:C\+\+|C#|F#)")),
    (("itamin", "ITAMIN"), re.compile(r"(?i:\bvitamins?)\s+[A-FＡ-Ｆ](?![A-Za-z0-9])")),
    # Uyghur and Kazakh/Russian: "D ۋىتامىنى", "ۋىتامىن C", "D витамині", "витамин C"
    (
        ("ۋىتامىن", "итамин"),
        re.compile(
            r"(?:ۋىتامىن|[Вв]итамин)\w*\s+[A-FＡ-Ｆ](?![A-Za-z0-9])"
            r"|[A-FＡ-Ｆ](?<![A-Za-z].)\s*-?\s*(?:ۋىتامىن|[Вв]итамин)"
        ),
    ),
    (("epatitis", "EPATITIS"), re.compile(r"(?i:\bhepatitis)\s+[A-FＡ-Ｆ](?![A-Za-z0-9])")),
    (("Plan",), re.compile(r"\bPlan\s+B\b")),
    (("coli",), re.compile(r"\bE\.\s?coli\b")),
    (("℃", "℉"), re.compile(r"[℃℉]")),
    # Chinese: B型肝炎, B細胞, B超, A股, C语言, 维生素C, B族维生素, A级
    (
        ("型", "細胞", "细胞", "超", "股", "族", "级", "級", "语言", "語言", "维生素", "維生素"),
        re.compile(r"(?:维生素|維生素)[A-FＡ-Ｆ]|[A-FＡ-Ｆ](?=型|細胞|细胞|超|股|族|级|級|语言|語言)"),
    ),
    # Initials: "J. B. Watson", "R.O.C.", "U.S.A."
    (
        (".",),
        re.compile(r"[A-Z](?<![A-Za-z][A-Z])\.(?:[A-Z]\.(?:[A-Z]\.)*|[ \t]?(?:[A-Z]\.[ \t]?){1,2}(?=[A-Z][a-z]))"),
    ),
]

# --- letter search -----------------------------------------------------------
# Full-width Ａ–Ｊ and circled Ⓐ–Ⓙ option letters, read as the Latin ones.
FULLWIDTH = {chr(0xFF21 + i): chr(0x41 + i) for i in range(10)} | {chr(0x24B6 + i): chr(0x41 + i) for i in range(10)}
LATIN = re.compile(
    r"([A-FＡ-ＦⒶ-Ⓕ])"
    r"(?<![A-Za-z0-9À-ɏＡ-Ｚａ-ｚ].)(?<![A-Za-z][-–—].)(?<!°.)(?<!° .)"
    r"(?![A-Za-z0-9À-ɏＡ-Ｚａ-ｚ])(?![-–—][A-Za-z])(?!['’]s\b)"
    rf"(?!(?<=A)[ \t]+(?!(?:{LETTER_FOLLOWERS})\b)[a-z])"
)
# Items of up to six options are read with the letters A–F only, so that a G, H, I or J in a
# response to them is plain text, exactly as before items of seven to ten options (MMLU-Pro) were
# read; for those the same patterns run with A–J (:func:`widen`).  "J" is a letter like the others;
# "I" is also the English pronoun, so an "I" followed by a lower-case word ("I think", "I would
# choose") or an apostrophe ("I'm") is not a letter, unless the word shows it is ("I is correct").
PRONOUN_FOLLOWERS = "is|was|seems|appears|fits|matches|remains|correctly|alone|also|too|and|or|nor|vs|versus"
PRONOUN = rf"(?!(?<=I)(?:[ \t]+(?!(?:{PRONOUN_FOLLOWERS})\b)[a-z]|['’]))"
_ARTICLE_GUARD = rf"(?!(?<=A)[ \t]+(?!(?:{LETTER_FOLLOWERS})\b)[a-z])"


def widen(pattern: re.Pattern[str], article: str = _ARTICLE_GUARD) -> re.Pattern[str]:
    """*pattern* with its letter classes A–F (also full-width and circled) run to J, and the
    pronoun guard (:data:`PRONOUN`) after its *article* guard, when it has one.

    >>> widen(LATIN).findall("I think B, not I or J.")
    ['B', 'I', 'J']
    """
    text = pattern.pattern.replace("A-F", "A-J").replace("Ａ-Ｆ", "Ａ-Ｊ").replace("Ⓐ-Ⓕ", "Ⓐ-Ⓙ")
    if article in text:
        text = text.replace(article, article + PRONOUN)
    for group_end in ("A-JＡ-ＪⒶ-Ⓙ])", "A-JＡ-Ｊ])", "A-J])"):   # a letter captured alone: guarded too
        text = text.replace(group_end, group_end + PRONOUN)
    return re.compile(text, pattern.flags)


LATIN_WIDE = widen(LATIN)


def latin_for(valid: tuple[str, ...]) -> re.Pattern[str]:
    """The letter pattern for an item whose valid letters are *valid*: A–F up to six options, else A–J."""
    return LATIN if len(valid) <= 6 else LATIN_WIDE
_TIB_END = r"\s|$|[།༎༏༐༑༔\.\)\]）】:：,，、;；*\"'”’!！?？]"
# A Tibetan letter counts when it is a syllable of its own (not in བཀའ), is not
# the second syllable of གདམ་ག / གདམ་ཁ ("option"), and is followed by
# punctuation, the end, another option letter, a copula (རེད ཡིན ལགས ནོ འོ), or —
# except for ང, which is also the pronoun "I" — the topic marker ནི.
_TIBETAN = re.compile(
    r"(?<![\u0F40-\u0FBC])(?<!གདམ་)([ཀཁགང])(?![\u0F40-\u0FBC])"
    rf"(?=(?:{_TIB_END})|་(?:(?:{_TIB_END})|(?:[ཀཁགང]|རེད|ཡིན|ལགས|ནོ|འོ|(?<!ང་)ནི)(?![\u0F40-\u0FBC])))"
)


def strip_reasoning(text: str) -> str:
    """Remove reasoning traces (``<think>…</think>``; "Reasoning … Reasoned … seconds").

    >>> strip_reasoning("<think>A or B?</think>B").strip()
    'B'
    """
    if "hink" in text or "HINK" in text:
        text = _remove_blocks(text, _THINK_OPEN, _THINK_CLOSE)
        m = _THINK_CLOSE.search(text)
        if m:  # a closing tag without its opening: all before it is reasoning
            text = text[m.end():]
        m = _THINK_OPEN.search(text)
        if m:  # unfinished reasoning: nothing after it is an answer
            text = text[: m.start()]
    if "Reasoned" in text:
        text = _remove_blocks(text, _REASONING, _REASONED)
    return text


def _remove_blocks(text: str, opening: re.Pattern[str], closing: re.Pattern[str], repl: str = " ") -> str:
    """``text`` with every block from an ``opening`` match to the first
    ``closing`` match after it replaced by ``repl`` (left to right, as
    ``re.sub`` with ``opening.*?closing`` would), in linear time: once an
    opening has no closing after it, no later one has either.

    >>> _remove_blocks("a<think>b</think>c<think>d", _THINK_OPEN, _THINK_CLOSE, "")
    'ac<think>d'
    """
    out: list[str] = []
    pos = 0
    while (o := opening.search(text, pos)) is not None:
        c = closing.search(text, o.end())
        if c is None:
            break
        out += (text[pos:o.start()], repl)
        pos = c.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def candidate_letters(response: str | None, n_options: int = 4) -> list[str]:
    """The valid option letters found in ``response``, in reading order,
    after the reasoning filter and the exclude list (Latin first; Tibetan
    letters mapped to A–D only when no Latin letter is present).

    >>> candidate_letters("A plant is B or D, not E", 4)
    ['B', 'D']
    """
    n_options = check_n(n_options)
    return find_letters(response, LATIN_LABELS[:n_options])


# "final" reads a bounded text: whitespace runs longer than this are cut to one space, line break or
# blank line, and of a longer text only the head and the tail are read (real answers are a few
# thousand characters at most; the commitment is read near the end), so that its rules, each linear,
# cost a bounded time on any input however long or repetitive.
_MAX_SPACE = 16
_HEAD, _TAIL = 4_000, 16_000
_LONG_SPACE = re.compile(r"\s{%d,}" % (_MAX_SPACE + 1))


def _one_space(m: re.Match[str]) -> str:
    n = m.group().count("\n")
    return "\n\n" if n > 1 else "\n" if n else " "


def _bounded(text: str) -> str:
    """``text`` (over 1,000 characters) with long whitespace runs shortened, then cut to its first
    ``_HEAD`` and last ``_TAIL`` characters (joined by a blank line).

    >>> _bounded("A" + " " * 2000 + "B"), len(_bounded("x" * 10**6))
    ('A B', 20002)
    """
    if len(text) > 1000:   # (in a shorter text a whitespace run costs little)
        text = _LONG_SPACE.sub(_one_space, text)
    if len(text) > _HEAD + _TAIL:
        text = text[:_HEAD] + "\n\n" + text[-_TAIL:]
    return text


def prepare(response: str, bounded: bool = False) -> str:
    """The reasoning filter and the exclude list (for "final", on the bounded text, see :func:`_bounded`)."""
    text = strip_reasoning(response)
    if bounded and len(text) > 1000:
        text = _bounded(text)
    for triggers, pattern in _PHRASES:
        for t in triggers:
            if t in text:
                text = pattern.sub(" ", text)
                break
    return text


def scan_letters(text: str, valid: tuple[str, ...], latin: re.Pattern[str] = LATIN) -> list[str]:
    """The ``valid`` letters that ``latin`` finds in a prepared text (see
    :func:`prepare`), in reading order; when there is none, the Tibetan ones.

    >>> scan_letters("B or D; ག", ("A", "B", "C", "D")), scan_letters("ཁ། or ག།", ("A", "B", "C", "D"))
    (['B', 'D'], ['B', 'C'])
    """
    letters = [m for m in latin.findall(text) if m in valid or FULLWIDTH.get(m) in valid]
    if letters:
        return [FULLWIDTH.get(m, m) for m in letters]
    if "ཀ" in text or "ཁ" in text or "ག" in text or "ང" in text:
        return [x for x in (TIBETAN_TO_LATIN[m] for m in _TIBETAN.findall(text)) if x in valid]
    return []


def find_letters(response: str | None, valid: tuple[str, ...]) -> list[str]:
    """:func:`candidate_letters` with the valid letters given (checked by the caller)."""
    if not response:
        return []
    if len(response) <= 4:  # fast path: "C", " C\n", "(C)", "C."
        bare = response.strip().strip("().*")
        if bare in valid:
            return [bare]
    return scan_letters(prepare(response), valid, latin_for(valid))


def check_n(n_options) -> int:
    """``n_options`` as an int, or ValueError unless it is an integer from 2 to 10.

    >>> check_n(4)
    4
    """
    try:
        n = operator.index(n_options)
    except TypeError:
        n = None
    if n is None or isinstance(n_options, bool) or not MIN_OPTIONS <= n <= MAX_OPTIONS:
        raise ValueError(f"n_options must be an integer from {MIN_OPTIONS} to {MAX_OPTIONS}, not {n_options!r}")
    return n


# --- option texts ----------------------------------------------------------
_STRIP_MARK = re.compile(r"[*_`\"'“”«»‘’()\[\]【】（）「」『』.,，。:：;；!！?？\s་།]+")


def norm_option(text: str) -> str:
    """An option text as compared: markup and punctuation to one space, trimmed, case-folded.

    >>> norm_option("**C) Paris.**")
    'c paris'
    """
    return _STRIP_MARK.sub(" ", text).strip().casefold()
