"""Safe CSV output: every CSV file the tool writes goes through :func:`write_csv`.

Benchmark text, reviewer rationales and model responses are untrusted.  A
spreadsheet (Excel, LibreOffice, Google Sheets) opening a CSV runs a cell as
a formula when its text begins with ``=``, ``+``, ``-`` or ``@``, and a
leading tab or carriage return can smuggle one past naive checks ("CSV /
formula injection", OWASP: https://owasp.org/www-community/attacks/CSV_Injection).
Following the OWASP guidance, such a cell is *neutralised* by prefixing it
with a single quote (``'``): spreadsheets then show the text literally.

Rules (applied identically to every cell and to the header row):

* **Strings** whose first character is one of ``= + - @ \\t \\r`` get a
  ``'`` prefix.  This includes strings that look like negative numbers
  (``"-1"``, ``"-0.5"``): a string column is text, and we do not guess
  whether text is "really" a number — content sniffing is how injections
  slip through (``-1+cmd|...`` starts like a number too).
* **Numbers** (Python/NumPy ints, floats, decimals) and booleans, dates and
  missing values are written unchanged: they cannot carry a formula, and a
  negative accuracy difference such as ``-2.3`` must stay numeric in the
  spreadsheet.  So "plain negative numbers" are left alone exactly when they
  are numbers, and are neutralised when they are strings — decided by type,
  never by content.
* Other characters (including a leading ``'``) are left as they are.
* Every text cell (and the header) is enclosed in double quotes, with inner
  quotes doubled (``csv.QUOTE_NONNUMERIC``), as OWASP also recommends; numbers
  are unquoted.  Quoting every text cell also keeps a lone carriage return
  inside a cell from splitting the row (the csv module does not quote ``\\r``
  under minimal quoting when the line terminator is ``\\n``).

Files and binary streams (downloads) are UTF-8 with a byte-order mark, so
that Excel reads Tibetan and Chinese text as UTF-8; text streams
(stdout, ``io.StringIO``) get no mark.  ``\\n`` line endings, no index
column — so the same frame always produces the same bytes.
"""
from __future__ import annotations

import csv
import datetime as _dt
import decimal
import io
import numbers
import os
from pathlib import Path
from typing import IO, Any

import pandas as pd

__all__ = ["FORMULA_TRIGGERS", "neutralise_cell", "neutralise_frame", "write_csv"]

#: Leading characters that make a spreadsheet treat a cell as a formula.
FORMULA_TRIGGERS: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")
_TRIGGER_RE = "^[=+\\-@\t\r]"


def neutralise_cell(value: Any) -> Any:
    """Return *value* safe to put in a CSV cell.

    Strings starting with ``= + - @``, tab or carriage return get a leading
    single quote; every other value (numbers included) is returned unchanged.

    >>> neutralise_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> neutralise_cell("@SUM(A1)"), neutralise_cell("\\t=1"), neutralise_cell("ཀ")
    ("'@SUM(A1)", "'\\t=1", 'ཀ')
    >>> neutralise_cell(-2.5), neutralise_cell("-2.5"), neutralise_cell(None)
    (-2.5, "'-2.5", None)
    """
    if isinstance(value, str):
        if value and value[0] in FORMULA_TRIGGERS:
            return "'" + value
        return value
    return value


def _is_text_column(s: pd.Series) -> bool:
    return not (
        pd.api.types.is_numeric_dtype(s)
        or pd.api.types.is_bool_dtype(s)
        or pd.api.types.is_datetime64_any_dtype(s)
        or pd.api.types.is_timedelta64_dtype(s)
    )


def _neutralise_any(value: Any) -> Any:
    # Object columns can mix types; only str cells are touched, and any other
    # non-number object (lists, dicts...) is rendered as text first so its
    # string form is checked too.
    if value is None or isinstance(value, (str, bool, numbers.Number, decimal.Decimal, _dt.date, _dt.datetime)):
        return neutralise_cell(value)
    try:
        if pd.isna(value):
            return value
    except (TypeError, ValueError):
        pass
    return neutralise_cell(str(value))


def _neutralise_column(s: pd.Series) -> pd.Series:
    obj = s.astype(object)
    kind = pd.api.types.infer_dtype(obj, skipna=True)
    if kind in ("string", "empty"):
        # all text (or missing): vectorised prefixing
        mask = obj.str.match(_TRIGGER_RE, na=False).astype(bool)
        if mask.any():
            obj = obj.copy()
            obj[mask] = "'" + obj[mask]
        return obj
    return obj.map(_neutralise_any)


def neutralise_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of *df* with every text cell and column name neutralised.

    >>> neutralise_frame(pd.DataFrame({"=x": ["-a", "b"], "d": [-1, 2]})).to_dict("list")
    {"'=x": ["'-a", 'b'], 'd': [-1, 2]}
    """
    out = df.copy()
    for col in out.columns:
        if _is_text_column(out[col]):
            out[col] = _neutralise_column(out[col])
    out.columns = [neutralise_cell(c if isinstance(c, str) else str(c)) for c in out.columns]
    return out


def write_csv(df: pd.DataFrame, path_or_buffer: str | os.PathLike | IO[str] | IO[bytes]) -> None:
    """Write *df* as a neutralised CSV (UTF-8, ``\\n``, no index, text quoted).

    *path_or_buffer* is a file path (the file is replaced) or an open text or
    binary stream (``sys.stdout``, ``io.StringIO``, ``io.BytesIO``); files and
    binary streams start with the UTF-8 byte-order mark.

    >>> buf = io.StringIO()
    >>> write_csv(pd.DataFrame({"q": ["=1+1", "ok"], "delta": [-3.0, 1.5]}), buf)
    >>> print(buf.getvalue(), end="")
    "q","delta"
    "'=1+1",-3.0
    "ok",1.5
    """
    text = neutralise_frame(df).to_csv(index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        Path(path_or_buffer).write_bytes(text.encode("utf-8-sig"))
        return
    if isinstance(path_or_buffer, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(path_or_buffer, "mode", ""):
        path_or_buffer.write(text.encode("utf-8-sig"))
    else:
        path_or_buffer.write(text)
