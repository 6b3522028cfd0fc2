"""Names and free text as the tool keeps them: NFC, surrounding and repeated
spaces removed (a name), stripped and empty as ``None`` (free text)."""
from __future__ import annotations

import unicodedata


def clean_name(name) -> str:
    """A reviewer name: NFC, surrounding and repeated spaces removed."""
    if name is None:
        return ""
    return " ".join(unicodedata.normalize("NFC", str(name)).split())


def clean_text(value) -> str | None:
    """Free text (rationale, proposed fix): NFC, stripped; empty → None."""
    if value is None:
        return None
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    s = unicodedata.normalize("NFC", str(value)).strip()
    return s or None


def text_table(df, max_cell: int = 60) -> str:
    """A DataFrame as a plain-text table for a terminal: a missing value is
    an empty cell (never ``NaN`` or ``None``), a cell is one line, and a
    long one is cut at ``max_cell`` characters with "…", so no column (nor
    its header) is padded to the width of one long text.

    >>> import pandas as pd
    >>> t = text_table(pd.DataFrame({"id": ["q1", "q2"], "why": ["x" * 100, None], "n": [1.5, float("nan")]}),
    ...                max_cell=8)
    >>> [line.rstrip() for line in t.splitlines()]
    ['id      why   n', 'q1 xxxxxxx… 1.5', 'q2']
    """
    if df.empty:
        return "(none)"
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if col.dtype == object or str(col.dtype) in ("string", "str"):
            out[c] = [("" if v is None or v != v else _one_line(str(v), max_cell)) for v in col]
    return out.to_string(index=False, na_rep="")


def _one_line(s: str, limit: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit - 1] + "…"
