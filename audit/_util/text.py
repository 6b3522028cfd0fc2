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


