"""Untrusted text written to a terminal, as Markdown or as JSON.

Benchmark text, names, rationales and model replies are data from
elsewhere.  Written raw to a terminal, an escape sequence in them acts: an
OSC sets the window title or plants a hyperlink (``ESC ] 8``), a CSI clears
the screen or moves the cursor, and the single-byte C1 introducer U+009B
starts a CSI without any ESC.  Bidirectional overrides (U+202E …) reorder
what is shown.  Rendered as Markdown, ``[text](url)`` is a live link and
``![t](url)`` an image fetched from anywhere.

One writer for all of it:

* :func:`terminal_safe`: every C0 control but newline and tab, DEL, every
  C1 control and the bidirectional controls shown as visible escapes
  (``\\x1b``, ``\\x9b``, ``\\u202e``); the rest of the text unchanged;
* :func:`frame_text`: a DataFrame as a plain-text table with every cell,
  column name and index label through :func:`terminal_safe`;
* :func:`markdown_cell`: HTML escaped (no tag, no ``<url>`` autolink),
  ``|``, backslashes and the brackets of links and images ``[ ]`` escaped
  with a backslash (no ``[text](url)`` or ``![t](url)`` stays live), line
  breaks as spaces,
  then :func:`terminal_safe` (a Markdown file is read in terminals too);
* :func:`json_text`: JSON keeping every stored character exactly, with
  DEL, C1 controls, line separators and bidirectional controls written as
  ``\\u`` escapes too (``json`` escapes only C0).
"""
from __future__ import annotations

import html
import json
import re
from typing import Any

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MD_SPECIAL = re.compile(r"([\\\[\]|])")


def _visible(m: re.Match[str]) -> str:
    cp = ord(m.group(0))
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def terminal_safe(text: Any) -> str:
    """*text* (any value, as ``str``) with escape-making characters shown
    as visible escapes.

    >>> terminal_safe("sub\\x1b]0;pwned\\x07ject \\x9b31m ok")
    'sub\\\\x1b]0;pwned\\\\x07ject \\\\x9b31m ok'
    >>> terminal_safe("བོད་ line\\n\\tnext")
    'བོད་ line\\n\\tnext'
    """
    s = text if isinstance(text, str) else str(text)
    return _UNSAFE.sub(_visible, s) if _UNSAFE.search(s) else s


def frame_text(df, *, na_rep: str = "", empty: str = "(none)", max_cell: int | None = 60, **kwargs) -> str:
    """``df.to_string(index=False)`` for a terminal: every piece of text
    through :func:`terminal_safe` (the frame itself is not changed), a
    missing value an empty cell (never ``NaN`` or ``None``), a text cell one
    line, cut at ``max_cell`` characters with "…" (None: whole), so no
    column (nor its header) is padded to the width of one long text.

    >>> import pandas as pd
    >>> print(frame_text(pd.DataFrame({"id": ["q\\x1b[2J1"], "n": [1]})))
           id  n
    q\\x1b[2J1  1
    >>> t = frame_text(pd.DataFrame({"id": ["q1", "q2"], "why": ["x" * 100, None], "n": [1.5, float("nan")]}),
    ...                max_cell=8)
    >>> [line.rstrip() for line in t.splitlines()]
    ['id      why   n', 'q1 xxxxxxx… 1.5', 'q2']
    """
    if df.empty:
        return empty
    safe = df.copy()
    safe.columns = [terminal_safe(c) for c in safe.columns]
    from pandas.api.types import is_numeric_dtype

    for c in safe.columns:
        if not is_numeric_dtype(safe[c].dtype):
            safe[c] = [("" if v is None or v != v else terminal_safe(_one_line(str(v), max_cell))) for v in safe[c]]
    kwargs.setdefault("index", False)
    return safe.to_string(na_rep=na_rep, **kwargs)


def _one_line(s: str, limit: int | None) -> str:
    s = " ".join(s.split())
    return s if limit is None or len(s) <= limit else s[:limit - 1] + "…"


def markdown_cell(value: Any) -> str:
    """*value* as the text of one Markdown table cell or heading: no HTML,
    no live link or image, no escape sequence.

    >>> print(markdown_cell("[click](http://x) ![t](http://y) <b>|</b>"))
    \\[click\\](http://x) !\\[t\\](http://y) &lt;b&gt;\\|&lt;/b&gt;
    """
    s = value if isinstance(value, str) else str(value)
    s = " ".join(s.splitlines()) if ("\n" in s or "\r" in s) else s
    s = html.escape(s, quote=False)
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return terminal_safe(s)


def json_text(obj: Any, **kwargs) -> str:
    """``json.dumps(obj, ensure_ascii=False, **kwargs)`` with DEL, the C1
    controls and U+2028/U+2029 escaped as ``\\u`` (still the same JSON
    value): the text stays exact for a machine, inert in a terminal.

    >>> json_text({"s": "a\\x1b\\x9bb"})
    '{"s": "a\\\\u001b\\\\u009bb"}'
    """
    text = json.dumps(obj, ensure_ascii=False, **kwargs)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


__all__ = ["terminal_safe", "frame_text", "markdown_cell", "json_text"]
