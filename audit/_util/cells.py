"""Strict readers of single cells, for importers of published tables.

A cell read from CSV is text; from Parquet or JSON it may be a float (an
integer column with a null becomes float64 in pandas), NaN, None or a
number.  ``str(cell)`` turned those into keys ``'1.0'`` and ``'nan'`` and
labels ``'None'``.  These readers say what a cell means, or refuse it:

* :func:`is_missing`: None, NaN, and blank text are missing — never the
  strings ``'nan'`` or ``'None'``;
* :func:`text_cell`: text (stripped) or None; a number where text is
  expected is refused;
* :func:`option_number`: a whole number written with ASCII digits or as an
  integral float (``1``, ``'1'``, ``1.0``, ``'1.0'``), or None when missing;
  ``'²'`` (which ``str.isdigit`` accepts and ``int`` refuses), ``'①'``,
  ``1.5`` and ``'-1'`` are refused.

Refusals raise :class:`CellRefused` (a ``ValueError``) with the reason; the
importer adds the file, line and column.
"""
from __future__ import annotations

import math
import re

_DIGITS = re.compile(r"[0-9]+(?:\.0*)?")


class CellRefused(ValueError):
    """A cell that does not hold what the column means."""


def is_missing(v) -> bool:
    """None, a float NaN (pandas' missing value), or blank text.

    >>> [is_missing(x) for x in (None, float("nan"), "  ", "nan", 0)]
    [True, True, True, False, False]
    """
    if v is None:
        return True
    if isinstance(v, float):
        return math.isnan(v)
    if isinstance(v, str):
        return not v.strip()
    try:
        import pandas as pd

        return bool(pd.isna(v)) if not hasattr(v, "__len__") else False
    except (TypeError, ValueError):
        return False


def text_cell(v) -> str | None:
    """Text, stripped; None when missing; a number or anything else refused.

    >>> text_cell(" ok "), text_cell(float("nan")), text_cell(None)
    ('ok', None, None)
    >>> text_cell(1.0)
    Traceback (most recent call last):
    ...
    audit._util.cells.CellRefused: 1.0 is a number, not text
    """
    if is_missing(v):
        return None
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, (int, float)) or type(v).__module__ == "numpy":
        raise CellRefused(f"{v!r} is a number, not text")
    raise CellRefused(f"{type(v).__name__} value, not text")


def option_number(v) -> int | None:
    """A 0-or-more whole number (an option's index), or None when missing.

    >>> [option_number(x) for x in (0, "1", 2.0, "3.0", None, float("nan"), "")]
    [0, 1, 2, 3, None, None, None]
    >>> option_number("²")
    Traceback (most recent call last):
    ...
    audit._util.cells.CellRefused: '²' is not an option number (ASCII digits, e.g. 0 or 1)
    """
    if is_missing(v):
        return None
    if isinstance(v, bool):
        raise CellRefused(f"{v!r} is not an option number")
    if isinstance(v, str):
        s = v.strip()
        if not _DIGITS.fullmatch(s) or len(s) > 6:
            raise CellRefused(f"{s[:20]!r} is not an option number (ASCII digits, e.g. 0 or 1)")
        return int(s.split(".")[0])
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise CellRefused(f"{v!r} is not an option number") from None
    if not math.isfinite(f) or not f.is_integer() or f < 0 or f > 999_999:
        raise CellRefused(f"{v!r} is not an option number (a whole number from 0)")
    return int(f)


__all__ = ["CellRefused", "is_missing", "text_cell", "option_number"]
