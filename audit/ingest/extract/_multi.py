"""Set extraction for multi-answer items (their keys: :mod:`audit.ingest.multi_answer`).

Rule: the answer set of a response is the set of distinct valid option
letters that :func:`~audit.ingest.extract.candidate_letters` finds (same
reasoning filter, exclude list and free-standing-letter rule as the
single-answer extraction), stored sorted and concatenated (``"AD"``).  No
letter → invalid (None).  Under ``caa`` a response naming *every* option
is treated as listing the options, not answering (invalid), as in the
single-answer Concern-All-Answer rule; ``da`` keeps it.  The other
single-answer methods map onto these two: ``final`` and ``tlue-caa`` read
sets like ``caa``, ``tlue-da`` like ``da`` (a set has no single "final
commitment" to look for, so the whole-response rule applies).
"""
from __future__ import annotations

from audit.ingest.extract._filters import candidate_letters

__all__ = ["extract_answer_set", "extract_answer_sets"]

_SET_RULE = {"final": "caa", "caa": "caa", "da": "da", "tlue-caa": "caa", "tlue-da": "da"}


def extract_answer_set(response: str | None, n_options: int = 4, method: str = "caa") -> str | None:
    """Sorted concatenated labels named in ``response``, or None.

    >>> extract_answer_set("The answers are D and A.", 4)
    'AD'
    >>> extract_answer_set("A, B, C, D", 4), extract_answer_set("A, B, C, D", 4, "da"), extract_answer_set("none", 4)
    (None, 'ABCD', None)
    """
    method = _SET_RULE.get(method, method)
    if method not in ("caa", "da"):
        raise ValueError(f"unknown extraction method '{method}' (use one of {', '.join(_SET_RULE)})")
    letters = sorted(set(candidate_letters(response, n_options)))
    if not letters:
        return None
    if method == "caa" and len(letters) == n_options:
        return None
    return "".join(letters)


def extract_answer_sets(responses: list[str | None], n_options: int = 4, method: str = "caa") -> list[str | None]:
    """:func:`extract_answer_set` over a list (one call per batch from the importer).

    >>> extract_answer_sets(["A and C", "B"], 4)
    ['AC', 'B']
    """
    return [extract_answer_set(r, n_options, method) for r in responses]

