"""Option labels.  Storage always uses Latin A–F; Tibetan ཀ ཁ ག ང map to A–D."""
from __future__ import annotations

LATIN_LABELS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F")
TIBETAN_LABELS: tuple[str, ...] = ("ཀ", "ཁ", "ག", "ང")
TIBETAN_TO_LATIN: dict[str, str] = dict(zip(TIBETAN_LABELS, LATIN_LABELS))
LATIN_TO_TIBETAN: dict[str, str] = {v: k for k, v in TIBETAN_TO_LATIN.items()}
MIN_OPTIONS = 2
MAX_OPTIONS = 6


def labels_for(n_options: int) -> tuple[str, ...]:
    """The first ``n_options`` Latin labels (2 ≤ n ≤ 6).

    >>> labels_for(4)
    ('A', 'B', 'C', 'D')
    """
    if not MIN_OPTIONS <= n_options <= MAX_OPTIONS:
        raise ValueError(f"an item has {MIN_OPTIONS}–{MAX_OPTIONS} options, not {n_options}")
    return LATIN_LABELS[:n_options]


def normalize_label(label: str) -> str | None:
    """Map 'a', ' C ', 'ག' to a Latin label; None when it is not a label.

    >>> normalize_label(' c '), normalize_label('ག'), normalize_label('G')
    ('C', 'C', None)
    """
    s = str(label).strip()
    if s in TIBETAN_TO_LATIN:
        return TIBETAN_TO_LATIN[s]
    s = s.upper()
    return s if s in LATIN_LABELS else None
