"""``audit import auto``: recognise an unknown file or folder, say what it
is, then import it with the matching importer.

:func:`detect` only looks (first record, header or schema; never the whole
file) and returns a :class:`Detection`: the format, why it was chosen, and
the importer's name.  :func:`import_auto` runs the importer.  Recognised:

============  ==============================================================
format        evidence
============  ==============================================================
lm-eval       ``samples_*.jsonl`` (file or in the folder tree)
inspect       ``.eval`` log, or JSON with ``eval`` and ``samples``
helm          JSON with ``request_states`` and ``adapter_spec``
tlue          JSON(L) records with ``loc`` and ``polished_ti_content``
seed          JSON(L) records with ``loc`` and ``extracted_answer``
mmlu-redux    CSV with ``groundtruth_answer`` and ``error_type``
predictions   ``question_id`` with ``model`` and ``response``/``answer``
              (long), or ``question_id`` plus other columns (wide)
questions     ``id``, ``question`` and ``answer`` (after any ``--map``), or a
              published layout (stem, options and key under their usual
              names; a CSV without a header row in the MMLU order)
results       ``question_id``, ``question``, ``options``, ``answer`` and a
              model's reply (MMLU-Pro's per-model result files)
judge-        ``question``, ``choices``, ``model_answer``,
detectors     ``predicted_error_type`` (MMLU-Redux detectors; audit.judge)
judge-        ``question_id``, ``judge``, ``key_correct`` (audit.judge)
verdicts
============  ==============================================================
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from audit._util.archives import Source, as_source, is_archive, sources
from audit._util.files import check_utf8, json_lines, one_line
from audit.errors import InputError
from audit.ingest._questions import _numbered_option_columns
from audit.ingest.formats import parse_tlue_item
from audit.scripts import script_of

FORMATS = ("lm-eval", "inspect", "helm", "tlue", "seed", "mmlu-redux", "predictions-long", "predictions-wide",
           "questions", "results", "outputs", "judge-detectors", "judge-verdicts")


@dataclass
class Detection:
    """What :func:`detect` found."""

    format: str
    reason: str
    files: list[str] = field(default_factory=list)
    #: fields renamed (or dropped, target ``""``) to read a published layout
    mapping: dict[str, str] = field(default_factory=dict)
    #: the choices made, in words (id rule, key base, fields mapped)
    choices: list[str] = field(default_factory=list)
    #: the files (or archive members) to import
    sources: list[Source] = field(default_factory=list)
    #: question files: how each is read, by ``str(source)``
    layouts: dict[str, "FileLayout"] = field(default_factory=dict)
    #: files of a folder or archive left out, one line each
    skipped: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        n = len(self.files)
        s = f"found: {self.format} ({self.reason}; {n} file{'s' if n != 1 else ''})"
        if self.choices:
            s += "\n  " + "\n  ".join(self.choices)
        return s


_HEAD_BYTES = 1 << 20
_HEAD_RECORDS = 200


def _head_text(src: Source) -> tuple[str, bool]:
    """The first MiB of *src* as text, and whether that is the whole file.  A
    byte that is not UTF-8 is an error naming its line (never echoed)."""
    data = src.head(_HEAD_BYTES + 1)
    complete = len(data) <= _HEAD_BYTES
    data = data[:_HEAD_BYTES]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and not complete and exc.start >= len(data) - 4:
            text = data[:exc.start].decode("utf-8")      # a character cut by the window
        else:
            raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the file "
                             "as UTF-8", path=str(src), line=data[:exc.start].count(b"\n") + 1) from None
    return text.lstrip("\ufeff"), complete


def _json_head(text: str, complete: bool) -> tuple[list[dict], list[str]]:
    """Up to 200 records at the start of JSON *text* (a JSONL file, an array,
    or an object wrapping the array), read as far as the window goes, and
    notes on the layout (the wrapper, strings between records)."""
    body = text.lstrip(" \t\r\n")
    dec = json.JSONDecoder()
    if body.startswith("["):
        return _array_head(body, 0), []
    if not body.startswith("{"):
        return [], []
    records: list[dict] = []
    for line in json_lines(body):
        if not line.strip():
            continue
        try:
            obj = dec.decode(line)
        except (json.JSONDecodeError, RecursionError):
            break
        if isinstance(obj, dict):
            records.append(obj)
        if len(records) >= _HEAD_RECORDS:
            break
    if len(records) > 1 or (records and not body.rstrip().endswith("}")):
        return records, []
    # one object: a record (one line), or an object wrapping the records (pretty-printed or one line)
    field_, at, others = _wrapper_head(body, dec)
    if field_ is not None:
        note = f"records: the list in the field '{field_}' of the top-level object"
        return _array_head(body, at), [note + (f" (other fields: {', '.join(others)})" if others else "")]
    return records, []


def _array_head(text: str, at: int) -> list[dict]:
    """The objects of the array starting at *at*, as far as they can be read."""
    dec = json.JSONDecoder()
    out: list[dict] = []
    i, n = at + 1, len(text)
    while i < n and len(out) < _HEAD_RECORDS:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] == "]":
            break
        try:
            obj, i = dec.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):
            break
        if isinstance(obj, dict):
            out.append(obj)
    return out


def _wrapper_head(text: str, dec: json.JSONDecoder) -> tuple[str | None, int, list[str]]:
    """(field, offset of its '[', the other fields read before it) when *text*
    is an object whose first list-valued field holds objects and whose other
    fields are plain values; (None, 0, []) otherwise."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # in json.decoder, not in its stub

    i, n = 1, len(text)
    others: list[str] = []
    while i < n:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or text[i] != '"':
            return None, 0, []
        try:
            key, i = scanstring(text, i + 1)
        except (json.JSONDecodeError, ValueError):
            return None, 0, []
        while i < n and text[i] in " \t\r\n:":
            i += 1
        if i < n and text[i] == "[":
            head = _array_head(text, i)
            return (key, i, others) if head else (None, 0, [])
        try:
            value, i = dec.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):
            return None, 0, []
        if isinstance(value, (dict, list)):
            return None, 0, []
        others.append(key)
    return None, 0, []


def _csv_head(text: str, complete: bool, sep: str) -> list[list[str]]:
    """The first rows of CSV *text* (201 at most; a row cut by the window left out)."""
    rows: list[list[str]] = []
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=sep):
            rows.append(row)
            if len(rows) > _HEAD_RECORDS:
                break
    except csv.Error:
        pass
    if not complete and len(rows) <= _HEAD_RECORDS and len(rows) > 1:
        rows.pop()
    return rows


@dataclass
class _Head:
    """What the start of a file shows: its field names, its first records
    (dicts) and, for CSV, its first rows as read (header included)."""

    cols: list[str]
    records: list[dict]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _head(src: Source) -> _Head:
    suffix = src.suffix
    if suffix == ".parquet":
        try:
            pf = pq.ParquetFile(io.BytesIO(src.read_bytes()) if src.in_archive else src.path)
            cols = list(pf.schema_arrow.names)
            first = next(pf.iter_batches(batch_size=_HEAD_RECORDS), None)
            return _Head(cols, first.to_pylist() if first is not None else [])
        except Exception:
            return _Head([], [])
    text, complete = _head_text(src)
    if suffix in (".csv", ".tsv"):
        rows = _csv_head(text, complete, "\t" if suffix == ".tsv" else ",")
        # blank names as csv_header names them
        header = [c if c.strip() else f"Unnamed: {i}" for i, c in enumerate(rows[0])] if rows else []
        return _Head(header, [dict(zip(header, r)) for r in rows[1:]], rows)
    records, notes = _json_head(text, complete)
    if not records and not text.lstrip(" \t\r\n").startswith(("[", "{")):
        return _Head([], [])
    if not records and src.suffix == ".json":   # one large object cut by the window: look at its keys
        keys = {k for k in ("request_states", "adapter_spec", "samples", "eval") if f'"{k}"' in text}
        return _Head(sorted(keys), [{k: None for k in keys}] if keys else [])
    return _Head(list(records[0]) if records else [], records, notes=notes)


def _first_record(p) -> dict | None:
    """The first JSON object of a JSONL file or JSON array/object file."""
    h = _head(as_source(p))
    return h.records[0] if h.records else None


def _columns(p) -> list[str]:
    return _head(as_source(p)).cols


_ID_NAMES = ("id", "qid", "uid", "idx", "item_id", "question_id", "unnamed: 0")
_INDEX_NAMES = ("unnamed: 0", "idx", "index", "")
_STEM_NAMES = ("question", "query", "stem", "ctx")
_OPTION_NAMES = ("options", "choices", "option", "endings", "candidates")
_ANSWER_NAMES = ("answer", "answerkey", "answer_key", "gold", "label", "correct", "correct_answer", "target",
                 "answer_idx", "answer_index")
_CONTEXT_NAMES = ("context", "passage", "paragraph", "article", "background", "reading", "reading_passage",
                  "material", "dialogue", "dialog", "story", "support")
_SUBJECT_NAMES = ("subject", "category")
_KEEP = ("subject", "language", "script", "explanation")
_EXPLANATION_NAMES = ("explanation", "analysis", "rationale")
_LETTERS = tuple("ABCDEFGHIJ")
_PARALLEL_SUFFIXES = re.compile(r"^(?:\.\d+|[ _-]?\(?[A-Za-z]{2,3}\)?|_\d+)$")


@dataclass
class FileLayout:
    """How one file of a folder (or archive) is read: its field mapping
    (the user's ``--map`` first, then what was recognised), the column names
    of a CSV without a header row, whether its id field is a row index, the
    columns of a second language in the same row, and the choices in words."""

    mapping: dict[str, str] = field(default_factory=dict)
    names: list[str] | None = None
    index_id: bool = False
    parallel: dict | None = None    # {"suffix", "stem", "options": [...], "script"}
    notes: list[str] = field(default_factory=list)


def _filled(v) -> bool:
    if v is None or (isinstance(v, float) and v != v):
        return False
    if isinstance(v, str):
        return bool(v.strip())
    if isinstance(v, (list, dict)):
        return bool(v)
    return True


def question_layout(cols: list[str], first: "dict | list[dict] | None") -> tuple[dict[str, str], list[str]] | None:
    """How a published question layout maps onto the importer's fields: the
    mapping (renames; other fields dropped, kept in ``source_record``) and
    the choices in words; None when no stem, options and answer are found.
    *first*: the first record, or the first records (to see which of several
    key fields is filled).

    >>> question_layout(["", "Question", "A", "B", "C", "D", "Answer"][1:] + ["Unnamed: 0"], None)[0]
    {'Question': 'question', 'Answer': 'answer', 'Unnamed: 0': 'id'}
    >>> question_layout(["id", "question", "answerKey"],
    ...                 {"question": {"stem": "?", "choices": [{"text": "x", "label": "1"}]}})[0]
    {'question.stem': 'question', 'question.choices': 'options', 'answerKey': 'answer'}
    >>> question_layout(["query", "option", "gold", "metadata"], {"metadata": {"subject": "law", "src": "x"}})[0]
    {'query': 'question', 'option': 'options', 'gold': 'answer', 'metadata.subject': 'subject'}
    >>> question_layout(["passage", "question", "options", "label", "answer"],
    ...                 [{"passage": "p", "label": "A", "answer": None}])[0]
    {'label': 'answer', 'answer': '', 'passage': 'context'}
    """
    lay = file_layout(cols, [first] if isinstance(first, dict) else list(first or []))
    return (lay.mapping, lay.notes) if lay is not None else None


def file_layout(cols: list[str], records: list[dict], user: dict[str, str] | None = None) -> FileLayout | None:
    """The layout of a question file with fields *cols* and first *records*:
    the user's mapping *user* first, then the fields it leaves recognised by
    their usual names; None when no stem, options and key are found."""
    user = dict(user or {})
    # a field the user names is taken from recognition; a nested path (`info.language`) takes only
    # itself, so the other fields of its object (`info.subject`) are still recognised
    parts = [p.strip() for s in user for p in s.split("+")]
    nested_paths = {p for p in parts if p not in cols and "." in p and p.split(".")[0] in cols}
    consumed = set(user) | set(parts) | {p.split(".")[0] for p in parts if p not in nested_paths}
    produced = {t for t in user.values() if t}
    rest = [c for c in cols if c not in consumed and c.strip() not in consumed]
    low: dict[str, str] = {}
    for c in rest:
        low.setdefault(c.lower().strip(), c)
    for t in produced:
        low.setdefault(t, t)
    mapping: dict[str, str] = {}
    notes: list[str] = []
    first = records[0] if records else None

    def find(names: tuple[str, ...]) -> str | None:
        return next((low[n] for n in names if n in low), None)

    def taken(target: str) -> bool:
        return target in produced or target in mapping.values()

    stem = "question" if "question" in produced else find(_STEM_NAMES)
    nested = first.get(stem) if first and stem and stem not in produced else None
    if isinstance(nested, dict) and "stem" in nested:       # ARC: question: {stem, choices: [{text, label}]}
        mapping[f"{stem}.stem"] = "question"
        if "choices" in nested and f"{stem}.choices" not in user:
            mapping[f"{stem}.choices"] = "options"
    elif stem:
        if stem != "question" and stem not in produced:
            mapping[stem] = "question"
    else:
        return None
    letters = [x for x in _LETTERS if x in rest or x in produced]
    if not taken("options") and "options" not in mapping.values():
        if len(letters) >= 2 or _numbered_option_columns(rest):
            pass                                                  # columns A–J or option_1 … option_N
        else:
            opt = find(_OPTION_NAMES)
            if not opt:
                if not _embedded(records, stem):
                    return None
                notes.append("options: read from the question text (its lines 'A. …', 'B. …')")
            elif opt != "options" and opt not in produced:
                mapping[opt] = "options"
    if not taken("answer"):
        present = [low[n] for n in _ANSWER_NAMES if n in low]
        if not present:
            return None
        counts = {c: sum(_filled(r.get(c)) for r in records) for c in present}
        ans = next((c for c in present if records and counts[c] * 2 >= len(records) and counts[c]), present[0])
        if ans != "answer":
            mapping[ans] = "answer"
        for other in present:
            if other != ans and other in rest:
                mapping[other] = ""
                if records and not counts[other]:
                    notes.append(f"key: the field '{ans}' (the field '{other}' is empty in every record read)")
    if not taken("id"):
        qid = find(_ID_NAMES)
        if qid and qid != "id":
            mapping[qid] = "id"
    else:
        qid = "id"
    if not taken("context"):
        ctx = find(_CONTEXT_NAMES)
        if ctx and ctx != "context":
            mapping[ctx] = "context"
    for name in _KEEP:
        if taken(name):
            continue
        names = {"subject": _SUBJECT_NAMES, "explanation": _EXPLANATION_NAMES}.get(name, (name,))
        hit = find(names)
        if hit is not None and hit != name and name not in mapping.values() and hit not in mapping:
            mapping[hit] = name
        elif hit is None and first:       # nested: metadata.subject
            parent = next((k for k, v in first.items() if isinstance(v, dict) and name in v and k in rest
                           and f"{k}.{name}" not in user and not isinstance(v[name], (dict, list))), None)
            if parent is not None and name not in mapping.values():
                mapping[f"{parent}.{name}"] = name
    used = {k.split(".")[0] for k in (*mapping, *nested_paths)}
    used |= {"question", "answer", "options", "id", "context", *_KEEP, *letters}
    used |= set(_numbered_option_columns(rest))
    dropped = [c for c in rest if c not in used]
    for c in dropped:
        mapping[c] = ""
    lay = FileLayout(mapping={**user, **mapping}, notes=notes)
    renames = [f"{_shown(k) if k in cols else k} → {v}" + (" (--map)" if k in user else "")
               for k, v in lay.mapping.items() if v]
    if renames:
        notes.insert(0, "fields read as: " + ", ".join(renames))
    gone = [c for c in dropped] + [k for k, v in mapping.items() if v == "" and k not in dropped]
    if gone:
        notes.append("kept only in each item's source record: " + ", ".join(_shown(c) for c in gone))
    id_field = qid if qid and qid in (set(rest) | produced) else None
    if id_field is not None and id_field.lower().strip() in _INDEX_NAMES:
        lay.index_id = True
        notes.append(f"ids: <file>/<value of '{_shown(id_field)}'> (the field numbers the records of each file)")
    elif id_field is not None:
        notes.append(f"ids: the field '{_shown(id_field)}'")
    else:
        notes.append("ids: <file>/<row> (the record's position in its file, from 0; the file has no id field)")
    return lay


def _embedded(records: list[dict], stem: str) -> bool:
    """Whether the questions of *records* hold their options ("A. …" lines,
    GAOKAO-Bench), read as TLUE's are: in most of them, without doubt."""
    texts = [r.get(stem) for r in records[:50] if isinstance(r.get(stem), str)]
    if not texts:
        return False
    parsed = [parse_tlue_item(t) for t in texts]
    return sum(len(x.options) >= 2 and not x.suspect for x in parsed) >= 0.8 * len(texts)


def _parallel(cols: list[str], records: list[dict], lay: FileLayout) -> None:
    """Two versions of each item in one row (DZEN: Dzongkha ``Question``,
    ``A``–``D`` and English ``Question.1``, ``A.1``–``D.1``): the set whose
    text is not in Latin script is the item (with both or neither, the set
    without the suffix); the other is stored as its parallel version."""
    stem = next((c for c in cols if c.lower().strip() in _STEM_NAMES), None)
    letters = [x for x in _LETTERS if x in cols]
    if stem is None or len(letters) < 2:
        return
    for c in cols:
        suffix = c[len(stem):] if c.startswith(stem) and c != stem else None
        if not suffix or not _PARALLEL_SUFFIXES.match(suffix) or not all(x + suffix in cols for x in letters):
            continue
        sample = " ".join(str(r.get(stem) or "") for r in records[:50])
        other = " ".join(str(r.get(stem + suffix) or "") for r in records[:50])
        base_script, other_script = script_of(sample), script_of(other)
        swap = base_script == "Latn" and other_script not in ("Latn", None)
        item_sfx, par_sfx = (suffix, "") if swap else ("", suffix)
        for x in [stem] + letters:
            lay.mapping.pop(x + par_sfx, None)
            lay.mapping[x + par_sfx] = ""
            if swap:
                lay.mapping.pop(x, None)
                lay.mapping[x + item_sfx] = "question" if x == stem else x
        lay.parallel = {"suffix": par_sfx or suffix, "stem": stem + par_sfx, "options": [x + par_sfx for x in letters],
                        "script": base_script if swap else other_script}
        def shown_set(sfx: str) -> str:
            return f"{_shown(stem + sfx)}, {_shown(letters[0] + sfx)}–{_shown(letters[-1] + sfx)}"

        parallel_cols = {x + par_sfx for x in [stem] + letters}
        kept = [n for n in lay.notes if n.startswith("kept only in each item's source record: ")]
        for n in kept:      # the other language is stored, not only kept in the source record
            rest = [c for c in n.split(": ", 1)[1].split(", ") if c.strip("'") not in parallel_cols]
            kept_line = ("kept only in each item's source record: " + ", ".join(rest)) if rest else ""
            lay.notes[lay.notes.index(n)] = kept_line
        lay.notes[:] = [n for n in lay.notes if n]
        lay.notes.append(f"two versions of each item in one row: {shown_set(item_sfx)} "
                         f"({other_script if swap else base_script}) are the items; {shown_set(par_sfx)} "
                         f"({base_script if swap else other_script}) are stored as their parallel version")
        return


def _headerless(rows: list[list[str]]) -> list[str] | None:
    """Column names for a CSV without a header row in the MMLU order
    (question, A, B, …, answer): no cell of row 1 is a known field name,
    every row read has the same 5–12 cells, and the last cell is a key letter
    within the options in row 1 and in at least 95% of the rows.

    >>> _headerless([["Q?", "1", "2", "3", "4", "B"], ["R?", "a", "b", "c", "d", "D"]])
    ['question', 'A', 'B', 'C', 'D', 'answer']
    >>> _headerless([["question", "A", "B", "C", "D", "answer"], ["R?", "a", "b", "c", "d", "D"]]) is None
    True
    """
    if not rows:
        return None
    n = len(rows[0])
    known = {*_ID_NAMES, *_STEM_NAMES, *_OPTION_NAMES, *_ANSWER_NAMES, *_CONTEXT_NAMES, *_KEEP}
    if not 5 <= n <= 12 or any(c.lower().strip() in known for c in rows[0]) or any(len(r) != n for r in rows):
        return None
    letters = _LETTERS[:n - 2]

    def keyed(r: list[str]) -> bool:
        return r[-1].strip().upper() in letters and len(r[-1].strip()) == 1

    if not keyed(rows[0]) or sum(keyed(r) for r in rows) < 0.95 * len(rows):
        return None
    return ["question", *letters, "answer"]


def _why_not(cols: list[str]) -> str:
    """Why a file with fields *cols* is no question file, in words."""
    low = {c.lower().strip() for c in cols}
    missing = []
    if not low & set(_STEM_NAMES):
        missing.append("no question")
    if not (low & set(_OPTION_NAMES) or {"a", "b"} <= low or _numbered_option_columns(cols)):
        missing.append("no options")
    if not low & set(_ANSWER_NAMES):
        missing.append("no key")
    shown = ", ".join(_shown(c) for c in cols[:8]) + (", …" if len(cols) > 8 else "")
    return f"not a multiple-choice file (fields: {shown}; {' and '.join(missing) or 'no layout recognised'})"


#: Field names of the tool's other files (verdicts, judges, questions): a
#: table holding one is never read as one column per model (a review
#: spreadsheet became predictions of models "reviewer" and "verdict").
NOT_MODEL_COLUMNS = frozenset({"reviewer", "verdict", "corrected_answer", "cause", "rationale", "proposed_fix",
                               "is_adjudication", "judge", "key_correct", "correct_answer", "explanation",
                               "prompt_version", "subject", "options", "answer_key", "stem"})


def _is_outputs(keys: set[str]) -> bool:
    """A self-contained harness output (TUMLU): each record carries its
    question, the choices as shown and the model's raw output."""
    return "question" in keys and "choices" in keys and bool(keys & {"output", "response"}) \
        and "question_id" not in keys


#: Fields holding a model's reply in a published result file (MMLU-Pro).
RESULT_REPLY_FIELDS = ("model_outputs", "generated_text")


def _is_results(keys: set[str]) -> bool:
    """A published result file of one model (MMLU-Pro): each record is an
    item (``question_id``, ``question``, ``options``, ``answer``) with the
    model's reply."""
    return {"question_id", "question", "options", "answer"} <= keys and bool(keys & set(RESULT_REPLY_FIELDS))


def _classify_file(p, mapping: dict[str, str] | None, head: "_Head | None" = None) -> tuple[str, str] | None:
    src = as_source(p)
    name, suffix = src.name, src.suffix
    if suffix == ".eval":
        return "inspect", "an inspect-ai .eval log"
    if name.startswith("samples_") and suffix == ".jsonl":
        if not src.in_archive:
            check_utf8(src.path)
        return "lm-eval", "an lm-evaluation-harness samples log"
    if suffix != ".parquet" and not src.in_archive:
        check_utf8(src.path)     # a binary file is one line naming the byte, never its bytes echoed
    head = head or _head(src)
    cols = head.cols
    keys = set(cols)
    if suffix == ".json" and {"eval", "samples"} <= keys:
        return "inspect", "an inspect-ai JSON log (eval, samples)"
    if {"request_states", "adapter_spec"} <= keys:
        return "helm", "a HELM scenario_state file (adapter_spec, request_states)"
    if {"loc", "polished_ti_content"} <= keys:
        return "tlue", "TLUE items (loc, polished_ti_content)"
    if {"loc", "extracted_answer"} <= keys:
        return "seed", "the pipeline's per-model results (loc, extracted_answer)"
    if {"question", "choices", "model_answer", "predicted_error_type"} <= keys:
        return "judge-detectors", "LLM error-detector verdicts (question, choices, model_answer, predicted_error_type)"
    if {"question_id", "judge", "key_correct"} <= keys:
        return "judge-verdicts", "judge verdicts (question_id, judge, key_correct)"
    if {"groundtruth_answer", "error_type"} <= keys:
        return "mmlu-redux", "MMLU-Redux (groundtruth_answer, error_type)"
    if _is_results(keys) and not mapping:
        return "results", ("a model's published results: its items and its replies (question_id, question, options, "
                           "answer, " + "/".join(sorted(keys & set(RESULT_REPLY_FIELDS))) + ")")
    if mapping:
        keys = {mapping.get(c, c) for c in keys} | {t for s, t in mapping.items() if t}
    if "question_id" in keys and "model" in keys and keys & {"response", "answer"}:
        return "predictions-long", "predictions, one row per question and model (question_id, model, response/answer)"
    if "question_id" in keys and keys & {"response", "answer"} and not (keys - {"question_id", "response", "answer",
                                                                                  "run", "options_shown"}):
        return "predictions-long", ("predictions of one model (question_id, response/answer; the model is "
                                    "--model)")
    if "question_id" in keys and {"reviewer", "verdict"} <= keys:
        raise InputError("expert verdicts (question_id, reviewer, verdict), not predictions: import them with "
                         "'audit review import' (a lead's or admin's act)", path=p)
    if "question_id" in keys and len(keys - {"question_id"}) >= 1 and "question" not in keys \
            and not keys & NOT_MODEL_COLUMNS:
        return "predictions-wide", "predictions, one column per model (question_id + model columns)"
    if {"id", "question", "answer"} <= keys:
        return "questions", "a question file (id, question, answer)"
    if _is_outputs(keys):
        return "outputs", "model outputs that carry their questions (question, choices, output)"
    if suffix in (".csv", ".tsv") and not mapping and _headerless(head.rows):
        return "questions", "a question file without a header row, in the MMLU order"
    if file_layout(cols, head.records, mapping):
        return "questions", "a question file in a published layout"
    return None


def _shown(name: str) -> str:
    """A field name as shown in a one-line message (see ``audit._util.files.one_line``);
    quoted when it holds a dot or white space at an end (``'Answer '``), so
    that it can be written back in ``--map`` as it is.

    >>> _shown("a\\nb  c"), len(_shown("x" * 50)), _shown("Answer "), _shown("A.1")
    ('a b c', 40, "'Answer '", "'A.1'")
    """
    if name != name.strip():
        return "'" + name.replace("\n", " ")[:40] + "'"
    return f"'{one_line(name, 38)}'" if "." in name else one_line(name)


def _layout_of(src: Source, head: _Head, mapping: dict[str, str] | None) -> FileLayout:
    """The layout of one question file (see :class:`FileLayout`)."""
    if src.suffix in (".csv", ".tsv") and not mapping:
        names = _headerless(head.rows)
        if names is not None:
            lay = FileLayout(names=names)
            lay.notes.append("no header row: read as " + ", ".join(names) + " (the MMLU order; row 1 is an item)")
            lay.notes.append("ids: <file>/<row> (the record's position in its file, from 0)")
            return lay
    lay = file_layout(head.cols, head.records, mapping) or FileLayout(mapping=dict(mapping or {}))
    if not mapping:
        _parallel(head.cols, head.records, lay)
    lay.notes[:0] = head.notes
    return lay


def detect(path: str | os.PathLike, mapping: dict[str, str] | None = None) -> Detection:
    """Recognise the format of ``path`` without reading it whole.  A folder
    or an archive is read file by file (member by member): the files of one
    format are imported, each question file with its own layout; files that
    are not multiple choice are skipped, each named on a line.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.csv").write_text("id,question,A,B,answer\\nq1,x,a,b,A\\n")
    >>> print(detect(d / "q.csv"))
    found: questions (a question file (id, question, answer); 1 file)
      ids: the field 'id'
    """
    p = Path(path)
    if not p.exists():
        raise InputError("file or folder not found", path=p)
    if p.is_dir():
        samples = sorted(p.rglob("samples_*.jsonl"))
        if samples:
            return Detection("lm-eval", "lm-evaluation-harness samples logs", [str(f) for f in samples])
        evals = sorted(p.glob("*.eval"))
        if evals:
            return Detection("inspect", "inspect-ai .eval logs", [str(f) for f in evals])
    many = p.is_dir() or is_archive(p)
    srcs = sources(p) if many else [Source(p)]
    if many and not srcs:
        raise InputError(("no file of a known format in this folder" if p.is_dir() else "no data file in this archive")
                         + " (.csv, .tsv, .jsonl, .json, .parquet; see 'audit import auto --help')", path=p)
    found: dict[str, list[Source]] = {}
    reasons: dict[str, str] = {}
    heads: dict[str, _Head] = {}
    skipped: list[str] = []
    for src in srcs:
        head = _head(src) if src.suffix != ".eval" else _Head([], [])
        c = _classify_file(src, mapping, head)
        if c is None:
            if many:
                skipped.append(f"skipped {src.relative(p) if p.is_dir() else src.member}: {_why_not(head.cols)}")
                continue
            raise InputError(
                "format not recognised" + (f" (fields: {', '.join(_shown(c) for c in head.cols[:20])})"
                                           if head.cols else "")
                + "; for a question file with other field names use --map SOURCE=TARGET "
                  "(e.g. --map option=options), or pick the importer yourself (audit import --help)"
                + ("; a CSV without a header row is read when its columns are question, options and a key "
                   "letter, in that order" if src.suffix in (".csv", ".tsv") else ""), path=str(src))
        found.setdefault(c[0], []).append(src)
        reasons[c[0]] = c[1]
        heads[str(src)] = head
    if not found:
        raise InputError(("no file of a known format in this folder" if p.is_dir() else "no file of a known format "
                          "in this archive") + " (see 'audit import auto --help'): " + "; ".join(skipped[:3]), path=p)
    if len(found) > 1:
        kinds = ", ".join(f"{k} ({len(v)})" for k, v in sorted(found.items()))
        raise InputError(f"files of several formats in this {'folder' if p.is_dir() else 'archive'}: {kinds}; "
                         "import them one at a time", path=p)
    fmt, files = next(iter(found.items()))
    if any(s.in_archive for s in files) and fmt not in ("questions", "results"):
        raise InputError(f"{fmt} files are read from an archive only when unpacked; unpack it and import the folder",
                         path=p)
    reason = reasons[fmt] if not many else f"{'folder' if p.is_dir() else 'archive'} of {reasons[fmt]}"
    det = Detection(fmt, reason, [str(s) for s in files], sources=files, skipped=skipped)
    if fmt == "questions":
        for src in files:
            det.layouts[str(src)] = _layout_of(src, heads[str(src)], mapping)
        _describe_layouts(det, p)
    det.choices.extend(skipped)
    return det


def _describe_layouts(det: Detection, root: Path) -> None:
    """The choices made, in words: once when every file is read alike, else per file."""
    lays = [det.layouts[str(s)] for s in det.sources]
    first = lays[0]
    if all(lay.notes == first.notes for lay in lays):
        det.choices[:0] = first.notes
        det.mapping = dict(first.mapping)
    else:
        for src, lay in zip(det.sources, lays):
            name = src.relative(root) if root.is_dir() else (src.member or src.name)
            det.choices.extend(f"{name}: {n}" for n in lay.notes)
    if len(det.sources) > 1:
        det.choices.append(f"{len(det.sources)} question files: an item's id depends on its own file alone; items "
                           "without a subject take their file's name")


__all__ = ["Detection", "FileLayout", "detect", "question_layout", "file_layout", "FORMATS", "RESULT_REPLY_FIELDS"]
