"""``audit import questions``: a generic question file (CSV, JSONL, a JSON array or Parquet).

Columns: ``id``, ``question``, ``answer`` (required); the options either as
columns ``A``…``F`` (filled from ``A`` on, no gaps) or as one ``options``
column holding a list (in CSV a JSON or Python list literal); optional
``subject``, ``language``, ``script``, ``explanation``.  Any other column is
an error (so a misspelt column is never silently ignored).  Files whose
fields are named otherwise, or nested (``metadata.reference``), are read
through a field mapping (:mod:`audit.ingest._mapping`: ``--map SOURCE=TARGET``
or a mapping file).

``answer`` may be a Latin letter (any case), a Tibetan letter ཀ ཁ ག ང (→ A–D)
or a 0-based option index (``0`` → A, ``3`` → D).  A set of labels (``A B D``,
``ABD``, ``["A", "D"]``) is a multi-answer key, stored as ``"ABD"`` with the
flag ``multi_answer`` (:mod:`audit.ingest._multi_answer`).  An answer that is
not one of the item's labels is imported as given and flagged
``key_not_in_options``.

The script comes from the text's letters (:func:`script_of`); a given
``script`` column wins.  Text is normalised to Unicode NFC (Tibetan typed in
NFD compares equal); the text as imported is kept in ``raw_text`` and
``source_record``.
"""
from __future__ import annotations

import ast
import itertools
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator
from audit.store import DbPath

if TYPE_CHECKING:
    import pandas as pd

from audit.errors import InputError
from audit._read import iter_table, nfc, read_table, require_columns
from audit.ingest._store import QuestionStage, item_flags
from audit.ingest._mapping import apply_mapping
from audit.ingest._multi_answer import MULTI_FLAG, display_key, parse_key
from audit.labels import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS, TIBETAN_TO_LATIN
from audit.records import Option, Question
from audit.store import connect, transaction

OPTION_COLUMNS = list(LATIN_LABELS)
OPTIONAL_COLUMNS = {"subject", "language", "script", "explanation"}
ALLOWED_COLUMNS = {"id", "question", "answer", "options", *OPTION_COLUMNS, *OPTIONAL_COLUMNS}
PREVIEW_ITEMS = 5

# Language subtag → ISO 15924 script, for the languages this tool is built for.
_LANGUAGE_SCRIPT = {
    "bo": "Tibt", "dz": "Tibt", "zh-hans": "Hans", "zh-cn": "Hans", "zh-sg": "Hans", "zh": "Hans",
    "zh-hant": "Hant", "zh-tw": "Hant", "zh-hk": "Hant", "zh-mo": "Hant", "ug": "Arab", "ug-arab": "Arab",
    "kk-arab": "Arab", "ky-arab": "Arab", "ar": "Arab", "fa": "Arab", "ur": "Arab", "mn-mong": "Mong",
    "mn-cyrl": "Cyrl", "mn": "Cyrl", "kk": "Cyrl", "ru": "Cyrl", "ky": "Cyrl", "en": "Latn", "fr": "Latn",
    "de": "Latn", "es": "Latn", "ug-latn": "Latn", "kk-latn": "Latn", "ja": "Jpan", "ko": "Kore",
}
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

    def __str__(self) -> str:
        scripts = ", ".join(f"{k} {v}" for k, v in sorted(self.scripts.items()))
        verb = "would import" if self.dry_run else "imported"
        s = (f"{verb} {self.questions:,} questions into '{self.benchmark}' ({scripts}); "
             f"{self.key_not_in_options} with a key not among the options, {self.flagged} flagged in total")
        if self.multi_answer:
            s += f"; {self.multi_answer} with a multi-answer key (scored by exact set match)"
        if self.dry_run:
            s += "; dry run: nothing was written"
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


def script_of(text: str | None, language: str | None = None) -> str | None:
    """ISO 15924 script of an item, decided by the letters of its text.

    Order: an explicit script subtag in the language tag (``zh-Hant``,
    ``mn-Mong``) wins; otherwise the script with the most letters in the
    text (so ``mn`` with Mongolian letters is ``Mong``, with Cyrillic
    ``Cyrl``); the language tag alone decides only when the text has no
    letters of a known script (and for ``ja``/``ko``, whose Han characters
    are not Chinese).  Han text is simplified or traditional as
    ``hanzidentifier`` (a maintained library built on CC-CEDICT data) says;
    when it cannot tell (text valid in both), the language tag decides
    (``zh-TW`` → Hant), else ``Hans``.

    >>> [script_of(t) for t in ["བོད་ཡིག", "这个问题", "這個問題", "ئۇيغۇر", "ᠮᠣᠩᠭᠣᠯ", "Hello"]]
    ['Tibt', 'Hans', 'Hant', 'Arab', 'Mong', 'Latn']
    >>> script_of("anything", "zh-Hant"), script_of("ᠮᠣᠩᠭᠣᠯ ᠬᠡᠯᠡ", "mn"), script_of("Монгол хэл", "mn")
    ('Hant', 'Mong', 'Cyrl')
    >>> script_of("莎士比亞的《李爾王》是____。"), script_of("中文", "zh-TW"), script_of("", "bo")
    ('Hant', 'Hant', 'Tibt')
    """
    tag = str(language).strip().lower().replace("_", "-") if language else ""
    parts = tag.split("-") if tag else []
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():  # an explicit script subtag
            return part.capitalize()
    from_tag = _LANGUAGE_SCRIPT.get(tag) or (_LANGUAGE_SCRIPT.get(parts[0]) if parts else None)
    if parts and parts[0] in ("ja", "ko"):
        return from_tag
    if not text:
        return from_tag
    text = text[:4000]  # enough letters to decide; keeps long items cheap
    counts = {name: len(rx.findall(text)) for name, rx in _SCRIPT_RX.items()}
    best = max(counts, key=lambda s: (counts[s], s))
    if counts[best] == 0:
        return from_tag
    if best == "Hani":
        import hanzidentifier

        kind = hanzidentifier.identify("".join(_SCRIPT_RX["Hani"].findall(text)))
        if kind == hanzidentifier.TRADITIONAL:
            return "Hant"
        if kind == hanzidentifier.SIMPLIFIED:
            return "Hans"
        return from_tag if from_tag in ("Hans", "Hant") else "Hans"
    return best


_SCRIPT_RX = {
    "Tibt": re.compile("[\u0F00-\u0FFF]"),
    "Arab": re.compile("[\u0600-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFF]"),
    "Mong": re.compile("[\u1800-\u18AF]"),
    "Hani": re.compile("[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]"),
    "Cyrl": re.compile("[\u0400-\u04FF]"),
    "Latn": re.compile("[A-Za-z\u00C0-\u024F]"),
}


def _cell(v) -> str | None:
    """A cell as text: None for missing/NaN/blank."""
    if v is None:
        return None
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    s = str(v)
    return s if s.strip() else None


def _field(df, col: str) -> str:
    """How a column is named in messages: 'options', or 'option' → options
    when the file's field was mapped (so the error names the field in the file)."""
    src = getattr(df, "attrs", {}).get("mapped_from", {}).get(col)
    return f"'{src}' (read as {col})" if src and src != col else f"'{col}'"


def _parse_options_cell(v, path, line, name: str = "'options'") -> list[str]:
    if hasattr(v, "tolist") and not isinstance(v, str):  # numpy array from Parquet
        v = v.tolist()
    if isinstance(v, str):
        s = v.strip()
        if not s:
            raise InputError(f"{name} is empty", path=path, line=line)
        try:
            v = json.loads(s)
        except json.JSONDecodeError:
            try:
                v = ast.literal_eval(s)
            except (ValueError, SyntaxError):
                raise InputError(f"{name} is not a list (expected e.g. [\"red\", \"blue\"])", path=path, line=line) from None
    if isinstance(v, tuple):
        v = list(v)
    if not isinstance(v, list):
        raise InputError(f"{name} must be a list, not {type(v).__name__}", path=path, line=line)
    out = []
    for i, item in enumerate(v):
        if isinstance(item, dict) and "text" in item:
            item = item["text"]
        if item is None or isinstance(item, (list, dict)):
            raise InputError(f"{name}: option {i + 1} is not text", path=path, line=line)
        out.append(str(item))
    return out


def _answer_label(raw: str | None, n: int) -> str | None:
    """Letter, Tibetan letter or 0-based index → Latin label; otherwise the raw
    answer (then flagged key_not_in_options)."""
    if raw is None:
        return None
    s = nfc(raw).strip()
    if s.startswith("[") and s.endswith("]"):  # a one-element list ["B"]
        try:
            v = json.loads(s)
        except json.JSONDecodeError:
            v = None
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], (str, int)):
            s = str(v[0]).strip()
    if s in TIBETAN_TO_LATIN:
        return TIBETAN_TO_LATIN[s]
    if len(s) == 1 and s.upper() in LATIN_LABELS:
        return s.upper()
    if s.isdigit() and s.isascii():
        i = int(s)
        return LATIN_LABELS[i] if i < n else s
    return s


def parse_question_rows(df, path, benchmark: str, seen: dict[str, int] | None = None) -> list[Question]:
    """Rows of a question table (from ``read_table``) → Questions.  Raises
    InputError naming the line for every malformed row.  *seen* (id → first
    line) carries the duplicate-id check across chunks of one file."""
    cols = [c for c in df.columns if c not in ("_line", "_source")]
    extra_letters = [c for c in cols if len(c) == 1 and c.isalpha() and c.isupper() and c not in OPTION_COLUMNS]
    if extra_letters:
        raise InputError(f"option column(s) {', '.join(extra_letters)}: at most {MAX_OPTIONS} options (A–F) per item",
                         path=path)
    require_columns(df, ["id", "question", "answer"], path, allowed=ALLOWED_COLUMNS | {"_source"})
    option_cols = [c for c in OPTION_COLUMNS if c in cols]
    if "options" in cols and option_cols:
        raise InputError(f"give the options either as one 'options' column or as columns A–F, not both "
                         f"(found options and {', '.join(option_cols)})", path=path)
    if "options" not in cols and not option_cols:
        raise InputError(f"missing the options: add columns A, B, … (up to F) or one 'options' list column "
                         f"(found: {', '.join(cols)})", path=path)
    questions: list[Question] = []
    first_line: dict[str, int] = seen if seen is not None else {}
    for rec in df.to_dict("records"):
        line = int(rec.pop("_line"))
        qid = _cell(rec.get("id"))
        if qid is None:
            raise InputError(f"empty id in {_field(df, 'id')}", path=path, line=line)
        qid = nfc(qid.strip())   # ids compare in NFC, like texts
        if qid in first_line:
            raise InputError(f"duplicate question id '{qid}' (first on line {first_line[qid]})", path=path, line=line)
        first_line[qid] = line
        raw_stem = _cell(rec.get("question"))
        if raw_stem is None:
            raise InputError(f"empty question text in {_field(df, 'question')} (id '{qid}')", path=path, line=line)
        if option_cols:
            cells = [_cell(rec.get(c)) for c in option_cols]
            while cells and cells[-1] is None:
                cells.pop()
            gaps = [option_cols[i] for i, c in enumerate(cells) if c is None]
            if gaps:
                raise InputError(f"option {gaps[0]} is empty but a later option is filled (id '{qid}')",
                                 path=path, line=line)
            texts = cells
        else:
            texts = _parse_options_cell(rec.get("options"), path, line, _field(df, "options"))
        if len(texts) > MAX_OPTIONS:
            raise InputError(f"{len(texts)} options; an item has {MIN_OPTIONS}–{MAX_OPTIONS} (id '{qid}')",
                             path=path, line=line)
        if len(texts) < MIN_OPTIONS:
            raise InputError(f"{len(texts)} option(s); an item has {MIN_OPTIONS}–{MAX_OPTIONS} (id '{qid}')",
                             path=path, line=line)
        options = [Option(LATIN_LABELS[i], nfc(t).strip()) for i, t in enumerate(texts)]
        raw_answer = rec.get("answer")
        set_key, is_set = parse_key(raw_answer, len(options))
        if is_set:
            key = set_key
        else:
            if isinstance(raw_answer, (list, tuple)) or (hasattr(raw_answer, "tolist") and not isinstance(raw_answer, str)):
                raw_answer = json.dumps(_jsonable(raw_answer), ensure_ascii=False)
            key = _answer_label(_cell(raw_answer), len(options))
        language = _cell(rec.get("language"))
        language = language.strip() if language else None
        script = _cell(rec.get("script"))
        script = script.strip().capitalize() if script else script_of(
            raw_stem + " " + " ".join(texts), language)
        explanation = _cell(rec.get("explanation"))
        subject = _cell(rec.get("subject"))
        original = rec.pop("_source", None)
        source = original if isinstance(original, dict) else {k: _jsonable(v) for k, v in rec.items()}
        q = Question(
            benchmark=benchmark, question_id=qid, stem=nfc(raw_stem).strip(), options=options, answer_key=key,
            subject=nfc(subject).strip() if subject else None, language=language, script=script,
            explanation=nfc(explanation) if explanation else None, raw_text=raw_stem, source_record=source,
        )
        if raw_stem != unicodedata.normalize("NFC", raw_stem):
            q.flags.append("normalized_nfc")
        if is_set:
            q.flags.append(MULTI_FLAG)
        questions.append(q)
    return questions


def _jsonable(v):
    if hasattr(v, "tolist") and not isinstance(v, str):
        return v.tolist()
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, (str, int, float, bool, list, dict)) or v is None:
        return v
    return str(v)


def read_question_file(path: str | os.PathLike, mapping: dict[str, str] | None = None):
    """The file as a DataFrame (columns as named by the importer, ``_line``,
    and ``_source`` = each original record when a mapping is applied)."""
    p = Path(path)
    df = read_table(p)
    if mapping:
        originals = [{k: _jsonable(v) for k, v in r.items() if k != "_line"} for r in df.to_dict("records")]
        df = apply_mapping(df, mapping, p)
        df["_source"] = originals
    return df


def _question_chunks(p: Path, mapping: dict[str, str] | None) -> Iterator["pd.DataFrame"]:
    """:func:`read_question_file` in chunks (CSV streamed by DuckDB)."""
    for df in iter_table(p):
        if mapping:
            originals = [{k: _jsonable(v) for k, v in r.items() if k != "_line"} for r in df.to_dict("records")]
            df = apply_mapping(df, mapping, p)
            df["_source"] = originals
        yield df


def import_questions(path: str | os.PathLike, *, benchmark: str, db: DbPath = None, mapping: dict[str, str] | None = None,
                     dry_run: bool = False) -> QuestionImportSummary:
    """Import a question file into ``benchmark`` (created when new; questions
    with the same id are replaced).  All-or-nothing, in one transaction.
    The whole file is parsed and checked first (a CSV streamed in chunks,
    each staged in a Parquet file in the temporary folder, see
    :class:`~audit.ingest._store.QuestionStage`); only then is the database
    opened, for one bulk insert — so a bad row leaves the file untouched and
    a million questions stay well under 1 GB of memory.

    ``mapping`` renames fields first (see :func:`audit.ingest._mapping.parse_map`);
    ``dry_run`` parses everything, writes nothing and returns the first
    items as they would be stored in ``preview``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.csv").write_text("id,question,A,B,C,answer\\nq1,2+2?,3,4,5,B\\nq2,1+1?,2,3,4,G\\n")
    >>> s = import_questions(d / "q.csv", benchmark="toy", db=d / "x.duckdb")
    >>> (s.questions, s.key_not_in_options)
    (2, 1)
    >>> _ = (d / "c.json").write_text('[{"id": "m1", "q": "?", "option": ["x", "y", "z"], "answer": "A C"}]')
    >>> s = import_questions(d / "c.json", benchmark="toy", mapping={"q": "question", "option": "options"},
    ...                      dry_run=True)
    >>> s.preview[0]["answer_key"], s.preview[0]["answer_key_display"], s.preview[0]["flags"]
    ('AC', '{A, C}', ['multi_answer'])
    """
    if not benchmark or not str(benchmark).strip():
        raise InputError("a benchmark name is required (--benchmark)")
    p = Path(path)
    chunks = _question_chunks(p, mapping)
    first = next(chunks)   # file-level problems (columns, encoding, empty) before the database is opened
    seen: dict[str, int] = {}
    n = key_not_in_options = flagged = multi = 0
    scripts: dict[str, int] = {}
    preview: list[dict] = []

    def consume(stage: QuestionStage | None) -> None:
        # A large CSV arrives in chunks and each parsed chunk goes to a
        # staging file, so a million questions never sit in memory at once
        # and the database is opened only after the whole file parsed.
        nonlocal n, key_not_in_options, flagged, multi
        for df in itertools.chain([first], chunks):
            questions = parse_question_rows(df, p, benchmark, seen)
            if stage is not None:
                stage.add(benchmark, questions)
            for q in questions:
                f = item_flags(q)
                key_not_in_options += "key_not_in_options" in f
                flagged += bool(f)
                multi += MULTI_FLAG in f
                scripts[q.script or "unknown"] = scripts.get(q.script or "unknown", 0) + 1
                if len(preview) < PREVIEW_ITEMS:
                    preview.append({
                        "question_id": q.question_id, "stem": q.stem,
                        "options": [{"label": o.label, "text": o.text} for o in q.options],
                        "answer_key": q.answer_key, "answer_key_display": display_key(q.answer_key, f),
                        "subject": q.subject, "language": q.language, "script": q.script,
                        "explanation": q.explanation, "flags": f})
            n += len(questions)
            del questions, df
        seen.clear()

    if dry_run:
        consume(None)
    else:
        with QuestionStage() as stage:
            consume(stage)
            # All-or-nothing: one transaction, one bulk insert from the stage.
            with connect(db) as con, transaction(con):
                stage.store(con, benchmark, "questions", source_path=str(p))
    return QuestionImportSummary(
        benchmark=benchmark, path=str(p), questions=n, key_not_in_options=key_not_in_options,
        flagged=flagged, scripts=scripts, multi_answer=multi, dry_run=dry_run, preview=preview,
    )
