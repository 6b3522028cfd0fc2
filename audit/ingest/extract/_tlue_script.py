"""TLUE's evaluation script, character for character (methods ``tlue-caa``
and ``tlue-da``), so that TLUE's published figures can be reproduced."""
from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["tlue_evaluator"]

_TLUE_TAGS = {"<think>": "</think>", "<reasoning>": "</reasoning>", "<thought>": "</thought>",
              "<analysis>": "</analysis>", "<step>": "</step>"}
_TLUE_OPEN = re.compile("|".join(_TLUE_TAGS))


def _tlue_cot(text: str) -> str:
    """TLUE's ``re.sub("<think>.*?</think>|<reasoning>.*?</reasoning>|…", "", text, flags=re.S)``,
    in linear time: the leftmost opening tag that has its closing tag after it starts a block, which
    ends at the first such closing tag (a tag without a closing one after it never will have one)."""
    if "<" not in text:
        return text
    out: list[str] = []
    pos = start = 0
    unclosed: set[str] = set()
    while (o := _TLUE_OPEN.search(text, pos)) is not None:
        tag = o.group()
        c = -1 if tag in unclosed else text.find(_TLUE_TAGS[tag], o.end())
        if c < 0:
            unclosed.add(tag)
            if len(unclosed) == len(_TLUE_TAGS):
                break
            pos = o.start() + 1
            continue
        out.append(text[start:o.start()])
        pos = start = c + len(_TLUE_TAGS[tag])
    out.append(text[start:])
    return "".join(out)


_TLUE_EN = frozenset("ABCD")
_TLUE_BO = {"ཀ": "A", "ཁ": "B", "ག": "C", "ང": "D"}


def tlue_evaluator(response: str | None, method: str = "caa", exclude: Sequence[str] = ()) -> str | None:
    """TLUE's evaluation script (``auto_evaluate.py`` of the TLUE repository)
    re-implemented step by step, so that TLUE's published figures can be
    reproduced.  Unlike "da"/"caa" it counts **every** character A–D (the D
    in "Dakan", the C in "CaCO3", the A of an English article), only the
    four letters A–D whatever the option count, and every ཀ ཁ ག ང character
    (also inside words):

    1. remove ``<think>``, ``<reasoning>``, ``<thought>``, ``<analysis>``,
       ``<step>`` blocks (closed ones only);
    2. delete every string of ``exclude`` (TLUE's config ``exclude_list``);
    3. "da": the set of A–D characters present must have exactly one member;
       otherwise the same test on ཀ ཁ ག ང;
    4. "caa": the A–D characters in reading order (or, when there is none,
       the Tibetan ones), with complete ABCD groups removed by TLUE's
       buffer rule (a sliding buffer of 4 that is emptied when it holds all
       four letters), then exactly one distinct letter.

    >>> tlue_evaluator("Dakan: the answer is A", "da") is None
    True
    >>> tlue_evaluator("A B C D, so B", "caa")
    'B'
    """
    if not response:
        return None
    text = _tlue_cot(response)
    for ex in exclude:
        text = text.replace(ex, "")
    if method == "da":
        found = {ch for ch in text if ch in _TLUE_EN}
        if len(found) == 1:
            return found.pop()
        found_bo = {ch for ch in text if ch in _TLUE_BO}
        return _TLUE_BO[found_bo.pop()] if len(found_bo) == 1 else None
    letters = [ch for ch in text if ch in _TLUE_EN]
    if not letters:
        letters = [_TLUE_BO[ch] for ch in text if ch in _TLUE_BO]
    filtered: list[str] = []
    buffer: list[str] = []
    for ch in letters:
        buffer.append(ch)
        if len(buffer) == 4 and set(buffer) == _TLUE_EN:
            buffer = []
        elif len(buffer) > 4:
            filtered.extend(buffer[:-3])
            buffer = buffer[-3:]
    filtered.extend(buffer)
    distinct = set(filtered)
    return filtered[0] if len(distinct) == 1 else None
