"""``audit import questions``: a generic question file (CSV, JSONL, a JSON array or Parquet).

Columns: ``id``, ``question``, ``answer`` (required); the options either as
columns ``A``…``F`` (filled from ``A`` on, no gaps) or as one ``options``
column holding a list (in CSV a JSON or Python list literal); optional
``subject``, ``language``, ``script``, ``explanation``.  Any other column is
an error (so a misspelt column is never silently ignored).  Files whose
fields are named otherwise, or nested (``metadata.reference``), are read
through a field mapping (:mod:`audit.ingest.mapping`: ``--map SOURCE=TARGET``
or a mapping file).

``answer`` may be a Latin letter (any case), a Tibetan letter ཀ ཁ ག ང (→ A–D)
or a 0-based option index (``0`` → A, ``3`` → D).  A set of labels (``A B D``,
``ABD``, ``["A", "D"]``) is a multi-answer key, stored as ``"ABD"`` with the
flag ``multi_answer`` (:mod:`audit.ingest.multi_answer`).  An answer that is
not one of the item's labels is imported as given and flagged
``key_not_in_options``.

The script comes from the text's letters (:func:`audit.scripts.script_of`); a given
``script`` column wins.  Text is normalised to Unicode NFC (Tibetan typed in
NFD compares equal); the text as imported is kept in ``raw_text`` and
``source_record``.
"""
from __future__ import annotations

import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import duckdb
import pyarrow.parquet as pq

from audit._util.archives import Source, as_source, sources
from audit._util.files import (
    RESERVED_FIELDS,
    check_input_file,
    iter_table,
    load_json,
    nfc,
    read_table,
    refuse_reserved,
    require_columns,
)
from audit._util.literals import LiteralRefused, parse_list_literal
from audit._util.sql import table_exists, unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest.formats import parse_tlue_item
from audit.ingest.mapping import _MISSING, apply_mapping, get_path, resolve
from audit.ingest.multi_answer import MULTI_FLAG, display_key, parse_key
from audit.ingest.storing import QuestionStage, StoreReport, item_flags
from audit.options import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS, TIBETAN_TO_LATIN
from audit.scripts import has_letters, option_scripts, script_of
from audit.store import DbPath, connect, resolve_db_path, transaction
from audit.store.records import Option, Question

if TYPE_CHECKING:
    import pandas as pd

OPTION_COLUMNS = list(LATIN_LABELS)
OPTIONAL_COLUMNS = {"subject", "language", "script", "explanation", "context"}
ALLOWED_COLUMNS = {"id", "question", "answer", "options", *OPTION_COLUMNS, *OPTIONAL_COLUMNS}
PREVIEW_ITEMS = 5


@dataclass
class QuestionImportSummary:
    benchmark: str
    path: str
    questions: int
    key_not_in_options: int
    flagged: int
    scripts: dict[str, int]
    multi_answer: int = 0
    dry_run: bool = False
    preview: list[dict] = field(default_factory=list)  # the first items as they would be stored
    report: StoreReport = field(default_factory=StoreReport)  # new / unchanged / replaced ids
    files: int = 1
    id_rule: str = ""
    missing_fields: dict[str, list[str]] = field(default_factory=dict)  # mapped field → files without it
    key_base: str = ""   # how option numbers given as keys were read (empty: none were)
    with_context: int = 0   # items with a passage (stored with the item, shown above the stem)
    parallel: int = 0       # items with a second language in the same row, stored as their parallel version
    notes: list[str] = field(default_factory=list)   # what was read other than as usual (ids by row, a wrapper…)

    def __str__(self) -> str:
        scripts = ", ".join(f"{k} {v}" for k, v in sorted(self.scripts.items()))
        r = self.report
        where = f" from {self.files} files" if self.files > 1 else ""
        if self.questions and r.written == 0 and r.unchanged == self.questions:
            s = (f"nothing to import into '{self.benchmark}': all {self.questions:,} questions are already "
                 f"stored with this content")
        else:
            verb = "would import" if self.dry_run else "imported"
            s = (f"{verb} {self.questions:,} questions{where} into '{self.benchmark}' ({scripts}): {r}; "
                 f"{self.key_not_in_options} with a key not among the options, {self.flagged} flagged in total")
        if self.multi_answer:
            s += f"; {self.multi_answer} with a multi-answer key (scored by exact set match)"
        if self.with_context:
            s += f"; {self.with_context:,} with a passage (stored with the item, shown above the stem)"
        if self.parallel:
            s += f"; {self.parallel:,} with their parallel version from the same row"
        if self.id_rule and self.id_rule != "the 'id' field":
            s += f"; ids: {self.id_rule}"
        if self.key_base:
            s += f"; answers: {self.key_base}"
        for src, files in sorted(self.missing_fields.items()):
            s += f"; mapped field '{src}' absent from {len(files)} file(s): {', '.join(files[:5])}"
        if self.dry_run:
            s += "; dry run: nothing was written"
        for note in self.notes:
            s += f"\n  {note}"
        return s

    def preview_text(self) -> str:
        """The preview items as plain text, one block per item."""
        out = []
        for it in self.preview:
            opts = "  ".join(f"{o['label']}. {o['text']}" for o in it["options"])
            out.append(f"[{it['question_id']}] {it['stem']}\n    {opts}\n    key: {it['answer_key_display']}"
                       f"  script: {it['script'] or '?'}  language: {it['language'] or '?'}"
                       f"  flags: {', '.join(it['flags']) or 'none'}")
        return "\n".join(out)



MAX_EXACT_INT = 2 ** 53   # the largest whole number a float (or a JSON reader in JavaScript) keeps exactly


def _cell(v, what: str = "value") -> str | None:
    """A cell as text: None for missing (None, a pandas NaN for an absent
    field) or blank.  Infinity, a fraction standing where text or a whole
    number is expected in an id, and a float too large to be exact are
    refused (``InputError`` without a path; the caller adds it)."""
    if type(v) is str:           # the common case (every CSV cell): no number checks
        return v if v.strip() else None
    if v is None:
        return None
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if v != v:
            return None
        if v in (float("inf"), float("-inf")):
            raise InputError(f"{what} is {'-' if v < 0 else ''}Infinity, not a value")
        if v.is_integer():
            if abs(v) >= MAX_EXACT_INT:
                raise InputError(f"{what} {v!r} is a number too large to be exact; write it as text")
            v = int(v)
    s = str(v)
    return s if s.strip() else None


def _id_cell(v) -> str | None:
    """An id cell: text or a whole number (``1.5`` or ``1e20`` is refused)."""
    if type(v) is str:
        return v if v.strip() else None
    if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")) and not v.is_integer():
        raise InputError(f"id {v!r} is a fraction; ids are text or whole numbers")
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_EXACT_INT and isinstance(v, float):
        raise InputError(f"id {v!r} is too large to be exact")
    return _cell(v, "id")


def _field(df, col: str) -> str:
    """How a column is named in messages: 'options', or 'option' → options
    when the file's field was mapped (so the error names the field in the file)."""
    src = getattr(df, "attrs", {}).get("mapped_from", {}).get(col)
    return f"'{src}' (read as {col})" if src and src != col else f"'{col}'"


def _parse_options_cell(v, path, line, name: str = "'options'") -> tuple[list[str], list[str] | None]:
    """The option texts of an ``options`` cell, and the labels the file gives
    them (ARC's ``{"text", "label"}`` objects or ``{"text": [...], "label":
    [...]}``; a ``{"A": text, …}`` object) or None."""
    if hasattr(v, "tolist") and not isinstance(v, str):  # numpy array from Parquet
        v = v.tolist()
    if isinstance(v, str):
        s = v.strip()
        if not s:
            raise InputError(f"{name} is empty", path=path, line=line)
        try:
            v = load_json(s, path, line)
        except InputError:
            try:
                v = parse_list_literal(s)
            except LiteralRefused as exc:
                raise InputError(f"{name} is not a list (expected e.g. [\"red\", \"blue\"]): {exc}", path=path,
                                 line=line) from None
    labels: list[str] | None = None
    if isinstance(v, dict):
        if isinstance(v.get("text"), (list, tuple)) and isinstance(v.get("label"), (list, tuple)):
            if len(v["text"]) != len(v["label"]):
                raise InputError(f"{name}: {len(v['text'])} texts but {len(v['label'])} labels", path=path, line=line)
            labels = [str(x).strip() for x in v["label"]]
            v = list(v["text"])
        elif len(v) >= MIN_OPTIONS and all(isinstance(k, str) and 0 < len(k.strip()) <= 3 for k in v):
            labels = [k.strip() for k in v]
            v = list(v.values())
    if isinstance(v, tuple):
        v = list(v)
    if not isinstance(v, list):
        raise InputError(f"{name} must be a list, not {type(v).__name__}", path=path, line=line)
    out = []
    given: list[str] = []
    for i, item in enumerate(v):
        if isinstance(item, dict) and "text" in item:
            if "label" in item and item["label"] is not None:
                given.append(str(item["label"]).strip())
            item = item["text"]
        if item is None or isinstance(item, (list, dict)):
            raise InputError(f"{name}: option {i + 1} is not text", path=path, line=line)
        if isinstance(item, float) and (item != item or item in (float("inf"), float("-inf"))):
            raise InputError(f"{name}: option {i + 1} is {item!r}, not text", path=path, line=line)
        out.append(str(item))
    if given and labels is None:
        if len(given) != len(out):
            raise InputError(f"{name}: some options have a label and some do not", path=path, line=line)
        labels = given
    # empty texts at the end are no options (ParsiNLU pads two-option items to four); one before a filled
    # option is a gap the file must fill
    while out and not out[-1].strip():
        out.pop()
        if labels is not None:
            labels = labels[:-1]
    gaps = [i for i, t in enumerate(out) if not t.strip()]
    if gaps:
        raise InputError(f"{name}: option {gaps[0] + 1} is empty but a later option is filled", path=path, line=line)
    if labels is not None and len(set(labels)) != len(labels):
        raise InputError(f"{name}: a label is given to two options ({', '.join(labels)})", path=path, line=line)
    return out, labels


_PUNCT_KEY = re.compile(
    r"^[(\[（【「]?\s*([^\s()\[\]（）【】「」.。:：,，、;；!！]+)\s*[)\]）】」]?\s*[.。:：,，、;；!！)）]?$"
)


def _plain_key(raw: str) -> str:
    """The key as meant: NFKC (full-width ``Ｂ`` → ``B``), trimmed, without
    surrounding brackets or trailing punctuation (``(B)``, ``B.``, ``B）``).

    >>> [_plain_key(x) for x in ("Ｂ", " (c) ", "D.", "【A】", "3", "two words")]
    ['B', 'c', 'D', 'A', '3', 'two words']
    """
    s = unicodedata.normalize("NFKC", raw).strip()
    m = _PUNCT_KEY.match(s)
    return m.group(1) if m else s


def _norm_text(t: str) -> str:
    return " ".join(unicodedata.normalize("NFC", t).split())


def _answer_label(raw: str | None, texts: list[str], labels: list[str] | None = None) -> str | int | None:
    """A single key → a Latin label; an ``int`` for an option number whose
    base the caller decides; otherwise the raw answer (then flagged
    key_not_in_options).  Tried in order: the file's own option labels (ARC
    ``label``), a Latin or Tibetan letter, the text of exactly one option
    (also when it is a number), an option number.

    >>> _answer_label("Ｂ", ["x", "y"]), _answer_label("ཁ", ["x", "y"]), _answer_label("y", ["x", "y"])
    ('B', 'B', 'B')
    >>> _answer_label("2", ["x", "y", "z"], ["1", "2", "3"]), _answer_label("2", ["x", "y", "z"])
    ('B', 2)
    >>> _answer_label("112", ["119", "112", "114", "120"]), _answer_label("ཐ", list("abcdefghij"))
    ('B', 'J')
    """
    if raw is None:
        return None
    if labels is None and len(raw) == 1 and raw in _ASCII_LETTERS:
        return raw.upper()
    s = nfc(raw).strip()
    if s.startswith("[") and s.endswith("]"):  # a one-element list ["B"]
        try:
            v = json.loads(s)
        except (json.JSONDecodeError, RecursionError):
            v = None
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], (str, int)) and not isinstance(v[0], bool):
            s = str(v[0]).strip()
    n = len(texts)
    if labels is not None:
        for cand in (s, _plain_key(s)):
            if cand in labels:
                return LATIN_LABELS[labels.index(cand)]
        low = [x.lower() for x in labels]
        if _plain_key(s).lower() in low and low.count(_plain_key(s).lower()) == 1:
            return LATIN_LABELS[low.index(_plain_key(s).lower())]
    k = _plain_key(s)
    if k in TIBETAN_TO_LATIN:
        return TIBETAN_TO_LATIN[k]
    if len(k) == 1 and k.upper() in LATIN_LABELS:
        return k.upper()
    # an option's text, even a number: CLIcK's key "112" is the text of one option, no option number
    target = _norm_text(unicodedata.normalize("NFKC", s))
    hits = [i for i, t in enumerate(texts) if _norm_text(unicodedata.normalize("NFKC", t)) == target]
    if len(hits) == 1 and n:
        return LATIN_LABELS[hits[0]]
    if k.isdigit() and k.isascii() and len(k) < 4:
        return int(k)
    return s


_LETTER_RUN = re.compile(r"^[A-Ja-j]{2,10}$")
_ASCII_LETTERS = frozenset("ABCDEFGHIJabcdefghij")


def _index_label(i: int, base: int, n: int) -> str:
    j = i - base
    return LATIN_LABELS[j] if 0 <= j < n else str(i)


def decide_key_base(indexes: list[tuple[int, int]], given: int | None = None) -> int | None:
    """Whether option numbers used as keys count from 0 or from 1, from
    ``(number, n_options)`` pairs: *given* when set; 0 when a 0 occurs; 1
    when a number equals its item's count of options and no 0 occurs; None
    (undecided: the caller refuses and names ``--key-base``) otherwise, and
    an :class:`InputError` when both a 0 and such a number occur.

    >>> decide_key_base([(0, 4), (3, 4)]), decide_key_base([(1, 4), (4, 4)]), decide_key_base([(1, 4), (2, 4)])
    (0, 1, None)
    """
    if given is not None:
        if given not in (0, 1):
            raise InputError(f"--key-base is 0 or 1, not {given}")
        return given
    indexes = [(i, n) for i, n in indexes if i <= n]   # a number past the options is no option number
    if not indexes:
        return None
    zero = any(i == 0 for i, _ in indexes)
    top = any(i == n for i, n in indexes)
    if zero and top:
        raise InputError("the answers are option numbers from 0 up to the number of options: they cannot all "
                         "count from the same base; fix the file or pass --key-base 0 or 1")
    if zero:
        return 0
    if top:
        return 1
    return None


@dataclass
class _Row:
    """One parsed row before its key base is known."""
    question: Question
    index: int | None = None      # the option number given as key (base not yet applied)


def parse_question_rows(df, path, benchmark: str, seen: dict[str, int] | None = None, *,
                        key_base: int | None = 0, id_template: str | None = None) -> list[Question]:
    """Rows of a question table (from ``read_table``) → Questions.  Raises
    InputError naming the line for every malformed row.  *seen* (id → first
    line) carries the duplicate-id check across chunks of one file.

    Without an ``id`` column (and no *id_template*) the id is the record's
    row number in the file, counting from 0 (``_row``; CMMLU's own
    convention).  *id_template* (``"{file}/{row}"``, ``"{subject}-{id}"``)
    builds the id from the record's fields, ``file`` (the file's stem) and
    ``row``.  Option numbers as keys count from *key_base* (0 or 1)."""
    rows = _parse_rows(df, path, benchmark, seen, id_template=id_template)
    indexes = [(r.index, len(r.question.options)) for r in rows if r.index is not None]
    base = decide_key_base(indexes, key_base) if indexes else key_base
    return _finish(rows, base, path)


def _finish(rows: list["_Row"], base: int | None, path) -> list[Question]:
    out = []
    for r in rows:
        q = r.question
        if r.index is not None and r.index > len(q.options):
            q.answer_key = str(r.index)   # no option's number under either base: kept, flagged
        elif r.index is not None:
            if base is None:
                ns = sorted({len(x.question.options) for x in rows})
                nums = sorted({x.index for x in rows if x.index is not None})
                raise InputError(
                    f"the answers are option numbers ({', '.join(map(str, nums[:6]))}) for items of "
                    f"{'/'.join(map(str, ns))} options: counted from 0 or from 1 cannot be told; "
                    "pass --key-base 0 or --key-base 1", path=str(path))
            q.answer_key = _index_label(r.index, base, len(q.options))
        out.append(q)
    return out


_NUMBERED = re.compile(r"^(?:option|opt|choice|ending)[_ ]?(\d+)$", re.IGNORECASE)


def _numbered_option_columns(cols: list[str]) -> list[str]:
    """Columns ``option_1 … option_N`` (or option1, choice_1, ending0 …), in
    number order; [] when there are none or they leave gaps."""
    found = {}
    for c in cols:
        m = _NUMBERED.match(c)
        if m:
            found[int(m.group(1))] = c
    if len(found) < 2:
        return []
    nums = sorted(found)
    if nums != list(range(nums[0], nums[0] + len(nums))) or nums[0] not in (0, 1):
        return []
    return [found[i] for i in nums]


@dataclass
class _FileRule:
    """How the items of one file get their ids and where they come from."""

    stem: str                      # the file's own name without its data suffix: ids <stem>/<row>
    name: str                      # the file's own name (an archive member: archive/member), for item_sources
    path: str = ""                 # its path under the folder imported, without the suffix (--id '{path}/{row}')
    index_id: bool = False         # the id field numbers the records: ids <stem>/<value>
    by_row: bool = False           # the id field repeats within the file: ids <stem>/<row>
    repeated_ids: str = "refuse"   # what a repeated id does: refuse, or "by_row" (import auto)
    parallel: dict | None = None   # the columns of a second language in the same row


class _IdsRepeat(Exception):
    """An id field repeats within a file read with ``repeated_ids="by_row"``."""

    def __init__(self, qid: str, first: int, line: int):
        super().__init__(qid)
        self.qid, self.first, self.line = qid, first, line


def _parse_rows(df, path, benchmark: str, seen: dict[str, int] | None, *, id_template: str | None,
                rule: "_FileRule | None" = None) -> list[_Row]:
    rule = rule or _FileRule(stem=Path(str(path)).stem, name=Path(str(path)).name)
    cols = [c for c in df.columns if c not in ("_line", "_source", "_row", "_file")]
    extra_letters = [c for c in cols if len(c) == 1 and c.isalpha() and c.isupper() and c not in OPTION_COLUMNS]
    if extra_letters:
        raise InputError(f"option column(s) {', '.join(extra_letters)}: at most {MAX_OPTIONS} options (A–J) per item",
                         path=str(path))
    numbered = _numbered_option_columns(cols)
    if len(numbered) > MAX_OPTIONS:
        raise InputError(f"{len(numbered)} option columns ({numbered[0]} … {numbered[-1]}): at most "
                         f"{MAX_OPTIONS} options per item", path=str(path))
    required = ["question", "answer"] + (["id"] if id_template is None and "id" in cols else [])
    try:
        require_columns(df, required, str(path),
                        allowed=ALLOWED_COLUMNS | set(numbered) | {"_source", "_row", "_file"})
    except InputError as exc:
        # name the flag that reads the file: a field renamed, or dropped into the source record
        missing = "missing required" in exc.detail
        advice = ("; name the file's fields with --map SOURCE=TARGET (e.g. --map prompt=question), or let "
                  "'audit import auto' recognise them" if missing else
                  "; read them with --map FIELD=TARGET, or keep them only in the source record with --map FIELD=")
        raise InputError(exc.detail + advice, path=exc.path) from None
    option_cols = [c for c in OPTION_COLUMNS if c in cols]
    if option_cols and numbered:
        raise InputError(f"give the options one way: columns A–J or {numbered[0]} …, not both", path=str(path))
    option_cols = option_cols or numbered
    if "options" in cols and option_cols:
        raise InputError(f"give the options either as one 'options' column or as columns A–J, not both "
                         f"(found options and {', '.join(option_cols)})", path=str(path))
    # neither: the options are embedded in the question text ("A. …" lines), read as TLUE's are
    out: list[_Row] = []
    first_line: dict[str, int] = seen if seen is not None else {}
    has_id = "id" in cols
    for rec in df.to_dict("records"):
        line = int(rec.pop("_line"))
        row = rec.pop("_row", None)
        rec.pop("_file", None)
        try:
            out.append(_parse_one(rec, df, path, line, row, rule, benchmark, first_line, option_cols,
                                  has_id, id_template))
        except InputError as exc:
            if exc.path is None:
                raise InputError(exc.detail, path=str(path), line=line) from None
            raise
    return out


_TEMPLATE_FIELD = re.compile(r"\{([^{}]*)\}")


def check_id_template(template: str) -> None:
    """An ``--id`` template holds only plain ``{name}`` fields (no format
    spec, conversion, index or attribute: ``{row:>999999999}`` would build a
    gigabyte id, ``{x.__class__}`` reach into Python).

    >>> check_id_template("{file}/{row}")
    >>> check_id_template("{row:>99999}")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    audit.errors.InputError: --id '{row:>99999}': a template field is a
    plain {name} (letters, digits, '_', '-', ' '), not '{row:>99999}'
    """
    if not template.strip():
        raise InputError("--id is empty")
    for m in _TEMPLATE_FIELD.finditer(template):
        if not re.fullmatch(r"[\w\- ]+", m.group(1)):
            raise InputError(f"--id '{template}': a template field is a plain {{name}} (letters, digits, '_', "
                             f"'-', ' '), not '{m.group(0)}'")
    rest = _TEMPLATE_FIELD.sub("", template)
    if "{" in rest or "}" in rest:
        raise InputError(f"--id '{template}': unbalanced braces")
    if not _TEMPLATE_FIELD.search(template):
        raise InputError(f"--id '{template}' names no field: every item would get the same id "
                         "(use e.g. '{file}/{row}')")


def _parse_one(rec, df, path, line, row, rule: _FileRule, benchmark, first_line, option_cols, has_id,
               id_template) -> _Row:
    position = row if row is not None else line - 1
    if id_template is not None:
        fields = {k: ("" if _cell(v) is None else _cell(v)) for k, v in rec.items()
                  if not isinstance(v, (dict, list))}
        fields.update(file=rule.stem, row=position, path=rule.path or rule.stem)
        try:
            qid = _TEMPLATE_FIELD.sub(lambda m: str(fields[m.group(1)]), id_template)
        except KeyError as exc:
            raise InputError(f"--id names the field {exc} that the record does not have "
                             f"(fields: {', '.join(sorted(fields))})", path=path, line=line) from None
        except (ValueError, IndexError) as exc:
            raise InputError(f"--id is not a valid template ({exc})", path=path, line=line) from None
        qid = qid if qid.strip() else None
    elif has_id and not rule.by_row:
        qid = _id_cell(rec.get("id"))
        if qid is not None and rule.index_id:
            qid = f"{rule.stem}/{qid.strip()}"
    else:
        qid = f"{rule.stem}/{position}"
    if qid is None:
        raise InputError(f"empty id in {_field(df, 'id')}", path=path, line=line)
    qid = nfc(qid.strip())   # ids compare in NFC, like texts
    if qid in first_line:
        if rule.repeated_ids == "by_row" and id_template is None and has_id:
            raise _IdsRepeat(qid, first_line[qid], line)
        raise InputError(f"duplicate question id '{qid}' (first on line {first_line[qid]})"
                         + ("; build unique ids with --id '{file}/{row}'" if id_template is None else ""),
                         path=path, line=line)
    first_line[qid] = line
    raw_stem = _cell(rec.get("question"), "the question")
    if raw_stem is None:
        raise InputError(f"empty question text in {_field(df, 'question')} (id '{qid}')", path=path, line=line)
    labels: list[str] | None = None
    suspect: str | None = None
    if not option_cols and "options" not in rec:
        parsed = parse_tlue_item(raw_stem)
        if len(parsed.options) < MIN_OPTIONS:
            raise InputError(f"no options: the file has no options field (columns A–J or 'options') and none "
                             f"were found in the question text (id '{qid}'; {parsed.reason or 'no markers'})",
                             path=path, line=line)
        texts = [o.text for o in parsed.options]
        raw_stem_text, raw_stem = raw_stem, parsed.stem
        suspect = parsed.reason if parsed.suspect else None
    elif option_cols:
        cells = [_cell(rec.get(c), f"option {c}") for c in option_cols]
        while cells and cells[-1] is None:
            cells.pop()
        gaps = [option_cols[i] for i, c in enumerate(cells) if c is None]
        if gaps:
            raise InputError(f"option {gaps[0]} is empty but a later option is filled (id '{qid}')",
                             path=path, line=line)
        texts = [c for c in cells if c is not None]
    else:
        texts, labels = _parse_options_cell(rec.get("options"), path, line, _field(df, "options"))
    if len(texts) > MAX_OPTIONS:
        raise InputError(f"{len(texts)} options; an item has {MIN_OPTIONS}–{MAX_OPTIONS} (id '{qid}'); leave the "
                         "others out of the file, or split the item", path=path, line=line)
    if len(texts) < MIN_OPTIONS:
        raise InputError(f"{len(texts)} option(s); an item has {MIN_OPTIONS}–{MAX_OPTIONS} (id '{qid}')",
                         path=path, line=line)
    options = [Option(LATIN_LABELS[i], nfc(t).strip()) for i, t in enumerate(texts)]
    raw_answer = rec.get("answer")
    if isinstance(raw_answer, float) and raw_answer in (float("inf"), float("-inf")):
        raise InputError(f"the answer is {raw_answer!r}, not a key (id '{qid}')", path=path, line=line)
    if isinstance(raw_answer, float) and raw_answer == raw_answer and not raw_answer.is_integer():
        raise InputError(f"the answer {raw_answer!r} is a fraction, not a key (id '{qid}')", path=path, line=line)
    index: int | None = None
    key: str | None
    own_label = (labels is not None and isinstance(raw_answer, (str, int)) and not isinstance(raw_answer, bool)
                 and _plain_key(str(raw_answer)) in labels)
    if labels is None and isinstance(raw_answer, str) and len(raw_answer) == 1 and raw_answer in _ASCII_LETTERS:
        set_key, is_set = None, False      # the common case, a plain letter: read below without more ado
    elif own_label:
        set_key, is_set = None, False      # the file's own label ("1" in ARC): read below
    else:
        set_key, is_set = parse_key(_plain_key(raw_answer) if isinstance(raw_answer, str) else raw_answer,
                                    len(options))
    if is_set:
        key = set_key
    else:
        if isinstance(raw_answer, (list, tuple)) or (hasattr(raw_answer, "tolist") and not isinstance(raw_answer, str)):
            raw_answer = json.dumps(_jsonable(raw_answer), ensure_ascii=False)
        got = _answer_label(_cell(raw_answer, "the answer"), texts, labels)
        if isinstance(got, int):
            index, key = got, None
        else:
            key = got
            run = _plain_key(key) if key is not None else ""
            if _LETTER_RUN.match(run) and (len(set(run.upper())) != len(run) or "".join(sorted(run)) != run):
                raise InputError(
                    f"the answer '{key}' is not a key: a multi-answer key lists distinct option letters in order "
                    f"(e.g. '{''.join(sorted(set(key.upper())))}' or '{', '.join(sorted(set(key.upper())))}'); "
                    f"fix it in the file (id '{qid}')", path=path, line=line)
    language = _cell(rec.get("language"), "language")
    language = language.strip() if language else None
    script = _cell(rec.get("script"), "script")
    script = script.strip().capitalize() if script else _script(raw_stem, texts, language)
    explanation = _cell(rec.get("explanation"), "explanation")
    subject = _cell(rec.get("subject"), "subject")
    context = _cell(rec.get("context"), "the passage") if "context" in rec else None
    original = rec.pop("_source", None)
    source = original if isinstance(original, dict) else {k: _jsonable(v) for k, v in rec.items()}
    q = Question(
        benchmark=benchmark, question_id=qid, stem=nfc(raw_stem).strip(), options=options, answer_key=key,
        subject=nfc(subject).strip() if subject else None, language=language, script=script,
        explanation=nfc(explanation) if explanation else None, raw_text=raw_stem, source_record=source,
        context=nfc(context).strip() if context else None, origin=(rule.name, position),
    )
    q.option_scripts = option_scripts(script, [o.text for o in options], language)
    if not option_cols and "options" not in rec:
        q.raw_text = raw_stem_text
        q.structure_suspect, q.structure_reason = suspect is not None, suspect
    if raw_stem != unicodedata.normalize("NFC", raw_stem):
        q.flags.append("normalized_nfc")
    if is_set:
        q.flags.append(MULTI_FLAG)
    return _Row(q, index)


def _script(stem: str, texts: list[str], language: str | None) -> str | None:
    """The script of the stem's letters when it has any (the options may be
    numbers, names or formulas in another script: 381 CMMLU items with Latin
    formulas as options were ``Latn``), else of the options."""
    if has_letters(stem):
        return script_of(stem, language)
    return script_of(stem + " " + " ".join(texts), language)


def _jsonable(v):
    if hasattr(v, "tolist") and not isinstance(v, str):
        return v.tolist()
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return str(v)
    if isinstance(v, (str, int, float, bool, list, dict)) or v is None:
        return v
    return str(v)


def read_question_file(path, mapping: dict[str, str] | None = None):
    """The file as a DataFrame (columns as named by the importer, ``_line``,
    and ``_source`` = each original record when a mapping is applied)."""
    p = as_source(path)
    df = read_table(p if p.in_archive else p.path)
    if mapping:
        originals = [{k: _jsonable(v) for k, v in r.items() if k != "_line"} for r in df.to_dict("records")]
        df = apply_mapping(df, mapping, str(p))
        df["_source"] = originals
    return df


def _question_chunks(p: Source, mapping: dict[str, str] | None, constants: dict[str, str] | None = None,
                     missing: dict[str, list[str]] | None = None, *, names: list[str] | None = None,
                     notes: list[str] | None = None) -> Iterator["pd.DataFrame"]:
    """:func:`read_question_file` in chunks (CSV streamed by DuckDB), with
    ``_row`` (the record's number in the file, from 0) and the *constants*
    as columns.  With *missing* (a folder), a mapped field absent from this
    file is recorded there instead of refused.  *names*: the columns of a
    CSV without a header row; *notes* collects what the reader says about
    the file's layout."""
    row = 0
    for df in _table_chunks(p, names=names, notes=notes):
        df["_row"] = range(row, row + len(df))
        row += len(df)
        if mapping or names:
            originals = [{k: _jsonable(v) for k, v in r.items() if k not in ("_line", "_row")}
                         for r in df.to_dict("records")]
        if mapping:
            if missing is not None:
                absent = [s for s in mapping if not _has_source(df, s)]
                for s in absent:
                    missing.setdefault(s, []).append(p.name)
                use = {s: t for s, t in mapping.items() if s not in absent}
            else:
                use = mapping
            df = apply_mapping(df, use, str(p)) if use else df
        if mapping or names:
            df["_source"] = originals
        for k, v in (constants or {}).items():
            if k in df.columns:
                raise InputError(f"--set {k}=…: the file already has a field '{k}' (map it away or drop the --set)",
                                 path=str(p))
            df[k] = v
        yield df


def _table_chunks(src, chunk_rows: int = 20_000, *, names: list[str] | None = None,
                  notes: list[str] | None = None) -> Iterator["pd.DataFrame"]:
    """:func:`audit._util.files.iter_table`, with a Parquet file of more than
    *chunk_rows* rows also read in record batches (a million questions never
    sit in memory as one DataFrame); ``_line`` is the row number from 1, as
    :func:`audit._util.files.read_table` gives it.

    >>> import tempfile, pathlib, pandas as pd
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "q.parquet"
    >>> pd.DataFrame({"id": ["a", "b", "c"], "answer": ["A", "B", "A"]}).to_parquet(f)
    >>> [(list(d["id"]), list(d["_line"])) for d in _table_chunks(f, chunk_rows=2)]
    [(['a', 'b'], [1, 2]), (['c'], [3])]
    """
    src = as_source(src)
    if src.in_archive or src.suffix != ".parquet":
        yield from iter_table(src if src.in_archive else src.path, names=names, notes=notes)
        return
    p = src.path
    check_input_file(p)
    try:
        pf = pq.ParquetFile(p)
        n_rows = pf.metadata.num_rows
    except Exception as exc:  # pyarrow raises several types
        raise InputError(f"cannot read Parquet: {exc}", path=p) from None
    if n_rows <= chunk_rows:
        yield from iter_table(p)
        return
    meta = pf.schema_arrow.pandas_metadata or {}
    index_cols = {c for c in meta.get("index_columns", []) if isinstance(c, str)}   # a pandas index: not a field
    columns = [c for c in pf.schema_arrow.names if c not in index_cols]
    refuse_reserved(columns, p)
    line = 1
    try:
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=columns):
            df = batch.to_pandas()
            df["_line"] = range(line, line + len(df))
            line += len(df)
            yield df
    except InputError:
        raise
    except Exception as exc:  # a corrupt row group surfaces while reading
        raise InputError(f"cannot read Parquet: {exc}", path=p) from None


def _has_source(df, src: str) -> bool:
    src = resolve(df.columns, src)
    if "+" in src and src not in df.columns:
        return all(_has_source(df, x.strip()) for x in src.split("+"))
    if src in df.columns:
        return True
    head = src.split(".")[0]
    if "." not in src or head not in df.columns:
        return False
    return any(get_path(r, src.split(".", 1)[1]) is not _MISSING for r in df[head] if isinstance(r, dict))


QUESTION_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")


def question_files(path: Path) -> list[Source]:
    """The question files of a folder (known suffixes, recursively, sorted;
    archives opened into their members), of an archive, or ``[path]`` for a file."""
    files = sources(path, QUESTION_SUFFIXES)
    if not files and path.is_dir():
        raise InputError("no question file (.csv, .jsonl, .json, .parquet) in this folder", path=path)
    if not files:
        raise InputError("no question file (.csv, .jsonl, .json, .parquet) in this archive", path=path)
    return files


def import_questions(
    path: str | os.PathLike,
    *,
    benchmark: str,
    db: DbPath = None,
    mapping: dict[str, str] | None = None,
    dry_run: bool = False,
    replace: bool = False,
    key_base: int | None = None,
    id_template: str | None = None,
    constants: dict[str, str] | None = None,
    layouts: dict | None = None,
    files: list[Source] | None = None,
    repeated_ids: str = "refuse",
    actor=None,
) -> QuestionImportSummary:
    """Import a question file, or a folder (or archive) of them, into
    ``benchmark`` (created when new).  All-or-nothing, in one transaction.
    The whole input is parsed and checked first (a CSV streamed in chunks,
    each staged in a Parquet file in the temporary folder, see
    :class:`~audit.ingest.storing.QuestionStage`); only then is the database
    opened, for one bulk insert — so a bad row leaves the file untouched and
    a million questions stay well under 1 GB of memory.

    **Never a silent overwrite**: an id already stored with the same content
    is left as it is (re-importing a file is a no-op that says so); an id
    stored with different content refuses the import, naming the ids and
    what changed, unless ``replace`` (then the summary lists the replaced
    items, and those that had predictions or verdicts).

    **Ids never move**: an item's id depends on its own file and record
    alone, never on the other files of the folder, nor on whether the file
    or its folder is imported: the ``id`` field, as given; without one,
    ``<file>/<row>`` (the file's name without its suffix, the record's
    position from 0); an index column (CMMLU's unnamed first column:
    *layouts* says so) ``<file>/<value>``; ``id_template`` builds them
    (``"{file}/{row}"``, ``"{path}/{row}"``, ``"{subject}-{id}"``).  Two
    files giving the same id are refused (nothing is renamed), and so is an
    import that would store an item already stored under another id
    (:func:`~audit.ingest.storing.refuse_moved_ids`).  An id field that
    repeats within a file is refused, or with ``repeated_ids="by_row"``
    (``import auto``) that file's items get ``<file>/<row>``, with a note.
    A folder's items without a ``subject`` take their file's name.

    **Keys**: letters (any case, full-width), Tibetan letters, the file's
    own option labels, option texts (also a number that is exactly one
    option's text), and option numbers counting from ``key_base`` —
    inferred when the data leaves no doubt (a 0 → from 0; a number equal to
    the item's count of options and no 0 → from 1), otherwise refused with
    a message naming ``--key-base``.

    ``mapping`` renames fields first (see :func:`audit.ingest.mapping.parse_map`);
    *layouts* (from :func:`audit.ingest.detect`) gives each file its own
    (mapping, header-less columns, index ids, a second language's columns)
    and *files* the files to read; ``constants`` adds a field with one value
    for every record (``{"language": "kk"}``); ``dry_run`` parses and checks
    everything against the database (read-only), writes nothing and returns
    the first items as they would be stored in ``preview``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.csv").write_text("id,question,A,B,C,answer\\nq1,2+2?,3,4,5,B\\nq2,1+1?,2,3,4,G\\n")
    >>> s = import_questions(d / "q.csv", benchmark="toy", db=d / "x.duckdb")
    >>> (s.questions, s.key_not_in_options)
    (2, 1)
    >>> str(import_questions(d / "q.csv", benchmark="toy", db=d / "x.duckdb")).split(";")[0]
    "nothing to import into 'toy': all 2 questions are already stored with this content"
    >>> _ = (d / "c.json").write_text('[{"id": "m1", "q": "?", "option": ["x", "y", "z"], "answer": "A C"}]')
    >>> s = import_questions(d / "c.json", benchmark="toy", mapping={"q": "question", "option": "options"},
    ...                      dry_run=True)
    >>> s.preview[0]["answer_key"], s.preview[0]["answer_key_display"], s.preview[0]["flags"]
    ('AC', '{A, C}', ['multi_answer'])
    """
    if not benchmark or not str(benchmark).strip():
        raise InputError("a benchmark name is required (--benchmark)")
    if key_base is not None and key_base not in (0, 1):
        raise InputError(f"--key-base is 0 or 1, not {key_base}")
    if id_template is not None:
        check_id_template(id_template)
    bad_set = sorted(RESERVED_FIELDS.intersection(constants or {}))
    if bad_set:
        raise InputError(f"--set {bad_set[0]}=…: '{bad_set[0]}' is the importer's own bookkeeping, not a field")
    p = Path(path)
    if not p.exists():
        raise InputError("file or folder not found", path=p)
    files = list(files) if files is not None else question_files(p)
    many = len(files) > 1 or p.is_dir()
    by_row: set[str] = set()                 # files whose repeating id field gives way to <file>/<row>
    while True:
        try:
            return _import(p, files, benchmark, db, mapping, dry_run, replace, key_base, id_template, constants,
                           layouts or {}, many, repeated_ids, by_row, actor)
        except _IdsRepeatIn as exc:
            by_row.add(exc.file)


class _IdsRepeatIn(Exception):
    def __init__(self, file: str):
        super().__init__(file)
        self.file = file


def _import(p: Path, files: list[Source], benchmark, db: DbPath, mapping, dry_run, replace, key_base, id_template,
            constants, layouts: dict, many: bool, repeated_ids: str, by_row: set[str],
            actor=None) -> QuestionImportSummary:
    state = _Counts()
    missing: dict[str, list[str]] = {}
    owner: dict[str, str] = {}     # id → the file that gave it (a folder: two files may not give one id)
    rules = {str(f): _rule(f, p, layouts.get(str(f)), repeated_ids, str(f) in by_row) for f in files}
    for f in files:
        if str(f) in by_row:
            state.notes.append(_by_row_note(f, p, many))

    def parsed() -> Iterator[list[Question]]:
        for f in files:
            lay = layouts.get(str(f))
            use = (lay.mapping if lay is not None else mapping) or None
            rule = rules[str(f)]
            try:
                for qs in _file_questions(f, benchmark, use, constants, key_base, id_template,
                                          missing if many else None, state, rule, getattr(lay, "names", None)):
                    for q in qs:
                        if many and q.subject is None:
                            q.subject = f.stem
                        if many:
                            other = owner.setdefault(q.question_id, f.relative(p) if p.is_dir() else f.name)
                            if other != (f.relative(p) if p.is_dir() else f.name):
                                raise _collision(p, other, f, q.question_id, id_template)
                    yield qs
                    del qs
            except _IdsRepeat:
                raise _IdsRepeatIn(str(f)) from None
        if many and mapping:
            everywhere_absent = [s for s in mapping if len(missing.get(s, [])) == len(files)]
            if everywhere_absent:
                raise InputError(f"mapped field '{everywhere_absent[0]}' is in none of the folder's files", path=p)

    def consume(stage: QuestionStage | None) -> None:
        for questions in parsed():
            if stage is not None:
                stage.add(benchmark, questions)
            state.count(questions)
            del questions   # not alive while the next chunk is parsed (half the objects for the GC to scan)

    with QuestionStage() as stage:
        consume(stage)
        if dry_run:
            # every check of the real import, against the database opened read-only
            report = StoreReport(new=state.n)
            if resolve_db_path(db).exists():
                with connect(db, read_only=True) as con:
                    if table_exists(con, "questions"):
                        report = stage.compare(con, benchmark, replace=replace, source_path=str(p))
        else:
            # All-or-nothing: one transaction, one bulk insert from the stage.
            try:
                with connect(db) as con, transaction(con):
                    require_role(con, actor, "lead", "importing questions")
                    report = stage.store(con, benchmark, "questions", source_path=str(p), replace=replace)
                    if state.parallel:
                        _store_parallel(con, benchmark, state.parallel)
            except duckdb.Error as exc:   # a constraint the checks above did not foresee: one line, not a traceback
                raise InputError(f"could not store the questions: {str(exc).splitlines()[0]}", path=p) from None
    s = QuestionImportSummary(
        benchmark=benchmark, path=str(p), questions=state.n, key_not_in_options=state.key_not_in_options,
        flagged=state.flagged, scripts=state.scripts, multi_answer=state.multi, dry_run=dry_run,
        preview=state.preview)
    s.report = report
    s.files = len(files)
    s.id_rule = _id_rule(files, rules, id_template, state, p)
    s.missing_fields = dict(missing)
    s.key_base = state.key_base or (f"option numbers counted from {key_base}" if key_base is not None else "")
    s.with_context = state.with_context
    s.parallel = len(state.parallel)
    s.notes = list(dict.fromkeys(state.notes))
    return s


def _rule(f: Source, root: Path, lay, repeated_ids: str, by_row: bool) -> _FileRule:
    rel = f.relative(root) if root.is_dir() else (f"{f.path.name}/{f.member}" if f.in_archive else f.name)
    return _FileRule(stem=f.stem, name=f"{f.path.name}/{f.member}" if f.in_archive else f.name,
                     path=str(Path(rel).with_suffix("")), index_id=bool(getattr(lay, "index_id", False)),
                     by_row=by_row, repeated_ids=repeated_ids, parallel=getattr(lay, "parallel", None))


def _collision(root: Path, first: str, f: Source, qid: str, id_template: str | None) -> InputError:
    other = f.relative(root) if root.is_dir() else f.name
    advice = ("build distinct ids with --id '{path}/{row}', or import each folder as its own benchmark"
              if Path(first).stem == f.stem else "build distinct ids with --id (e.g. '{file}/{id}' or '{file}/{row}')")
    if id_template is not None:
        advice = "add {file} or {path} to the --id template"
    return InputError(f"the ids of {first} and {other} collide ('{qid}'); nothing was written ({advice})", path=root)


def _by_row_note(f: Source, root: Path, many: bool) -> str:
    name = f.relative(root) if root.is_dir() else f.name
    return (f"ids: the field 'id' repeats within {name}: each item's id is <file>/<row>; the field is kept in each "
            "source record")


def _id_rule(files: list[Source], rules: dict, id_template: str | None, state: "_Counts", root: Path) -> str:
    if id_template is not None:
        return f"the template '{id_template}'"
    if state.id_fields and all(state.id_fields.values()) and not any(r.by_row or r.index_id for r in rules.values()):
        return "the 'id' field"
    positional = [f for f in files if not state.id_fields.get(str(f)) and not rules[str(f)].by_row]
    repeating = [f for f in files if rules[str(f)].by_row]
    indexed = [f for f in files if rules[str(f)].index_id and state.id_fields.get(str(f))]
    parts = []
    if positional:
        names = ", ".join(f.name for f in positional[:3]) + (" …" if len(positional) > 3 else "")
        parts.append(f"<file>/<row> ({names}: no id field of its own)")
    if repeating:
        names = ", ".join(f.name for f in repeating[:3]) + (" …" if len(repeating) > 3 else "")
        parts.append(f"<file>/<row> ({names}: the id field repeats)")
    if indexed:
        parts.append("<file>/<index> (" + ", ".join(f.name for f in indexed[:3]) + ")")
    rest = len(files) - len(positional) - len(repeating) - len(indexed)
    if rest > 0:
        parts.append(f"the 'id' field ({rest} file{'s' if rest != 1 else ''})")
    return "; ".join(parts)


def _store_parallel(con, benchmark: str, links: list[dict]) -> None:
    """The second language of each item (the same row's other columns) as its parallel version."""
    import pyarrow as pa

    table = pa.table({k: [x[k] for x in links] for k in links[0]}).cast(pa.schema([
        ("question_id", pa.string()), ("counterpart_source", pa.string()), ("counterpart_id", pa.string()),
        ("counterpart_language", pa.string()), ("counterpart_stem", pa.string()),
        ("counterpart_options", pa.list_(pa.struct([("label", pa.string()), ("text", pa.string())]))),
        ("counterpart_key", pa.string()), ("key_match", pa.bool_())]))
    con.register("_incoming_parallel", table)
    try:
        con.execute("DELETE FROM parallel_links WHERE benchmark = ? AND (question_id, counterpart_source) IN "
                    "(SELECT (question_id, counterpart_source) FROM _incoming_parallel)", [benchmark])
        con.execute("INSERT INTO parallel_links SELECT ?, question_id, counterpart_source, counterpart_id, "
                    "counterpart_language, counterpart_stem, counterpart_options, counterpart_key, key_match "
                    "FROM _incoming_parallel", [benchmark])
    finally:
        unregister(con, "_incoming_parallel")


@dataclass
class _Counts:
    n: int = 0
    key_not_in_options: int = 0
    flagged: int = 0
    multi: int = 0
    with_context: int = 0
    scripts: dict[str, int] = field(default_factory=dict)
    preview: list[dict] = field(default_factory=list)
    key_base: str = ""
    notes: list[str] = field(default_factory=list)
    id_fields: dict[str, bool] = field(default_factory=dict)   # file → whether it has an id field
    parallel: list[dict] = field(default_factory=list)

    def count(self, questions: list[Question]) -> None:
        for q in questions:
            f = item_flags(q)
            self.key_not_in_options += "key_not_in_options" in f
            self.flagged += bool(f)
            self.multi += MULTI_FLAG in f
            self.with_context += q.context is not None
            self.scripts[q.script or "unknown"] = self.scripts.get(q.script or "unknown", 0) + 1
            if len(self.preview) < PREVIEW_ITEMS:
                self.preview.append({
                    "question_id": q.question_id, "stem": q.stem, "context": q.context,
                    "options": [{"label": o.label, "text": o.text} for o in q.options],
                    "answer_key": q.answer_key, "answer_key_display": display_key(q.answer_key, f),
                    "subject": q.subject, "language": q.language, "script": q.script,
                    "explanation": q.explanation, "flags": f})
        self.n += len(questions)


def _file_questions(f: Source, benchmark: str, mapping, constants, key_base, id_template,
                    missing, state: "_Counts", rule: _FileRule, names: list[str] | None = None
                    ) -> Iterator[list[Question]]:
    """The questions of one file, chunk by chunk.  Option numbers as keys:
    the base is decided on the first chunk that has any (the whole first
    chunk, 20,000 rows, is the evidence), and then holds for the file."""
    seen: dict[str, int] = {}
    base = key_base
    decided = key_base is not None
    notes: list[str] = []
    for df in _question_chunks(f, mapping, constants, missing, names=names, notes=notes):
        state.id_fields.setdefault(str(f), "id" in df.columns)
        rows = _parse_rows(df, f, benchmark, seen, id_template=id_template, rule=rule)
        indexes = [(r.index, len(r.question.options)) for r in rows if r.index is not None]
        if indexes and not decided:
            base = decide_key_base(indexes)
            decided = base is not None or any(i <= n for i, n in indexes)
            if base is not None:
                state.key_base = (f"option numbers counted from {base} (inferred: "
                                  + ("a 0 occurs)" if base == 0 else "a number equals the count of options, no 0)"))
        questions = _finish(rows, base, f)
        if rule.parallel is not None:
            state.parallel.extend(_parallel_link(q, rule, f) for q in questions)
        yield questions
        del rows, df, questions     # not alive while the next chunk is parsed (the GC would scan them again)
    state.notes.extend(f"{f.name}: {n}" for n in notes)


def _parallel_link(q: Question, rule: _FileRule, f: Source) -> dict:
    """The same row's other language, as the item's parallel version."""
    par = rule.parallel or {}
    rec = q.source_record or {}
    texts = [str(rec.get(c) if rec.get(c) is not None else "") for c in par.get("options", [])]
    while texts and not texts[-1].strip():
        texts.pop()
    return {"question_id": q.question_id, "counterpart_source": f"{par.get('stem')} ({f.stem})",
            "counterpart_id": f"{f.name}:{q.origin[1] if q.origin else ''}",
            "counterpart_language": par.get("language"),
            "counterpart_stem": nfc(str(rec.get(par.get("stem")) or "")).strip(),
            "counterpart_options": [{"label": LATIN_LABELS[i], "text": nfc(t).strip()} for i, t in enumerate(texts)],
            "counterpart_key": q.answer_key, "key_match": True}
