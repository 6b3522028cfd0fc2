"""Multi-answer keys: items whose key is a *set* of option labels.

Contract (shared with the analysis stages; see also ``audit/analyze/tiers.py``)
-------------------------------------------------------------------------------
* **Storage.**  A multi-answer key is stored in ``questions.answer_key`` as
  its labels sorted and concatenated (``"ABD"``), and the item carries the
  flag ``'multi_answer'`` in ``questions.flags``.  A single-label key stays a
  single letter and never has the flag.
* **Predictions** on such an item store their answer the same way (sorted,
  concatenated labels: a model answering "D and A" is stored ``"AD"``).
* **Display.**  :func:`display_key` shows the set as ``{A, B, D}``.
* **Scoring rule: exact set match.**  A prediction on a multi-answer item is
  correct only when its set equals the key's set (``"ABD"`` = ``"ABD"``;
  ``"AB"`` or ``"ABDE"`` are wrong: no partial credit).  Because both sides are
  canonical strings, the rule is string equality in SQL.
* **Agreement tiers** put these items in their own bucket, never in Tier 0–5.

Accepted spellings of a set key on import: ``"A B D"``, ``"ABD"``,
``"A,B,D"``, ``"A、D"``, ``"A+D"``, a list ``["A", "D"]`` (also as a JSON
text in a CSV cell), Tibetan ``ཀ ང``.
"""
from __future__ import annotations

import json
import re

from audit.options import LATIN_LABELS, TIBETAN_TO_LATIN

MULTI_FLAG = "multi_answer"

_SEPARATED = re.compile(r"^\s*[A-Ja-jཀཁགངཅཆཇཉཏཐ](?:\s*[\s,;/+、，；&]\s*(?:and\s+)?[A-Ja-jཀཁགངཅཆཇཉཏཐ])+\s*$")
_RUN = re.compile(r"^[A-J]{2,10}$")
_ANY_RUN = re.compile(r"^(?:[A-J]{2,10}|[a-j]{2,10})$")


def parse_key(raw: object, n_options: int | None = None) -> tuple[str | None, bool]:
    """``(key, is_set)``: a set key as sorted concatenated labels and True,
    else ``(None, False)`` (the caller treats the raw value as a single key).

    A run of letters (``"ABD"``, ``"abd"``) counts as a set only when its
    letters are distinct, in order, of one case and (given ``n_options``) all
    among the item's labels: ``"bad"`` is a word, not the set ABD.

    >>> parse_key("A B D"), parse_key("D,A"), parse_key(["B", "A"]), parse_key('["A","C"]')
    (('ABD', True), ('AD', True), ('AB', True), ('AC', True))
    >>> parse_key("ABD", 4), parse_key("ABE", 4), parse_key("A"), parse_key("ཀ ང")
    (('ABD', True), (None, False), (None, False), ('AD', True))
    >>> parse_key("abd", 4), parse_key("bad", 4), parse_key("DA", 4)
    (('ABD', True), (None, False), (None, False))
    """
    if isinstance(raw, (list, tuple)) or (hasattr(raw, "tolist") and not isinstance(raw, str)):
        items: list = list(raw.tolist() if hasattr(raw, "tolist") else raw)  # type: ignore[union-attr, arg-type]
        if len(items) < 2 or not all(isinstance(x, str) for x in items):
            return (
                (_norm(items[0]), False)
                if len(items) == 1 and isinstance(items[0], str) and _norm(items[0])
                else (None, False)
            )
        labels = [_norm(x) for x in items]
        if None in labels or len(set(labels)) != len(labels):
            return None, False
        return _canon(labels, n_options)  # type: ignore[arg-type]
    if not isinstance(raw, str):
        return None, False
    s = raw.strip()
    if s.startswith("[") and s.endswith("]"):
        try:
            v = json.loads(s)
        except json.JSONDecodeError:
            return None, False
        return parse_key(v, n_options) if isinstance(v, list) else (None, False)
    if _SEPARATED.match(s):
        labels = [_norm(x) for x in re.findall(r"[A-Ja-jཀཁགངཅཆཇཉཏཐ]", re.sub(r"\band\b", " ", s))]
        if len(set(labels)) != len(labels):
            return None, False
        return _canon(labels, n_options)  # type: ignore[arg-type]
    if _ANY_RUN.match(s) and len(set(s)) == len(s) and "".join(sorted(s)) == s:
        return _canon(list(s.upper()), n_options)
    return None, False


def _norm(x: str) -> str | None:
    x = x.strip()
    if x in TIBETAN_TO_LATIN:
        return TIBETAN_TO_LATIN[x]
    x = x.upper()
    return x if x in LATIN_LABELS else None


def _canon(labels: list[str], n_options: int | None) -> tuple[str | None, bool]:
    if n_options is not None and any(LATIN_LABELS.index(x) >= n_options for x in labels):
        return None, False
    return "".join(sorted(labels)), True


def is_set_key(key: str | None, flags: list[str] | None = None) -> bool:
    """True for a stored multi-answer key (flag given, or ≥ 2 sorted labels).

    >>> is_set_key("ABD"), is_set_key("B"), is_set_key("BA")
    (True, False, False)
    """
    if flags is not None:
        return MULTI_FLAG in flags
    return bool(key) and _RUN.match(key) is not None and "".join(sorted(set(key))) == key  # type: ignore[arg-type]


def display_key(key: str | None, flags: list[str] | None = None) -> str:
    """How a key is shown: a set as ``{A, B, D}``, a single label as itself.

    >>> display_key("ABD", ["multi_answer"]), display_key("B", []), display_key(None)
    ('{A, B, D}', 'B', '—')
    """
    if key is None:
        return "—"
    if is_set_key(key, flags):
        return "{" + ", ".join(key) + "}"
    return key


def key_set_sql(col: str) -> str:
    """SQL turning a given answer cell of a multi-answer item ("A B D",
    "D,A", '["A","D"]', "abd") into the canonical sorted label string."""
    return (f"array_to_string(list_sort(list_distinct(regexp_extract_all(upper({col}), '[A-J]'))), '')")


__all__ = ["MULTI_FLAG", "parse_key", "is_set_key", "display_key", "key_set_sql"]
