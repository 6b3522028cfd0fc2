"""Answer extraction from raw model responses: TLUE's two algorithms.

TLUE (Gao et al. 2025, "TLUE: A Tibetan Language Understanding Evaluation
Benchmark") scores free-text responses with two rules:

* **Direct Answer** (``method="da"``): after removing the exclude list, the
  set of valid option letters present in the response must contain exactly
  one letter; that letter is the answer, anything else is invalid.
* **Concern All Answer** (``method="caa"``, the default): collect the valid
  letters in reading order, remove every complete run of all option letters
  in any order (a model echoing "A B C D" or "D, C, B, A" is listing the
  options, not answering), and answer when exactly one distinct letter remains.

Both apply the same pre-processing:

1. **Reasoning filter** – ``<think>…</think>`` blocks are removed (an
   unclosed ``<think>`` removes the rest of the response, a lone ``</think>``
   removes everything before it), and so are ChatGPT-style traces
   "Reasoning … Reasoned for N seconds".
2. **Exclude list** – phrases whose capital letter is not an option letter
   are blanked: the English article "A" ("A plant is …"), "°C"/"°F"/"℃",
   "B.C."/"A.D."/"C.E.", "Q&A", "C++"/"C#"/"F#", "vitamin C", "hepatitis B",
   "Plan B", "E. coli", hyphenated words ("B-cell", "Type-A").
3. **Letter search** – a Latin capital A–F counts only as a free-standing
   token: not touching another Latin letter or digit (so "CaCO3", "C4",
   "ABC-transporter" do not count, while "**C**", "(C)", "Answer: C",
   "答案：C", "ལན་ནི་C་རེད" do).  Only the first ``n_options`` letters are valid
   (2 ≤ n ≤ 6).  Tibetan letters ཀ ཁ ག ང (→ A–D) are searched **only when no
   valid Latin letter was found**, and only as a free-standing syllable
   followed by punctuation, the end of the text, or a copula (རེད, ཡིན …), so
   that ཀ inside བཀའ or the pronoun ང in ང་ཚོ do not count.

Lower-case letters never count (the English article "a" would swamp them).

>>> extract_answer("**Answer: (C)**")
'C'
>>> extract_answer("A. 36°C\\nB. 37.8°C\\nC. 36.5°C\\nD. 37°C\\nThe answer is B.")
'B'
>>> extract_answer("A. 36°C\\nB. 37.8°C\\nC. 36.5°C\\nD. 37°C\\nThe answer is B.", method="da") is None
True
>>> extract_answer("ལན་ནི་ག་རེད།")
'C'
"""
from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Sequence

from audit.labels import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS, TIBETAN_TO_LATIN

__all__ = ["METHODS", "extract_answer", "extract_answers", "strip_reasoning", "candidate_letters"]

METHODS: tuple[str, ...] = ("caa", "da")

# --- reasoning filter -------------------------------------------------------
_THINK_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.S | re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.I)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.I)
_REASONED = re.compile(
    r"\bReasoning\b.*?\bReasoned\b[^\n]{0,120}?\bseconds?\b", re.S
)

# --- exclude list ------------------------------------------------------------
# Words after "A" that show it is the option letter, not the article.
_LETTER_FOLLOWERS = (
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
    (("B.", "A.", "C.", "P."),
     re.compile(r"(?<![A-Za-z])(?:B\.\s?C\.(?:\s?E\.)?|A\.\s?D\.|C\.\s?E\.|A\.\s?M\.|P\.\s?M\.)")),
    (("&",), re.compile(r"Q\s?&\s?A")),
    (("++", "#"), re.compile(r"(?<![A-Za-z])(?:C\+\+|C#|F#)")),
    (("itamin", "ITAMIN"), re.compile(r"(?i:\bvitamins?)\s+[A-FＡ-Ｆ](?![A-Za-z0-9])")),
    (("epatitis", "EPATITIS"), re.compile(r"(?i:\bhepatitis)\s+[A-FＡ-Ｆ](?![A-Za-z0-9])")),
    (("Plan",), re.compile(r"\bPlan\s+B\b")),
    (("coli",), re.compile(r"\bE\.\s?coli\b")),
    (("℃", "℉"), re.compile(r"[℃℉]")),
]

# --- letter search -----------------------------------------------------------
_FULLWIDTH = {chr(0xFF21 + i): chr(0x41 + i) for i in range(6)}  # Ａ–Ｆ
_LATIN = re.compile(
    r"(?<![A-Za-z0-9À-ɏＡ-Ｚａ-ｚ])(?<![A-Za-z]-)(?<!°)(?<!° )"
    r"([A-FＡ-Ｆ])"
    r"(?![A-Za-z0-9À-ɏＡ-Ｚａ-ｚ])(?!-[A-Za-z])"
    rf"(?!(?<=A)[ \t]+(?!(?:{_LETTER_FOLLOWERS})\b)[a-z])"
)
_TIB_END = r"\s|$|[།༎༏༐༑༔\.\)\]）】:：,，、;；*\"'”’!！?？]"
# A Tibetan letter counts when it is a syllable of its own (not in བཀའ), is not
# the second syllable of གདམ་ག / གདམ་ཁ ("option"), and is followed by
# punctuation, the end, another option letter, a copula (རེད ཡིན ལགས ནོ འོ), or —
# except for ང, which is also the pronoun "I" — the topic marker ནི.
_TIBETAN = re.compile(
    r"(?<![\u0F40-\u0FBC])(?<!གདམ་)([ཀཁགང])(?![\u0F40-\u0FBC])"
    rf"(?=(?:{_TIB_END})|་(?:(?:{_TIB_END})|[ཀཁགང](?![\u0F40-\u0FBC])|རེད|ཡིན|ལགས|ནོ|འོ|(?<!ང་)ནི))"
)


def strip_reasoning(text: str) -> str:
    """Remove reasoning traces (``<think>…</think>``; "Reasoning … Reasoned … seconds").

    >>> strip_reasoning("<think>A or B?</think>B").strip()
    'B'
    """
    if "hink" in text or "HINK" in text:
        text = _THINK_BLOCK.sub(" ", text)
        m = _THINK_CLOSE.search(text)
        if m:  # a closing tag without its opening: all before it is reasoning
            text = text[m.end():]
        m = _THINK_OPEN.search(text)
        if m:  # unfinished reasoning: nothing after it is an answer
            text = text[: m.start()]
    if "Reasoned" in text:
        text = _REASONED.sub(" ", text)
    return text


def candidate_letters(response: str | None, n_options: int = 4) -> list[str]:
    """The valid option letters found in ``response``, in reading order,
    after the reasoning filter and the exclude list (Latin first; Tibetan
    letters mapped to A–D only when no Latin letter is present).

    >>> candidate_letters("A plant is B or D, not E", 4)
    ['B', 'D']
    """
    n_options = _check_n(n_options)
    return _letters(response, LATIN_LABELS[:n_options])


def _letters(response: str | None, valid: tuple[str, ...]) -> list[str]:
    if not response:
        return []
    if len(response) <= 4:  # fast path: "C", " C\n", "(C)", "C."
        bare = response.strip().strip("().*")
        if bare in valid:
            return [bare]
    text = strip_reasoning(response)
    for triggers, pattern in _PHRASES:
        for t in triggers:
            if t in text:
                text = pattern.sub(" ", text)
                break
    letters = [m for m in _LATIN.findall(text) if m in valid or _FULLWIDTH.get(m) in valid]
    if letters:
        return [_FULLWIDTH.get(m, m) for m in letters]
    if "ཀ" in text or "ཁ" in text or "ག" in text or "ང" in text:
        return [x for x in (TIBETAN_TO_LATIN[m] for m in _TIBETAN.findall(text)) if x in valid]
    return []


def _remove_full_runs(letters: list[str], n: int) -> list[str]:
    """Drop every window of ``n`` consecutive letters that is a permutation of
    all ``n`` option letters (scanning left to right, non-overlapping)."""
    if len(letters) < n:
        return letters
    full = set(LATIN_LABELS[:n])
    out: list[str] = []
    i, size = 0, len(letters)
    while i < size:
        if i + n <= size and letters[i] in full:
            window = letters[i : i + n]
            if set(window) == full:
                i += n
                continue
        out.append(letters[i])
        i += 1
    return out


def _check_n(n_options) -> int:
    try:
        n = operator.index(n_options)
    except TypeError:
        n = None
    if n is None or isinstance(n_options, bool) or not MIN_OPTIONS <= n <= MAX_OPTIONS:
        raise ValueError(f"n_options must be an integer from {MIN_OPTIONS} to {MAX_OPTIONS}, not {n_options!r}")
    return n


def _check_method(method: str) -> str:
    m = str(method).lower()
    if m not in METHODS:
        raise ValueError(f"unknown extraction method {method!r} (use 'caa' or 'da')")
    return m


def _decide(letters: list[str], n_options: int, method: str) -> str | None:
    if not letters:
        return None
    if method == "caa":
        letters = _remove_full_runs(letters, n_options)
    distinct = set(letters)
    return letters[0] if len(distinct) == 1 else None


def extract_answer(response: str | None, n_options: int = 4, method: str = "caa") -> str | None:
    """The Latin option letter a response chooses, or None when it is invalid.

    ``method`` is "caa" (Concern All Answer, default) or "da" (Direct Answer);
    see the module docstring for both rules.

    >>> extract_answer("The options are A, B, C and D. I choose D.")
    'D'
    >>> extract_answer("The options are A, B, C and D. I choose D.", method="da") is None
    True
    >>> extract_answer("E", n_options=5), extract_answer("E", n_options=4)
    ('E', None)
    """
    method = _check_method(method)
    n_options = _check_n(n_options)
    return _decide(_letters(response, LATIN_LABELS[:n_options]), n_options, method)


def extract_answers(
    responses: Iterable[str | None],
    n_options: int | Sequence[int] = 4,
    method: str = "caa",
) -> list[str | None]:
    """``extract_answer`` over many responses (``n_options`` one int for all,
    or one per response).

    >>> extract_answers(["B", "ཁ།", None, "A or B"], [4, 4, 4, 2], "da")
    ['B', 'B', None, None]
    """
    method = _check_method(method)
    responses = list(responses)
    if not isinstance(n_options, Iterable) or isinstance(n_options, str):
        n = _check_n(n_options)
        valid = LATIN_LABELS[:n]
        return [_decide(_letters(r, valid), n, method) for r in responses]
    ns = list(n_options)
    if len(ns) != len(responses):
        raise ValueError(f"{len(responses)} responses but {len(ns)} option counts")
    out: list[str | None] = []
    for r, n in zip(responses, ns):
        n = _check_n(n)
        out.append(_decide(_letters(r, LATIN_LABELS[:n]), n, method))
    return out
