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
questions     ``id``, ``question`` and ``answer`` (after any ``--map``)
judge-        ``question``, ``choices``, ``model_answer``,
detectors     ``predicted_error_type`` (MMLU-Redux detectors; audit.judge)
judge-        ``question_id``, ``judge``, ``key_correct`` (audit.judge)
verdicts
============  ==============================================================
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from audit._util.files import one_line, check_utf8
from audit.errors import InputError
from audit.ingest._questions import _numbered_option_columns

FORMATS = ("lm-eval", "inspect", "helm", "tlue", "seed", "mmlu-redux", "predictions-long", "predictions-wide",
           "questions", "outputs", "judge-detectors", "judge-verdicts")


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

    def __str__(self) -> str:
        n = len(self.files)
        s = f"found: {self.format} ({self.reason}; {n} file{'s' if n != 1 else ''})"
        if self.choices:
            s += "\n  " + "\n  ".join(self.choices)
        return s


def _first_record(p: Path) -> dict | None:
    """The first JSON object of a JSONL file or JSON array/object file."""
    with open(p, "rb") as fh:
        head = fh.read(1 << 20).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not head:
        return None
    if head.startswith("["):
        try:
            obj, _ = json.JSONDecoder().raw_decode(head, head.index("{")) if "{" in head else (None, 0)
        except json.JSONDecodeError:
            return None
        return obj if isinstance(obj, dict) else None
    try:
        obj, _ = json.JSONDecoder().raw_decode(head)
        return obj if isinstance(obj, dict) else None
    except json.JSONDecodeError:
        if p.suffix.lower() == ".json":  # one large object cut by the 1 MB window: look at its keys
            keys = {k for k in ("request_states", "adapter_spec", "samples", "eval") if f'"{k}"' in head}
            return {k: None for k in keys} or None
        return None


def _columns(p: Path) -> list[str]:
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        try:
            return list(pq.read_schema(p).names)
        except Exception:
            return []
    if suffix in (".csv", ".tsv"):
        with open(p, encoding="utf-8-sig", errors="replace", newline="") as fh:
            row = next(csv.reader(fh, delimiter="\t" if suffix == ".tsv" else ","), [])
        return [c.strip() or f"Unnamed: {i}" for i, c in enumerate(row)]   # as csv_header names them
    rec = _first_record(p)
    return list(rec) if rec else []


_ID_NAMES = ("id", "qid", "uid", "idx", "item_id", "unnamed: 0")
_STEM_NAMES = ("question", "query", "stem", "ctx")
_OPTION_NAMES = ("options", "choices", "option", "endings", "candidates")
_ANSWER_NAMES = ("answer", "answerkey", "answer_key", "gold", "label", "correct", "correct_answer", "target",
                 "answer_idx", "answer_index")
_KEEP = ("subject", "language", "script", "explanation")
_LETTERS = ("A", "B", "C", "D", "E", "F")


def question_layout(cols: list[str], first: dict | None) -> tuple[dict[str, str], list[str]] | None:
    """How a published question layout maps onto the importer's fields: the
    mapping (renames; other fields dropped, kept in ``source_record``) and
    the choices in words; None when no stem, options and answer are found.

    >>> question_layout(["", "Question", "A", "B", "C", "D", "Answer"][1:] + ["Unnamed: 0"], None)[0]
    {'Question': 'question', 'Answer': 'answer', 'Unnamed: 0': 'id'}
    >>> question_layout(["id", "question", "answerKey"],
    ...                 {"question": {"stem": "?", "choices": [{"text": "x", "label": "1"}]}})[0]
    {'question.stem': 'question', 'question.choices': 'options', 'answerKey': 'answer'}
    >>> question_layout(["query", "option", "gold", "metadata"], {"metadata": {"subject": "law", "src": "x"}})[0]
    {'query': 'question', 'option': 'options', 'gold': 'answer', 'metadata.subject': 'subject'}
    """
    low = {c.lower().strip(): c for c in cols}
    mapping: dict[str, str] = {}
    choices: list[str] = []

    def find(names: tuple[str, ...]) -> str | None:
        return next((low[n] for n in names if n in low), None)

    stem = find(_STEM_NAMES)
    nested = first.get(stem) if first and stem else None
    if isinstance(nested, dict) and "stem" in nested:       # ARC: question: {stem, choices: [{text, label}]}
        mapping[f"{stem}.stem"] = "question"
        if "choices" in nested:
            mapping[f"{stem}.choices"] = "options"
    elif stem:
        if stem != "question":
            mapping[stem] = "question"
    else:
        return None
    if "options" not in mapping.values():
        if all(x in cols for x in _LETTERS[:2]) or _numbered_option_columns(cols):
            pass                                                  # columns A–F or option_1 … option_N
        else:
            opt = find(_OPTION_NAMES)
            if not opt:
                return None
            if opt != "options":
                mapping[opt] = "options"
    ans = find(_ANSWER_NAMES)
    if not ans:
        return None
    if ans != "answer":
        mapping[ans] = "answer"
    qid = find(_ID_NAMES)
    if qid and qid != "id":
        mapping[qid] = "id"
    for name in _KEEP:
        if name in low and low[name] != name and name not in mapping.values():
            mapping[low[name]] = name
        elif name not in low and first:       # nested: metadata.subject
            parent = next((k for k, v in first.items() if isinstance(v, dict) and name in v
                           and not isinstance(v[name], (dict, list))), None)
            if parent is not None and name not in mapping.values():
                mapping[f"{parent}.{name}"] = name
    used = {k.split(".")[0] for k in mapping} | {"question", "answer", "options", "id", *_KEEP, *_LETTERS}
    used |= set(_numbered_option_columns(cols))
    dropped = [c for c in cols if c not in used]
    for c in dropped:
        mapping[c] = ""
    renames = [f"{k} → {v}" for k, v in mapping.items() if v]
    if renames:
        choices.append("fields read as: " + ", ".join(renames))
    if dropped:
        choices.append("kept only in each item's source record: " + ", ".join(dropped))
    choices.append("id: " + (f"the field '{qid}'" if qid else "the record's row number in its file, from 0"))
    return mapping, choices


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


def _classify_file(p: Path, mapping: dict[str, str] | None) -> tuple[str, str] | None:
    name, suffix = p.name, p.suffix.lower()
    if suffix not in (".parquet", ".eval"):
        check_utf8(p)     # a binary file is one line naming the byte, never its bytes echoed
    if name.startswith("samples_") and suffix == ".jsonl":
        return "lm-eval", "an lm-evaluation-harness samples log"
    if suffix == ".eval":
        return "inspect", "an inspect-ai .eval log"
    cols = _columns(p)
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
    if question_layout(cols, _first_record(p) if suffix in (".json", ".jsonl", ".ndjson") else None):
        return "questions", "a question file in a published layout"
    return None


def _shown(name: str) -> str:
    """A field name as shown in a one-line message (see ``audit._util.files.one_line``).

    >>> _shown("a\\nb  c"), len(_shown("x" * 50))
    ('a b c', 40)
    """
    return one_line(name)


def detect(path: str | os.PathLike, mapping: dict[str, str] | None = None) -> Detection:
    """Recognise the format of ``path`` without reading it whole.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.csv").write_text("id,question,A,B,answer\\nq1,x,a,b,A\\n")
    >>> print(detect(d / "q.csv"))
    found: questions (a question file (id, question, answer); 1 file)
      id: the field 'id'
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
        found: dict[str, list[str]] = {}
        reasons: dict[str, str] = {}
        for f in sorted(x for x in p.rglob("*") if x.is_file() and x.suffix.lower() in
                        (".jsonl", ".json", ".csv", ".tsv", ".parquet")):
            c = _classify_file(f, mapping)
            if c:
                found.setdefault(c[0], []).append(str(f))
                reasons[c[0]] = c[1]
        if not found:
            raise InputError("no file of a known format in this folder (see 'audit import auto --help')", path=p)
        if len(found) > 1:
            kinds = ", ".join(f"{k} ({len(v)})" for k, v in sorted(found.items()))
            raise InputError(f"files of several formats in this folder: {kinds}; import them one at a time", path=p)
        fmt, files = next(iter(found.items()))
        det = Detection(fmt, f"folder of {reasons[fmt]}", files)
        if fmt == "questions":
            det.choices.append(f"a folder of {len(files)} question files: ids stay as given unless they repeat "
                               "across files, then each becomes <file>/<id>; items without a subject take "
                               "their file's name")
        return _with_layout(det, mapping)
    c = _classify_file(p, mapping)
    if c is None:
        cols = _columns(p)
        raise InputError(
            "format not recognised" + (f" (fields: {', '.join(_shown(c) for c in cols[:20])})" if cols else "")
            + "; for a question file with other field names use --map SOURCE=TARGET "
              "(e.g. --map option=options), or pick the importer yourself (audit import --help)", path=p)
    return _with_layout(Detection(c[0], c[1], [str(p)]), mapping)


def _with_layout(det: Detection, mapping: dict[str, str] | None) -> Detection:
    """A question file in a published layout: the mapping that reads it and
    the choices made (none when the user gave a mapping: theirs is used)."""
    if det.format != "questions" or mapping:
        return det
    f = Path(det.files[0])
    first = _first_record(f) if f.suffix.lower() in (".json", ".jsonl", ".ndjson") else None
    lay = question_layout(_columns(f), first)
    if lay:
        det.mapping = lay[0]
        det.choices[:0] = lay[1]
    return det


__all__ = ["Detection", "detect", "question_layout", "FORMATS"]
