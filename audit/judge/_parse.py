"""Strict parsing of a judge's reply.

Rules (a reply either passes all of them or is stored raw with
``parse_ok = False`` and the reason — it is never guessed):

1. **Locating the JSON.**  The reply (whitespace stripped) must be one JSON
   object, optionally wrapped in a single Markdown code fence
   (```` ```json … ``` ````).  Otherwise JSON inside prose is accepted only when
   it is *one unambiguous JSON object*: scanning the text, exactly one
   ``{…}`` region decodes as a JSON object (nested objects belong to it).
   Zero objects → "no JSON object"; two or more (even identical) →
   "ambiguous".  Braces that do not decode (e.g. ``{1, 2}`` in prose) are
   ignored.
2. **answer_key_correct** is required: JSON ``true``/``false`` (the strings
   "true"/"false"/"yes"/"no" in any case are read as the same booleans).
3. **correct_answer** is a single option label of *this* item (``A``…, Tibetan
   ཀ ཁ ག ང, surrounding spaces, one pair of parentheses or a trailing ``.``/``)``
   allowed; mapped to Latin).  A label outside the item's options is an error.
   When the key is judged correct, ``correct_answer`` may be absent/null/empty
   or equal to the key (stored as NULL); naming another option is
   contradictory → error.  When the key is judged wrong, ``correct_answer``
   may be null (the judge found no correct option) but must not equal the key.
4. **explanation** is an optional string.
5. **confidence** is optional: a number (or numeric string) in [0, 1] is kept;
   a number in (1, 100] is read as a percentage; anything else is stored as
   NULL (it never makes the reply fail).
6. **cause** is optional: when the key is judged wrong, one of the review
   causes (``audit.vocab.CAUSES``: ``source_error``, ``translation``,
   ``key_slip``, ``cultural``, ``formatting``, ``other``; case, spaces and
   hyphens ignored) is kept with the verdict; anything else is stored as
   NULL (it never makes the reply fail).
7. Other keys are ignored.
8. A reply contradicting itself is an error whose reason begins with
   "contradictory" (asked again by the next run): a correct_answer other
   than the key, or a review cause, beside "key correct"; the key itself as
   the correct answer beside "key wrong"; a field given twice with
   different values.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from audit.options import normalize_label

_OBJECT_START = re.compile(r'\{(?=\s{0,64}["}])')
#: Longest reply searched for a JSON object inside prose (a verdict is a few hundred characters).
MAX_PROSE = 200_000
#: Most places tried as the start of a JSON object inside prose.
MAX_STARTS = 200
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)
_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}


@dataclass(frozen=True)
class ParsedVerdict:
    """The outcome of parsing one reply.  When ``parse_ok`` is False the
    answer fields are None and ``parse_error`` says why."""

    parse_ok: bool
    answer_key_correct: bool | None = None
    correct_answer: str | None = None
    explanation: str | None = None
    confidence: float | None = None
    parse_error: str | None = None
    cause: str | None = None


class ReplyError(ValueError):
    """Internal: a reason the reply is not a valid verdict."""


def _fail(reason: str) -> ParsedVerdict:
    return ParsedVerdict(parse_ok=False, parse_error=reason)


def extract_json_object(text: str) -> dict:
    """The single JSON object in ``text`` (rule 1), or ReplyError.

    >>> extract_json_object('Sure. {"a": {"b": 1}} Done.')
    {'a': {'b': 1}}
    >>> extract_json_object('{"a": 1} or {"a": 2}')  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    audit.judge._parse.ReplyError: ambiguous: the reply contains 2 JSON objects
    """
    if text is None or not text.strip():
        raise ReplyError("empty reply")
    s = text.strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1).strip()
    try:
        whole = json.loads(s, object_pairs_hook=_no_conflicting_keys)
    except json.JSONDecodeError:
        whole = None
    except RecursionError:
        raise ReplyError("the reply's JSON is nested too deeply") from None
    else:
        if isinstance(whole, dict):
            return whole
        raise ReplyError(f"the reply is JSON but not an object ({type(whole).__name__})")
    decoder = json.JSONDecoder(object_pairs_hook=_no_conflicting_keys)
    found: list[dict] = []
    if len(s) > MAX_PROSE:
        raise ReplyError(f"the reply is not one JSON object, and too long ({len(s)} characters) to search "
                         "for one")
    # only a '{' followed by '"' or '}' can start an object; at most MAX_STARTS of them are tried, so an
    # adversarial reply ('{' repeated, objects nested without end) costs linear time, not quadratic
    starts = (m.start() for m in _OBJECT_START.finditer(s))
    end = 0
    tried = 0
    for i in starts:
        if i < end:
            continue
        tried += 1
        if tried > MAX_STARTS:
            raise ReplyError(f"the reply has more than {MAX_STARTS} places that could start a JSON object")
        try:
            obj, end = decoder.raw_decode(s, i)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(obj, dict):
            found.append(obj)
    if not found:
        raise ReplyError("no JSON object in the reply")
    if len(found) > 1:
        raise ReplyError(f"ambiguous: the reply contains {len(found)} JSON objects")
    return found[0]


def _no_conflicting_keys(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object's pairs as a dict; a field given twice with different
    values (``{"answer_key_correct": true, "answer_key_correct": false}``)
    is a reply that contradicts itself (``json`` would keep the last one).

    >>> _no_conflicting_keys([("a", 1), ("a", 1)])
    {'a': 1}
    """
    out: dict = {}
    for k, v in pairs:
        if k in out and out[k] != v:
            raise ReplyError(f"contradictory: the field {k} is given twice, with different values")
        out[k] = v
    return out


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ReplyError(f"answer_key_correct must be true or false, not {json.dumps(value, ensure_ascii=False)}")


def _label(value: Any, labels: Sequence[str]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReplyError(f"correct_answer must be an option label, not {json.dumps(value, ensure_ascii=False)}")
    s = value.strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1].strip()
    s = s.rstrip(".)").strip()
    if not s:
        return None
    label = normalize_label(s)
    if label is None or label not in labels:
        raise ReplyError(
            f"correct_answer {json.dumps(value, ensure_ascii=False)} is not one of this item's options "
            f"({', '.join(labels)})"
        )
    return label


def _confidence(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    if 0.0 <= x <= 1.0:
        return x
    if 1.0 < x <= 100.0:
        return x / 100.0
    return None


def verdict_from_object(obj: dict, *, labels: Sequence[str], answer_key: str | None,
                        explanation_field: str = "explanation") -> ParsedVerdict:
    """Validate the fields of a decoded object (rules 2–6).  Raises ReplyError."""
    if "answer_key_correct" not in obj:
        raise ReplyError("the field answer_key_correct is missing")
    ok = _bool(obj["answer_key_correct"])
    answer = _label(obj.get("correct_answer"), labels)
    if ok:
        if answer is not None and answer != answer_key:
            raise ReplyError(
                f"contradictory: says the key {answer_key} is correct but gives correct_answer {answer}")
        if _cause(obj.get("cause")) is not None:
            raise ReplyError(f"contradictory: says the key is correct but names a cause of a wrong key "
                             f"({_cause(obj.get('cause'))})")
        answer = None
    elif answer is not None and answer == answer_key:
        raise ReplyError(f"contradictory: says the key is wrong but gives the key {answer_key} as the correct answer")
    expl = obj.get(explanation_field)
    if expl is not None and not isinstance(expl, str):
        expl = json.dumps(expl, ensure_ascii=False)
    return ParsedVerdict(True, ok, answer, expl, _confidence(obj.get("confidence")),
                         cause=None if ok else _cause(obj.get("cause")))


def _cause(value: Any) -> str | None:
    """A review cause named by the judge, or None.

    >>> _cause("Source error"), _cause("translation"), _cause("bad luck")
    ('source_error', 'translation', None)
    """
    from audit.vocab import CAUSES

    if not isinstance(value, str):
        return None
    key = re.sub(r"[\s-]+", "_", value.strip().lower())
    return key if key in CAUSES else None


def parse_reply(text: str | None, *, labels: Sequence[str], answer_key: str | None) -> ParsedVerdict:
    """Parse one judge reply for an item whose options carry ``labels``.

    >>> parse_reply('{"answer_key_correct": false, "correct_answer": "C", "explanation": "x", "confidence": 0.9}',
    ...             labels="ABCD", answer_key="A")  # doctest: +NORMALIZE_WHITESPACE
    ParsedVerdict(parse_ok=True, answer_key_correct=False, correct_answer='C', explanation='x', confidence=0.9,
                  parse_error=None, cause=None)
    >>> parse_reply('{"answer_key_correct": false, "correct_answer": "E"}', labels="ABCD", answer_key="A").parse_error
    'correct_answer "E" is not one of this item\\'s options (A, B, C, D)'
    """
    try:
        obj = extract_json_object(text or "")
        return verdict_from_object(obj, labels=list(labels), answer_key=answer_key)
    except ReplyError as exc:
        return _fail(str(exc))
