"""TLUE's two rules, "da" and "caa", on the letters of :mod:`._filters`.

TLUE (Gao et al. 2025, "TLUE: A Tibetan Language Understanding Evaluation
Benchmark") scores free-text responses with two rules, applied here after
this package's reasoning filter, exclude list and letter search
(:func:`~audit.ingest.extract._filters.candidate_letters`):

* **Direct Answer** (``method="da"``): after removing the exclude list, the
  set of valid option letters present in the response must contain exactly
  one letter; that letter is the answer, anything else is invalid.
* **Concern All Answer** (``method="caa"``): collect the valid letters in
  reading order, remove every complete run of all option letters in any
  order (a model echoing "A B C D" or "D, C, B, A" is listing the options,
  not answering), and answer when exactly one distinct letter remains.

(TLUE's own script, character for character, is ``tlue-da`` / ``tlue-caa``,
:mod:`._tlue_script`.)

>>> decide(["A", "B", "C", "D", "C"], 4, "caa"), decide(["A", "B", "C", "D", "C"], 4, "da")
('C', None)
"""
from __future__ import annotations

from audit.options import LATIN_LABELS

__all__ = ["decide"]


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


def decide(letters: list[str], n_options: int, method: str) -> str | None:
    if not letters:
        return None
    if method == "caa":
        letters = _remove_full_runs(letters, n_options)
    distinct = set(letters)
    return letters[0] if len(distinct) == 1 else None
