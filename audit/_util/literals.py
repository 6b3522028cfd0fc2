"""Python list literals in data files, read without Python's parser.

Some published files hold a list as Python source text (MMLU-Redux's
``choices``, the detector CSVs, an ``options`` cell written by pandas):
``['Rome', 'Paris']``.  ``ast.literal_eval`` on such a cell runs Python's
parser on untrusted text: ``"-" * 100_000 + "1"`` exhausts its memory
(MemoryError), deep brackets its recursion, eight megabytes of list take
seconds.  :func:`parse_list_literal` reads the one shape these files use —
a list or tuple of strings and numbers, possibly nested a few levels, with
``None``/``True``/``False`` — with a size limit checked before anything is
read, a depth limit, and one :class:`LiteralRefused` for everything else.
Each string token is decoded by ``ast.literal_eval`` of that token alone (a
single quoted literal: nothing to nest or evaluate).
"""
from __future__ import annotations

import ast
import re

#: Longest literal read (characters): a list of option texts is a few kilobytes.
MAX_LITERAL_CHARS = 1 << 20
#: Deepest nesting of brackets read.
MAX_LITERAL_DEPTH = 16

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>(?:[rRuU]|[bB][rR]?|[rR][bB])?(?:'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"
                                              |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))
  | (?P<number>[+-]?(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)
  | (?P<name>None|True|False)
  | (?P<open>[\[(])
  | (?P<close>[\])])
  | (?P<comma>,)
""", re.VERBOSE | re.DOTALL)
_PAIR = {"[": "]", "(": ")"}


class LiteralRefused(ValueError):
    """The text is not a list literal this reader accepts (the message says why)."""


def parse_list_literal(text: str) -> list:
    """The list (or tuple, as a list) written in *text*.

    >>> parse_list_literal("['Rome', \\"Paris\\", 'O\\\\'Hare']")
    ['Rome', 'Paris', "O'Hare"]
    >>> parse_list_literal("(1, 2.5, None, ['x'])")
    [1, 2.5, None, ['x']]
    >>> parse_list_literal("-" * 100_000 + "1")
    Traceback (most recent call last):
    ...
    audit._util.literals.LiteralRefused: not a list literal (it starts with '-')
    >>> parse_list_literal("[" * 50 + "]" * 50)
    Traceback (most recent call last):
    ...
    audit._util.literals.LiteralRefused: nested more than 16 levels deep
    """
    if not isinstance(text, str):
        raise LiteralRefused(f"not text but {type(text).__name__}")
    if len(text) > MAX_LITERAL_CHARS:
        raise LiteralRefused(f"{len(text):,} characters long (at most {MAX_LITERAL_CHARS:,})")
    s = text.strip()
    if not s or s[0] not in "[(":
        raise LiteralRefused(f"not a list literal (it starts with {s[:1]!r})" if s else "empty")
    stack: list[tuple[str, list]] = []
    result: list | None = None
    expect_value = True
    pos = 0
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if m is None:
            raise LiteralRefused(f"unexpected {s[pos:pos + 10]!r} at character {pos}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "space":
            continue
        if result is not None:
            raise LiteralRefused(f"text after the closing bracket at character {m.start()}")
        if kind == "open":
            if not expect_value:
                raise LiteralRefused(f"a ',' is missing before character {m.start()}")
            if len(stack) >= MAX_LITERAL_DEPTH:
                raise LiteralRefused(f"nested more than {MAX_LITERAL_DEPTH} levels deep")
            stack.append((m.group(), []))
            continue
        if kind == "close":
            if not stack or _PAIR[stack[-1][0]] != m.group():
                raise LiteralRefused(f"unbalanced {m.group()!r} at character {m.start()}")
            _, items = stack.pop()
            value: object = items
        elif kind == "comma":
            if expect_value or not stack:
                raise LiteralRefused(f"unexpected ',' at character {m.start()}")
            expect_value = True
            continue
        else:
            if not expect_value:
                raise LiteralRefused(f"a ',' is missing before character {m.start()}")
            value = _scalar(kind, m.group())
        if stack:
            stack[-1][1].append(value)
            expect_value = False
        else:
            result = value  # type: ignore[assignment]
    if stack or result is None:
        raise LiteralRefused("the list is not closed")
    return result


def _scalar(kind: str, token: str):
    if kind == "name":
        return {"None": None, "True": True, "False": False}[token]
    if kind == "string" and token[0] in "'\"" and token[1:2] != token[0] and "\\" not in token:
        return token[1:-1]   # a plain quoted string: its text is what stands between the quotes
    try:
        value = ast.literal_eval(token.replace("_", "") if kind == "number" else token)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise LiteralRefused(f"{token[:20]!r} is not a value") from None
    if isinstance(value, bytes):
        raise LiteralRefused(f"{token[:20]!r} is bytes, not text")
    return value


__all__ = ["MAX_LITERAL_CHARS", "MAX_LITERAL_DEPTH", "LiteralRefused", "parse_list_literal"]
