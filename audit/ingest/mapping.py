"""Field mapping: read a file whose fields are named differently.

``--map SOURCE=TARGET`` (repeatable) renames a field of the file to one of
the importer's columns.  ``SOURCE`` may be a dotted path into nested objects
(``metadata.reference=explanation``); a parent object whose fields are
mapped out is consumed (not reported as an unknown column), and
``SOURCE=`` (empty target) drops a field, and ``A+B=TARGET`` builds a field
from several (their non-empty values joined by a blank line: a stem made of
a context and a question).  ``SOURCE`` is matched against the file's field
names as written first (``--map 'Answer '=answer`` names a column whose name
ends in a space, ``--map Question.1=question`` a column named with a dot),
then trimmed, then as a dotted path.  A mapping file holds the same
pairs, either as a JSON object ``{"option": "options"}`` or one
``SOURCE=TARGET`` per line (``#`` starts a comment).

JSON arrays (a file holding ``[{…}, {…}]``) are read record by record with
the line each record starts on, so errors still say ``FILE:LINE``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from audit._util.files import RESERVED_FIELDS, json_array_records, read_text
from audit.errors import InputError

_MISSING = object()


def parse_map(specs: list[str] | None = None, map_file: str | os.PathLike | None = None) -> dict[str, str]:
    """``SOURCE=TARGET`` pairs (and a mapping file) → {source: target}.

    >>> parse_map(["option=options", "metadata.reference=explanation", "extra="])
    {'option': 'options', 'metadata.reference': 'explanation', 'extra': ''}
    """
    out: dict[str, str] = {}
    if map_file is not None:
        p = Path(map_file)
        text = read_text(p)
        if p.suffix.lower() == ".json":
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"mapping file is not valid JSON ({exc.msg})", path=p, line=exc.lineno) from None
            if not isinstance(obj, dict) or not all(isinstance(k, str) and isinstance(v, (str, type(None)))
                                                    for k, v in obj.items()):
                raise InputError('mapping file must be a JSON object {"SOURCE": "TARGET", …}', path=p)
            for k, v in obj.items():
                _add(out, k, v or "", p, None)
        else:
            for no, line in enumerate(text.splitlines(), start=1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                if "=" not in line:
                    raise InputError(f"expected SOURCE=TARGET, got '{line}'", path=p, line=no)
                k, v = line.split("=", 1)
                _add(out, k.strip(), v.strip(), p, no)
    for spec in specs or []:
        if "=" not in spec:
            raise InputError(f"--map expects SOURCE=TARGET (e.g. option=options), got '{spec}'")
        k, v = spec.split("=", 1)
        _add(out, k, v.strip(), None, None)   # the source as written: a column name may end in a space
    return out


def _add(out: dict[str, str], k: str, v: str, path, line) -> None:
    if not k.strip() or any(not part.strip() for part in k.split(".")):
        raise InputError(f"empty field name in mapping '{k}={v}'", path=path, line=line)
    if k.strip().split(".")[0] in RESERVED_FIELDS or v in RESERVED_FIELDS:
        name = k if k.strip().split(".")[0] in RESERVED_FIELDS else v
        raise InputError(f"'{name}' in mapping '{k}={v}' is the importer's own bookkeeping, not a field; a file "
                         "without ids gets each record's row number as id (or build ids with --id)",
                         path=path, line=line)
    if k in out and out[k] != v:
        raise InputError(f"field '{k}' is mapped twice (to '{out[k]}' and to '{v}'); a field is read as one "
                         "column", path=path, line=line)
    if v and v in out.values() and out.get(k) != v:
        raise InputError(f"two fields are mapped to '{v}'", path=path, line=line)
    out[k] = v


def get_path(rec: dict, dotted: str):
    """Value at a dotted path of a record, or a sentinel when absent.

    >>> get_path({"a": {"b": 1}}, "a.b"), get_path({"a.b": 2}, "a.b")
    (1, 2)
    """
    if dotted in rec:
        return rec[dotted]
    cur: object = rec
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return _MISSING
    return cur


def resolve(columns, src: str) -> str:
    """The field a mapping's SOURCE names among *columns*: as written, else
    trimmed (else *src* itself, a dotted path or a field that is absent).

    >>> resolve(["Answer ", "Question.1"], "Answer "), resolve(["Answer"], " Answer"), resolve(["a"], "b.c")
    ('Answer ', 'Answer', 'b.c')
    """
    if src in columns:
        return src
    if src.strip() in columns:
        return src.strip()
    return next((c for c in columns if isinstance(c, str) and c.strip() == src.strip()), src.strip())


def _shown_fields(df: pd.DataFrame) -> str:
    return ", ".join(f"'{c}'" if c != c.strip() or "." in c else c for c in df.columns if c not in ("_line", "_row"))


def _column_values(df: pd.DataFrame, src: str, path) -> list:
    """The values of field *src* (dotted paths reach into objects) per record."""
    src = resolve(df.columns, src)
    if src in df.columns:
        return df[src].tolist()
    head = src.split(".")[0]
    if "." not in src or head not in df.columns:
        raise InputError(f"mapped field '{src}' is not in the file (fields: {_shown_fields(df)})", path=path)
    values = [get_path(r, src.split(".", 1)[1]) if isinstance(r, dict) else _MISSING for r in df[head]]
    return [None if v is _MISSING else v for v in values]


def apply_mapping(df: pd.DataFrame, mapping: dict[str, str], path) -> pd.DataFrame:
    """Columns renamed/extracted by ``mapping`` (a DataFrame with ``_line``).

    A source found in no record is an error (a misspelt mapping is never
    silently ignored); a nested value in one record that is not an object
    where the path goes on is simply absent in that record.

    >>> df = pd.DataFrame({"q": ["x"], "meta": [{"ref": "r", "src": "s"}], "_line": [1]})
    >>> apply_mapping(df, {"q": "question", "meta.ref": "explanation"}, "f").columns.tolist()
    ['_line', 'question', 'explanation']
    """
    if not mapping:
        return df
    df = df.copy()
    consumed: set[str] = set()
    new_cols: dict[str, list] = {}
    for given, target in mapping.items():
        src = resolve(df.columns, given)
        if "+" in src and src not in df.columns:      # a field built from several: context+question=question
            parts = [x.strip() for x in src.split("+")]
            if any(not x for x in parts):
                raise InputError(f"empty field name in mapping '{src}={target}'", path=path)
            columns = [_column_values(df, x, path) for x in parts]
            values: list = ["\n\n".join(str(v) for v in vs if v is not None and not (isinstance(v, float) and v != v)
                                        and str(v).strip()) or None for vs in zip(*columns)]
            consumed.update(x.split(".")[0] for x in parts)
            if target:
                new_cols[target] = values
            continue
        if src in df.columns:
            values = df[src].tolist()
            consumed.add(src)
        else:
            head = src.split(".")[0]
            if "." not in src or head not in df.columns:
                raise InputError(f"mapped field '{given}' is not in the file (fields: {_shown_fields(df)})", path=path)
            values = [get_path(r, src.split(".", 1)[1]) if isinstance(r, dict) else _MISSING for r in df[head]]
            if all(v is _MISSING for v in values):
                raise InputError(f"mapped field '{src}' is not in any record", path=path)
            values = [None if v is _MISSING else v for v in values]
            consumed.add(head)
        if target:
            new_cols[target] = values
    sources = {resolve(df.columns, s) for s in mapping}
    for src, target in mapping.items():
        # a field of the same name stays in the way unless it is mapped away or is the
        # parent whose nested field is mapped onto its name (question.stem=question)
        if target and target in df.columns and target not in sources and target not in consumed:
            raise InputError(f"'{src}' is mapped to '{target}', but the file already has a field '{target}'",
                             path=path)
    df = df.drop(columns=[c for c in consumed if c in df.columns])
    for target, values in new_cols.items():
        df[target] = values
    df.attrs["mapped_from"] = {t: s for s, t in mapping.items() if t}
    return df


__all__ = ["parse_map", "apply_mapping", "get_path", "json_array_records", "resolve"]
