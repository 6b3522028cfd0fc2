"""The extraction methods by name, and the functions that apply one.

``METHODS``: ``final`` (:data:`DEFAULT_METHOD`, :mod:`._final`), ``caa`` and
``da`` (:mod:`._tlue_rules`), ``tlue-caa`` and ``tlue-da``
(:mod:`._tlue_script`).

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

from collections.abc import Iterable, Sequence

from audit.ingest.extract._filters import check_n, find_letters
from audit.ingest.extract._final import final_letter
from audit.ingest.extract._tlue_rules import decide
from audit.ingest.extract._tlue_script import tlue_evaluator
from audit.options import LATIN_LABELS

__all__ = ["METHODS", "DEFAULT_METHOD", "LLM_METHOD", "extract_answer", "extract_answers"]

METHODS: tuple[str, ...] = ("final", "caa", "da", "tlue-caa", "tlue-da")
DEFAULT_METHOD = "final"
# Stored as the method of answers obtained by ``--llm-extractor`` (not a rule: not selectable here).
LLM_METHOD = "llm"


def _check_method(method: str) -> str:
    m = str(method).lower().replace("_", "-")
    if m not in METHODS:
        raise ValueError(f"unknown extraction method {method!r} (use one of {', '.join(METHODS)})")
    return m


def _one(response: str | None, n: int, method: str, options: Sequence[str] | None = None) -> str | None:
    valid = LATIN_LABELS[:n]
    if method == "final":
        return final_letter(response, valid, options)
    if method == "tlue-caa":
        return tlue_evaluator(response, "caa")
    if method == "tlue-da":
        return tlue_evaluator(response, "da")
    return decide(find_letters(response, valid), n, method)


def extract_answer(response: str | None, n_options: int = 4, method: str = DEFAULT_METHOD,
                   options: Sequence[str] | None = None) -> str | None:
    """The Latin option letter a response chooses, or None when it is invalid.

    ``method``: "final" (default: the answer a careful grader reads, see
    :func:`final_answer`), "caa" (Concern All Answer), "da" (Direct Answer),
    or "tlue-caa" / "tlue-da" (TLUE's own evaluator, see
    :func:`tlue_evaluator`).  ``options`` (the option texts, in label order)
    lets "final" match an answer given by its text; the other methods ignore it.

    >>> extract_answer("The options are A, B, C and D. I choose D.", method="caa")
    'D'
    >>> extract_answer("The options are A, B, C and D. I choose D.", method="da") is None
    True
    >>> extract_answer("E", n_options=5), extract_answer("E", n_options=4)
    ('E', None)
    >>> extract_answer("Dakan is in A", method="tlue-da") is None   # TLUE counts the D of "Dakan"
    True
    """
    method = _check_method(method)
    n_options = check_n(n_options)
    return _one(response, n_options, method, options)


def extract_answers(
    responses: Iterable[str | None],
    n_options: int | Sequence[int] = 4,
    method: str = DEFAULT_METHOD,
    options: Sequence[Sequence[str] | None] | None = None,
) -> list[str | None]:
    """``extract_answer`` over many responses (``n_options`` one int for all,
    or one per response; ``options`` None or one list of option texts per
    response).

    >>> extract_answers(["B", "ཁ།", None, "A or B"], [4, 4, 4, 2], "da")
    ['B', 'B', None, None]
    """
    method = _check_method(method)
    responses = list(responses)
    opts = list(options) if options is not None else None
    if opts is not None and len(opts) != len(responses):
        raise ValueError(f"{len(responses)} responses but {len(opts)} option lists")
    if not isinstance(n_options, Iterable) or isinstance(n_options, str):
        n = check_n(n_options)
        if opts is None:
            if method in ("caa", "da"):
                valid = LATIN_LABELS[:n]
                return [decide(find_letters(r, valid), n, method) for r in responses]
            return [_one(r, n, method) for r in responses]
        return [_one(r, n, method, o) for r, o in zip(responses, opts)]
    ns = list(n_options)
    if len(ns) != len(responses):
        raise ValueError(f"{len(responses)} responses but {len(ns)} option counts")
    out: list[str | None] = []
    for i, (r, n) in enumerate(zip(responses, ns)):
        out.append(_one(r, check_n(n), method, opts[i] if opts is not None else None))
    return out
