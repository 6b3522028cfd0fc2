"""Strict readers shared by the importers.  Every problem is an InputError
naming the file and, where there is one, the line."""
from __future__ import annotations

import codecs
import json
import os
import unicodedata
from pathlib import Path
from typing import Iterator

import pandas as pd

from audit.errors import InputError

BOM = "\ufeff"


def nfc(text: str | None) -> str | None:
    """Unicode NFC (Tibetan stacks typed in NFD compare equal afterwards)."""
    return unicodedata.normalize("NFC", text) if isinstance(text, str) else text


def read_text(path: str | os.PathLike) -> str:
    """Whole file as UTF-8 (a leading BOM is dropped); non-UTF-8 bytes are an
    error that names the line they are on."""
    p = Path(path)
    if not p.exists():
        raise InputError("file not found", path=p)
    if p.is_dir():
        raise InputError("is a folder, expected a file", path=p)
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the file as UTF-8",
            path=p, line=line,
        ) from None
    if text.startswith(BOM):
        text = text[1:]
    return text


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line (or, for a file
    holding one JSON array, for each record with the line it starts on)."""
    p = Path(path)
    text = read_text(p)
    if not text.strip():
        raise InputError("the file is empty", path=p)
    if text.lstrip().startswith("["):  # a JSON array of records (issue 10)
        from audit.ingest.mapping import json_array_records

        yield from json_array_records(text, p)
        return
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=p, line=no) from None
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object on each line", path=p, line=no)
        yield no, obj


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """CSV, JSONL/NDJSON/JSON-lines or Parquet into a DataFrame.  CSV cells are
    read as text (no type guessing turns '01' into 1).  A column ``_line``
    holds each row's line number in the file (CSV header = line 1)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        if not p.exists():
            raise InputError("file not found", path=p)
        try:
            df = pd.read_parquet(p)
        except Exception as exc:  # pyarrow raises several types
            raise InputError(f"cannot read Parquet: {exc}", path=p) from None
        if df.empty:
            raise InputError("the file has no rows", path=p)
        df["_line"] = range(1, len(df) + 1)
        return df
    if suffix in (".jsonl", ".ndjson", ".json"):
        rows, lines = [], []
        for no, obj in read_jsonl(p):
            rows.append(obj)
            lines.append(no)
        df = pd.DataFrame(rows)
        df["_line"] = lines
        return df
    if suffix in (".csv", ".tsv", ".txt"):
        import io

        text = read_text(p)
        if not text.strip():
            raise InputError("the file is empty", path=p)
        try:
            df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False,
                             sep="\t" if suffix == ".tsv" else ",")
        except pd.errors.ParserError as exc:
            raise InputError(f"not a valid CSV file: {exc}", path=p) from None
        if df.empty:
            raise InputError("the file has a header but no rows", path=p)
        # Multi-line quoted cells make the physical line approximate; the
        # record number (header = 1) is what spreadsheet users see.
        df["_line"] = range(2, len(df) + 2)
        return df
    raise InputError(f"unsupported file type '{suffix}' (use .csv, .jsonl or .parquet)", path=p)


def require_columns(df: pd.DataFrame, required: list[str], path, *, allowed: set[str] | None = None) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise InputError(
            f"missing required column(s): {', '.join(missing)} (found: {', '.join(c for c in df.columns if c != '_line')})",
            path=path,
        )
    if allowed is not None:
        unknown = [c for c in df.columns if c not in allowed and c != "_line"]
        if unknown:
            raise InputError(
                f"unknown column(s): {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})",
                path=path,
            )
