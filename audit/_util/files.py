"""Strict readers of input files, shared by every stage that reads one
(importers, judge files and prompts, reviews, Label Studio exports).  Every problem is an InputError
naming the file and, where there is one, the line.

Only regular files are read: a pipe (FIFO), a device (``/dev/zero``), a
socket — also behind a symlink — is refused before anything is opened, and
so is a file larger than ``$AUDIT_MAX_INPUT_BYTES`` (default 4 GiB).  An
unreadable file (permission denied) and JSON nested too deeply to parse are
errors naming the file, never tracebacks.  CSV files are parsed by DuckDB
(constant memory per cell, cells of any size up to the file's size): a row
with more or fewer fields than the header, or a header naming a column
twice, is an error naming the line.

Every reader also takes a member of an archive (:class:`audit._util.archives.Source`):
its bytes are decompressed in memory, and its messages name the archive and
the member.  A CSV member is read by the same DuckDB scan, from an in-memory
file system (never a file on disk).
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import tempfile
import threading
import unicodedata
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from audit._util.sql import memory_connection
from audit.errors import InputError

BOM = "\ufeff"


def nfc(text: str | None) -> str | None:
    """Unicode NFC (Tibetan stacks typed in NFD compare equal afterwards)."""
    return unicodedata.normalize("NFC", text) if isinstance(text, str) else text


MAX_INPUT_ENV = "AUDIT_MAX_INPUT_BYTES"
DEFAULT_MAX_INPUT = 4 << 30


def max_input_bytes() -> int:
    """The largest input file read: ``$AUDIT_MAX_INPUT_BYTES`` or 4 GiB."""
    env = os.environ.get(MAX_INPUT_ENV, "").strip()
    if env:
        try:
            return int(env)
        except ValueError:
            raise InputError(f"${MAX_INPUT_ENV} must be a number of bytes, not {env!r}") from None
    return DEFAULT_MAX_INPUT


def check_input_file(path: str | os.PathLike) -> Path:
    """*path* if it is a readable regular file within the size limit, else an
    InputError saying what it is.  Nothing but ``stat`` and an ``open`` of a
    regular file happens, so a FIFO cannot block and ``/dev/zero`` is not read.

    >>> check_input_file("/dev/zero")
    Traceback (most recent call last):
    ...
    audit.errors.InputError: /dev/zero: not a regular file (a pipe, device or socket); give the path of a file
    """
    p = Path(path)
    try:
        st = os.stat(p)   # follows symlinks: a link to /dev/zero is a device
    except FileNotFoundError:
        raise InputError("file not found", path=p) from None
    except PermissionError:
        raise InputError("cannot read the file: permission denied", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=p) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a folder, expected a file", path=p)
    if not stat.S_ISREG(st.st_mode):
        raise InputError("not a regular file (a pipe, device or socket); give the path of a file", path=p)
    limit = max_input_bytes()
    if st.st_size > limit:
        raise InputError(f"the file has {st.st_size:,} bytes, more than the limit of {limit:,} "
                         f"(set ${MAX_INPUT_ENV} to read larger files)", path=p)
    try:
        with open(p, "rb"):
            pass
    except PermissionError:
        raise InputError("cannot read the file: permission denied", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=p) from None
    return p


def check_utf8(path: Path, chunk_size: int = 1 << 20) -> None:
    """Stream the file through a strict UTF-8 check; raise with the line and
    offset of the first bad byte.  Constant memory for any file size (a
    character cut by a chunk boundary is carried over to the next chunk)."""
    path = _file_of(path)
    if is_member(path):
        if not _decode(path.read_bytes(), path).strip(" \t\r\n"):   # type: ignore[attr-defined]
            raise InputError("the file is empty", path=str(path))
        return
    check_input_file(path)
    line, offset, seen_text, carry = 1, 0, False, b""
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(chunk_size)
            final = not chunk
            data = carry + chunk
            carry = b""
            try:
                data.decode("utf-8")
                good = data
            except UnicodeDecodeError as exc:
                if not final and exc.reason == "unexpected end of data" and exc.end == len(data):
                    good, carry = data[: exc.start], data[exc.start:]  # finish it with the next chunk
                else:
                    raise InputError(
                        f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {offset + exc.start}); "
                        "save the file as UTF-8",
                        path=path, line=line + data[: exc.start].count(b"\n"),
                    ) from None
            if good.strip(b" \t\r\n\xef\xbb\xbf"):
                seen_text = True
            line += good.count(b"\n")
            offset += len(good)
            if final:
                break
    if not seen_text:
        raise InputError("the file is empty", path=path)


class _NotANumber(ValueError):
    pass


class _DuplicateKey(ValueError):
    pass


def _refuse_constant(name: str):
    raise _NotANumber(name)


def _unique_keys(pairs: list) -> dict:
    """An object's members as a dict, refusing a key given twice (Python's
    json keeps the last silently: ``{"answer": "A", "answer": "B"}`` read as
    B)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _DuplicateKey(twice)
    return out


#: A JSON decoder that refuses ``NaN``, ``Infinity`` and ``-Infinity``
#: (Python's json accepts them; they are not JSON and never a value here)
#: and an object naming a key twice.
STRICT_JSON = json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
#: Python's own reading (``NaN`` → ``float('nan')``), for logs whose writers
#: emit it (lm-eval's log-likelihoods); the caller must treat NaN as no value.
#: Keys given twice are refused here too.
_LENIENT_JSON = json.JSONDecoder(object_pairs_hook=_unique_keys)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(obj: Any) -> str | None:
    """The first lone surrogate (``\\ud800`` written alone) in a decoded
    JSON value, as ``U+D800``: such text cannot be stored or shown."""
    stack = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            for ch in v:
                if 0xD800 <= ord(ch) <= 0xDFFF:
                    return f"U+{ord(ch):04X}"
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def _checked_value(obj: Any, text: str, path, line: int | None) -> Any:
    if _SURROGATE_ESCAPE.search(text):
        bad = _lone_surrogate(obj)
        if bad:
            raise InputError(f"the text holds a lone surrogate ({bad}), which is not a character; "
                             "fix the escape in the file", path=path, line=line)
    return obj


def _deep_line(text: str, limit: int = 500) -> int | None:
    """The line on which *text*'s brackets first nest deeper than *limit*
    (strings skipped); None when they never do."""
    depth, line, in_str, esc = 0, 1, False, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return line
        elif ch in "]}":
            depth -= 1
    return None


def load_json(text: str, path: str | os.PathLike, line: int | None = None, *, allow_nan: bool = False) -> Any:
    """``json.loads`` whose failures (bad JSON, ``NaN``/``Infinity``, nesting
    too deep to parse) are an InputError naming the file and line.

    >>> load_json("[" * 100000, "x.json")
    Traceback (most recent call last):
    ...
    audit.errors.InputError: x.json:1: JSON nested too deeply to read (more than ~1000 levels)
    >>> load_json('{"a": NaN}', "x.jsonl", 3)
    Traceback (most recent call last):
    ...
    audit.errors.InputError: x.jsonl:3: NaN is not a JSON value (write the number, or null for none)
    >>> load_json('{"answer": "A", "answer": "B"}', "x.jsonl", 2)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: x.jsonl:2: the key 'answer' is given
    twice in one object (which value is meant cannot be told)
    """
    try:
        return _checked_value((_LENIENT_JSON if allow_nan else STRICT_JSON).decode(text), text, path, line)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=path, line=where) from None
    except _NotANumber as exc:
        raise InputError(f"{exc} is not a JSON value (write the number, or null for none)", path=path,
                         line=line) from None
    except _DuplicateKey as exc:
        raise InputError(f"the key '{exc}' is given twice in one object (which value is meant cannot be told)",
                         path=path, line=line) from None
    except ValueError as exc:   # an integer longer than Python's digit limit (4,300 digits)
        raise InputError(f"not a usable JSON value ({str(exc).split(';')[0][:80]})", path=path, line=line) from None
    except RecursionError:
        where = (line - 1 if line else 0) + (_deep_line(text) or 1)
        raise InputError("JSON nested too deeply to read (more than ~1000 levels)", path=path,
                         line=where) from None


def read_text(path: str | os.PathLike) -> str:
    """Whole file as UTF-8 (a leading BOM is dropped); non-UTF-8 bytes are an
    error that names the line they are on."""
    path = _file_of(path)
    if is_member(path):
        return _decode(path.read_bytes(), path)   # type: ignore[union-attr]  # an archive member has read_bytes
    p = check_input_file(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path=p) from None
    return _decode(data, p)


def is_member(x: object) -> bool:
    """Whether *x* is a member of an archive (:class:`audit._util.archives.Source`)."""
    return getattr(x, "member", None) is not None


def _file_of(x):
    """A :class:`audit._util.archives.Source` that is a plain file, as its path; anything else as it is."""
    return x.path if hasattr(x, "member") and x.member is None else x


def _decode(data: bytes, where: object) -> str:
    """*data* as UTF-8 text without a leading BOM; an error naming the line of a bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the file as UTF-8",
            path=str(where), line=line,
        ) from None
    return text[1:] if text.startswith(BOM) else text


def read_jsonl(path, *, allow_nan: bool = False, notes: list[str] | None = None) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each record of a JSON file: one
    object per line (JSONL), a JSON array of objects, or (see
    :func:`json_records`) an object wrapping the array.  ``NaN``/``Infinity``
    are refused unless *allow_nan*.  *path* is a file or an archive member.
    With *notes*, what was read other than one record per line or element
    (a wrapping object, strings between records) is said there."""
    text = read_text(path)
    if not text.strip():
        raise InputError("the file is empty", path=str(path))
    yield from json_records(text, str(path), allow_nan=allow_nan, notes=notes)


def json_lines(text: str) -> list[str]:
    """The lines of JSONL text: split at "\\n" only (a "\\r" before it dropped).
    JSON strings may hold U+0085, U+2028 and U+2029, which ``str.splitlines``
    also takes for line ends.

    >>> json_lines('{"a": "x\u2028y"}\\r\\n{"a": 2}')
    ['{"a": "x\u2028y"}', '{"a": 2}']
    """
    lines = text.split("\n")
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def json_records(text: str, path, *, allow_nan: bool = False,
                 notes: list[str] | None = None) -> Iterator[tuple[int, dict]]:
    """(line, object) for each record held in JSON *text*:

    * a top-level array: its objects, each with the line it starts on; with
      *notes*, strings between them are skipped and counted in a note
      (MMLU-Pro's result files hold stray subject names), without it they
      are refused (and so is any other value that is not an object);
    * an object whose one field holds a list of objects, its other fields
      plain values (GAOKAO-Bench: ``{"keywords": …, "example": [ … ]}``):
      that list, noted;
    * otherwise one object per line (JSONL; lines split at "\\n" only).

    >>> list(json_records('{"keywords": "k",\\n "example": [\\n  {"q": 1},\\n  {"q": 2}]}', "f", notes=[]))
    [(3, {'q': 1}), (4, {'q': 2})]
    """
    body = text.lstrip()
    if body.startswith("["):
        yield from json_array_records(text, path, notes=notes)
        return
    lines = json_lines(text)
    if body.startswith("{"):
        filled = [ln for ln in lines if ln.strip()]
        try:
            STRICT_JSON.decode(filled[0])
            one_record = True
        except (json.JSONDecodeError, _NotANumber, RecursionError):
            one_record = False
        except ValueError:   # a key given twice, a too-long integer: a whole record, refused with its line below
            one_record = True
        # a pretty-printed object, or a .json file holding one object on one line
        if not one_record or (len(filled) == 1 and str(path).lower().endswith(".json")):
            wrapped = _wrapped_list(text)
            if wrapped is not None:
                field, start, others = wrapped
                if notes is not None:
                    notes.append(f"records: the list in the field '{field}' of the top-level object"
                                 + (f" (other fields: {', '.join(others)})" if others else ""))
                yield from json_array_records(text, path, start=start, notes=notes)
                return
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = load_json(line, path, no, allow_nan=allow_nan)
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object on each line", path=path, line=no)
        yield no, obj


def _wrapped_list(text: str) -> tuple[str, int, list[str]] | None:
    """(field, offset of its '[', the other fields) when *text* is one JSON
    object whose only list-valued field holds objects and whose other fields
    are plain values; None otherwise."""
    try:
        doc = STRICT_JSON.decode(text)
    except (json.JSONDecodeError, _NotANumber, RecursionError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    lists = [k for k, v in doc.items() if isinstance(v, list)]
    others = [k for k in doc if k not in lists]
    if len(lists) != 1 or any(isinstance(doc[k], dict) for k in others):
        return None
    field = lists[0]
    if not doc[field] or not all(isinstance(x, dict) for x in doc[field]):
        return None
    # the offset of the list: the key, then ':' and white space
    key = json.dumps(field, ensure_ascii=False)
    at = text.find(key)
    while at >= 0:
        j = at + len(key)
        while j < len(text) and text[j] in " \t\r\n":
            j += 1
        if j < len(text) and text[j] == ":":
            j += 1
            while j < len(text) and text[j] in " \t\r\n":
                j += 1
            if j < len(text) and text[j] == "[":
                return field, j, others
        at = text.find(key, at + 1)
    return None


def read_table(path, *, notes: list[str] | None = None, names: list[str] | None = None) -> pd.DataFrame:
    """CSV, JSONL/NDJSON/JSON-lines or Parquet into a DataFrame.  CSV cells are
    read as text (no type guessing turns '01' into 1).  A column ``_line``
    holds each row's line number in the file (CSV header = line 1)."""
    path = _file_of(path)
    p = path if is_member(path) else Path(path)
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        if not is_member(p):
            check_input_file(p)
        try:
            df = pd.read_parquet(io.BytesIO(p.read_bytes()) if is_member(p) else p)
        except Exception as exc:  # pyarrow raises several types
            raise InputError(f"cannot read Parquet: {exc}", path=p) from None
        if df.empty:
            raise InputError("the file has no rows", path=p)
        refuse_reserved(df.columns, p)
        df["_line"] = range(1, len(df) + 1)
        return df
    if suffix in (".jsonl", ".ndjson", ".json"):
        rows, lines = [], []
        for no, obj in read_jsonl(p, notes=notes):
            reserved = RESERVED_FIELDS.intersection(obj)
            if reserved:
                raise InputError(f"the record has a field '{sorted(reserved)[0]}': names starting with '_line' "
                                 f"and '_source' are reserved; rename it with --map", path=p, line=no)
            rows.append(obj)
            lines.append(no)
        # object columns: a whole number stays exact (a column of large ids
        # with one missing value would otherwise become float64)
        df = pd.DataFrame(rows, dtype=object)
        df["_line"] = lines
        return df
    if suffix in (".csv", ".tsv", ".txt"):
        return read_csv(p, sep="\t" if suffix == ".tsv" else ",", names=names)
    raise InputError(f"unsupported file type '{suffix}' (use .csv, .jsonl or .parquet)", path=p)


#: Columns the readers add (``_line``) or importers use internally
#: (``_source``, ``_row``, ``_file``); an input field of that name is refused.
RESERVED_FIELDS = frozenset({"_line", "_source", "_row", "_file"})


def refuse_reserved(columns, path) -> None:
    reserved = sorted(RESERVED_FIELDS.intersection(columns))
    if reserved:
        raise InputError(f"the file has a field '{reserved[0]}': the names {', '.join(sorted(RESERVED_FIELDS))} are "
                         "reserved for the importer's own bookkeeping; rename it with --map", path=path)


def one_line(name: object, width: int = 40) -> str:
    """A column name as shown in a message: one line, at most *width* characters."""
    text = " ".join(str(name).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def require_columns(df: pd.DataFrame, required: list[str], path, *, allowed: set[str] | None = None) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise InputError(
            f"missing required column(s): {', '.join(missing)} "
            f"(found: {', '.join(one_line(c) for c in df.columns if c not in RESERVED_FIELDS)})",
            path=path,
        )
    if allowed is not None:
        unknown = [c for c in df.columns if c not in allowed and c not in RESERVED_FIELDS]
        if unknown:
            raise InputError(
                f"unknown column(s): {', '.join(one_line(c) for c in unknown)} "
                f"(allowed: {', '.join(sorted(allowed - RESERVED_FIELDS))})",
                path=path,
            )


def csv_header(path: Path, sep: str = ",") -> list[str]:
    """The header row of a CSV file (a BOM dropped).  A column named twice is
    an error on line 1 (a reader would otherwise rename the second ``m1`` to
    ``m1_1``, inventing a column).  An empty name (CMMLU's index column) is
    called ``Unnamed: <i>`` (0-based position), as pandas calls it."""
    path = _file_of(path)
    check_utf8(path)
    fh = (io.StringIO(read_text(path), newline="") if is_member(path)
          else open(path, encoding="utf-8-sig", newline=""))
    with fh:
        try:
            header = next(csv.reader(fh, delimiter=sep), [])
        except csv.Error as exc:
            raise InputError(f"not a valid CSV header: {exc}", path=path, line=1) from None
    if not header or not any(h.strip() for h in header):
        raise InputError("the file has no header row", path=path, line=1)
    header = [h if h.strip() else f"Unnamed: {i}" for i, h in enumerate(header)]
    seen: set[str] = set()
    for h in header:
        if h in seen:
            raise InputError(f"the header names column '{h}' twice", path=path, line=1)
        seen.add(h)
    refuse_reserved(header, f"{path}:1")
    return header


_DUCK_LINE = re.compile(r"CSV Error on Line: (\d+)")
_DUCK_COUNT = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")


def duck_csv_error(exc: Exception, path: Path) -> InputError:
    """DuckDB's CSV error as ``FILE:LINE: what is wrong``."""
    msg = str(exc)
    m = _DUCK_LINE.search(msg)
    line = int(m.group(1)) if m else None
    n = _DUCK_COUNT.search(msg)
    if n:
        want, got = int(n.group(1)), int(n.group(2))
        what = (f"the row has more fields than the header's {want}; quote cells that contain the delimiter"
                if got > want else f"the row has {got} field{'s' if got != 1 else ''}, the header has {want}")
        return InputError(what, path=path, line=line)
    first = next(
        (l.strip() for l in msg.splitlines() if l.strip() and not l.startswith("Invalid Input Error: CSV Error")), ""
    )
    first = first.replace("Invalid Input Error: ", "")
    return InputError(f"not a valid CSV file: {first or msg.splitlines()[0]}", path=path, line=line)


def csv_scan_sql(path: Path, header: list[str], sep: str = ",", *, has_header: bool = True,
                 location: tuple[str, int] | None = None) -> str:
    """A DuckDB ``read_csv`` call reading *path* as text columns ``c0, c1, …``
    (one per header field; rename them to the header) — strict: a row with
    more or fewer fields than the header is an error; no type guessing; a
    cell may be as long as the file.  ``has_header=False``: the first row is
    data (*header* names the columns).  *location*: the SQL literal and
    size of the bytes to read instead of *path* (an archive member in memory,
    see :class:`MemoryCsv`)."""
    lit, nbytes = location if location is not None else (duck_path(path), path.stat().st_size)
    size = max(nbytes + 1, 2_097_152)
    cols = "{" + ", ".join(f"'c{i}': 'VARCHAR'" for i in range(len(header))) + "}"
    delim = "\\t" if sep == "\t" else sep
    flag = "true" if has_header else "false"
    return (f"read_csv({lit}, header = {flag}, delim = E'{delim}', quote = '\"', escape = '\"', columns = {cols}, "
            f"auto_detect = false, strict_mode = true, null_padding = false, max_line_size = {size}, "
            f"buffer_size = {max(size, 16 * 2_097_152)})")


class MemoryCsv:
    """An archive member's bytes under ``memory://`` for DuckDB's CSV scan on
    *con* (fsspec's in-memory file system: nothing is written to disk);
    removed on exit.  For a plain file: its own path."""

    def __init__(self, path, con):
        self.path, self.con, self.url = path, con, None

    def __enter__(self) -> tuple[str, int] | None:
        if not is_member(self.path):
            return None
        import uuid

        from fsspec.implementations.memory import MemoryFileSystem

        data = self.path.read_bytes()
        if data.startswith(BOM.encode("utf-8")):
            data = data[3:]
        fs = MemoryFileSystem()
        self.fs, self.key = fs, f"/audit-member-{uuid.uuid4().hex}.csv"
        with fs.open(self.key, "wb") as fh:
            fh.write(data)
        self.con.register_filesystem(fs)
        return f"'memory://{self.key.lstrip('/')}'", len(data)

    def __exit__(self, *exc) -> None:
        if getattr(self, "key", None):
            try:
                self.fs.rm(self.key)
            except FileNotFoundError:
                pass


_CSV_CON = None
_CSV_GUARD = threading.Lock()


def _csv_cursor():
    """A cursor on this process's one in-memory DuckDB connection for
    reading CSV files (made once: a new connection costs ~20 ms, which a
    folder of 3,000 one-row files paid 3,000 times).  Close it after use;
    cursors of one connection may be used from different threads."""
    global _CSV_CON
    with _CSV_GUARD:
        if _CSV_CON is None:
            _CSV_CON = memory_connection()
        return _CSV_CON.cursor()


def read_csv(path, sep: str = ",", names: list[str] | None = None) -> pd.DataFrame:
    """A CSV file as a DataFrame of text cells (empty cells are ``""``) plus
    ``_line`` (record number, header = 1), parsed by DuckDB.  With *names*,
    the file has no header row: its columns are *names* and ``_line`` counts
    from 1."""
    import duckdb

    path = _file_of(path)
    p = path if is_member(path) else Path(path)
    header = names if names is not None else csv_header(p, sep)
    if names is not None:
        check_utf8(p)
    # an archive member is scanned through a file system registered on the connection: its own connection
    con = duckdb.connect() if is_member(p) else _csv_cursor()
    try:
        with MemoryCsv(p, con) as location:
            try:
                df = con.execute(
                    f"SELECT * FROM {csv_scan_sql(p, header, sep, has_header=names is None, location=location)}"
                ).df()
            except duckdb.Error as exc:
                raise duck_csv_error(exc, p) from None
    finally:
        con.close()
    if df.empty:
        raise InputError("the file has a header but no rows" if names is None else "the file has no rows", path=str(p))
    df.columns = header
    df = df.fillna("")
    first = 2 if names is None else 1
    df["_line"] = range(first, len(df) + first)
    return df


def iter_table(path, chunk_rows: int = 20_000, names: list[str] | None = None,
               notes: list[str] | None = None) -> Iterator[pd.DataFrame]:
    """Like :func:`read_table`, in chunks of at most *chunk_rows* rows (CSV:
    streamed from DuckDB, so a million-row file never sits in memory as
    Python objects at once; other formats: one chunk).  ``_line`` numbers
    continue across chunks.  *names*: a CSV without a header row, its columns."""
    path = _file_of(path)
    p = path if is_member(path) else Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".tsv", ".txt"):
        yield read_table(p, notes=notes)
        return
    import duckdb

    sep = "\t" if suffix == ".tsv" else ","
    header = names if names is not None else csv_header(p, sep)
    if names is not None:
        check_utf8(p)
    first = 2 if names is None else 1
    # an archive member is scanned through a file system registered on the connection: its own connection
    con = duckdb.connect() if is_member(p) else _csv_cursor()
    try:
        with MemoryCsv(p, con) as location:
            try:
                reader = con.sql(
                    f"SELECT * FROM {csv_scan_sql(p, header, sep, has_header=names is None, location=location)}"
                ).to_arrow_reader(chunk_rows)
            except duckdb.Error as exc:
                raise duck_csv_error(exc, p) from None
            line = first
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    break
                except Exception as exc:   # DuckDB's CSV errors may surface through Arrow while streaming
                    raise duck_csv_error(exc, p) from None
                if batch.num_rows == 0:
                    continue
                df = batch.to_pandas()
                df.columns = header
                df = df.fillna("")
                df["_line"] = range(line, line + len(df))
                line += len(df)
                yield df
            if line == first:
                raise InputError("the file has a header but no rows" if names is None else "the file has no rows",
                                 path=str(p))
    finally:
        con.close()


def json_array_records(text: str, path, *, start: int | None = None,
                       notes: list[str] | None = None) -> Iterator[tuple[int, dict]]:
    """(line, object) for each element of the JSON array that starts at
    *start* in ``text`` (the first ``[`` by default).  An element that is a
    string is skipped and counted in *notes* when given (refused otherwise);
    any other value that is not an object is refused.

    >>> list(json_array_records('[\\n {"a": 1},\\n {"a": 2}\\n]', "f"))
    [(2, {'a': 1}), (3, {'a': 2})]
    >>> notes = []
    >>> [r for _, r in json_array_records('[{"a": 1}, "other", {"a": 2}]', "f", notes=notes)], notes
    ([{'a': 1}, {'a': 2}], ["skipped 1 element of the array that is not a record (strings: 'other')"])
    """
    dec = STRICT_JSON
    opening = text.index("[") if start is None else start
    i = opening + 1
    n = len(text)
    line = 1 + text.count("\n", 0, i)
    last = i
    expect_value = True
    skipped: list[str] = []
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            raise InputError("not valid JSON (the array is not closed with ']')", path=path,
                             line=line + text.count("\n", last, n))
        if text[i] == "]":
            if expect_value and last != opening + 1:
                raise InputError("not valid JSON (a ',' before the closing ']': trailing commas are not JSON)",
                                 path=path, line=line + text.count("\n", last, i))
            if start is None and text[i + 1:].strip():   # (a wrapped list: the object goes on)
                raise InputError("not valid JSON (text after the closing ']')", path=path,
                                 line=line + text.count("\n", last, i))
            if skipped and notes is not None:
                shown = ", ".join(repr(x) for x in list(dict.fromkeys(skipped))[:4])
                notes.append(f"skipped {len(skipped)} element{'s' if len(skipped) != 1 else ''} of the array that "
                             f"{'are not records' if len(skipped) != 1 else 'is not a record'} (strings: {shown})")
            return
        if not expect_value:
            if text[i] != ",":
                raise InputError("not valid JSON (expected ',' between records)", path=path,
                                 line=line + text.count("\n", last, i))
            i += 1
            expect_value = True
            continue
        line += text.count("\n", last, i)
        last = i
        try:
            obj, end = dec.raw_decode(text, i)
            obj = _checked_value(obj, text[i:end], path, line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", path=path, line=exc.lineno) from None
        except _NotANumber as exc:
            raise InputError(f"{exc} is not a JSON value (write the number, or null for none)", path=path,
                             line=line) from None
        except _DuplicateKey as exc:
            raise InputError(f"the key '{exc}' is given twice in one object (which value is meant cannot be "
                             "told)", path=path, line=line) from None
        except ValueError as exc:
            raise InputError(f"not a usable JSON value ({str(exc).split(';')[0][:80]})", path=path,
                             line=line) from None
        except RecursionError:
            raise InputError("JSON nested too deeply to read (more than ~1000 levels)", path=path,
                             line=line - 1 + (_deep_line(text[i:]) or 1)) from None
        if not isinstance(obj, dict):
            if notes is None or not isinstance(obj, str):
                raise InputError("expected a JSON object for each record of the array", path=path, line=line)
            skipped.append(obj)
        else:
            yield line, obj
        i = end
        expect_value = False


_GLOB_CHARS = frozenset("*?[]{}~:\\")
_link_dir: "tempfile.TemporaryDirectory[str] | None" = None


def duck_path(path: str | os.PathLike) -> str:
    """*path* as a DuckDB SQL string literal naming exactly that file.

    DuckDB reads a file name as a pattern (``g[12].csv`` matches ``g1.csv``;
    ``*``, ``?``, ``{a,b}``, ``~`` and ``scheme://`` too).  A path holding
    any such character is read through a symbolic link with a plain name in
    a private temporary folder (removed at exit; a killed process's folder
    is removed by the next import, see ``audit.ingest.storing.sweep_stale``).

    >>> duck_path("/data/q.csv")
    "'/data/q.csv'"
    >>> import pathlib, tempfile, duckdb
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "g1.csv").write_text("a\\n1\\n"); _ = (d / "g[12].csv").write_text("a\\n2\\n")
    >>> duckdb.sql(f"SELECT a FROM read_csv({duck_path(d / 'g[12].csv')})").fetchall()
    [(2,)]
    """
    global _link_dir
    text = os.path.abspath(os.fspath(path))
    if not _GLOB_CHARS.intersection(text):
        return "'" + text.replace("'", "''") + "'"
    if _link_dir is None:
        _link_dir = tempfile.TemporaryDirectory(prefix=f"audit-import-{os.getpid()}-")
    link = Path(_link_dir.name) / f"{len(os.listdir(_link_dir.name))}{Path(text).suffix.lower()}"
    os.symlink(text, link)
    return "'" + str(link).replace("'", "''") + "'"
