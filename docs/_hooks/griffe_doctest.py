"""Griffe extension for the API reference: a docstring's ``>>>`` examples
(the doctests CI runs) become fenced ``pycon`` code blocks, so Markdown shows
them as code instead of reading ``>>>`` as quotes and ``[...]`` as links.
Configured in mkdocs.yml (mkdocstrings → python → options → extensions)."""
from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """Wrap each run of doctest lines (from ``>>>`` to the next blank line).

    >>> print(fence_doctests("Text.\\n\\n>>> 1 + 1\\n2\\n\\nMore."))
    Text.
    <BLANKLINE>
    ```pycon
    >>> 1 + 1
    2
    ```
    <BLANKLINE>
    More.
    """
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out.append(f"{indent}```pycon")
            out.extend(block)
            out.append(f"{indent}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is not None and ">>>" in doc.value:
            doc.value = fence_doctests(doc.value)
