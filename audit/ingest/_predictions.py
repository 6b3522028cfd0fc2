"""``audit import predictions``: model answers in long, wide or seed layout.

Layouts
-------
``long``  one row per (question, model): ``question_id``, ``model``, ``response``
          (raw text, extracted on import) and/or ``answer`` (a given letter),
          optional ``run``.  When a row has both, the given ``answer`` is used
          and the response is kept as raw text.  Optional ``options_shown``:
          the options in the order this model saw them (see below).
``wide``  ``question_id`` plus one column per model holding its given letter
          (an empty cell is an invalid prediction).
``seed``  the methodology pipeline's ``<model>_combined_results.jsonl``:
          ``loc`` (question id), ``extracted_answer`` (list; first item used),
          ``answer`` (the key the pipeline saw), ``polished_ti_content``.

Per-model option order
----------------------
When a model was shown the options of an item in its own order, its
letter refers to that order.  ``options_shown`` gives the order, as the
item's labels in shown order (``"CADB"``: the model's A was the item's C),
as 0-based item indexes (``[2, 0, 3, 1]``) or as the option texts shown
(``["Paris", "Rome", …]``, matched to the item's options after trimming).
The written letter is mapped back to the item's labels before it is stored
in ``predictions.answer`` (so tiers and scores compare like with like) and
kept, with the order, in ``prediction_written``.  An order that is not a
permutation of the item's options refuses the file (``FILE:LINE``).

Multi-answer items (:mod:`audit.ingest.multi_answer`) take a set of letters
("A D", "AD", ``["A","D"]``) stored sorted (``"AD"``); raw responses to them
are extracted as a set (:func:`audit.ingest.extract.extract_answer_set`).

All set-based work runs in DuckDB: the file is scanned in place (Parquet/CSV),
joined against ``questions`` for the unknown-id check and the option counts,
wide files are unpivoted in SQL, and only the rows that carry a raw response
are streamed in record batches through :func:`audit.ingest.extract.extract_answers`
and joined back in SQL.
"""
from __future__ import annotations

import os
import re
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
from tqdm import tqdm

from audit._util.files import read_jsonl
from audit._util.redact import redact_sql
from audit._util.sql import sql_ident, sql_str, unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest._duck import one, open_source
from audit.ingest.extract import DEFAULT_METHOD, METHODS, extract_answer_sets, extract_answers
from audit.ingest.models import register_models
from audit.ingest.multi_answer import key_set_sql
from audit.ingest.responses import answer_by_option_text
from audit.options import LABEL_STRING, MAX_OPTIONS, MIN_OPTIONS, TIBETAN_TO_LATIN, sql_is_label

#: A sorted set of labels, as a regular expression: A?B?…J?
_ORDERED_SET = "".join(f"{x}?" for x in LABEL_STRING)
from audit.store import DbPath, connect, transaction

LAYOUTS = ("long", "wide", "seed")
LONG_COLUMNS = {"question_id", "model", "response", "answer", "run", "options_shown"}

# A given letter: trimmed, upper-cased, Tibetan ཀ ཁ ག ང ཅ ཆ ཇ ཉ ཏ ཐ mapped to A–J.
_GIVEN_SQL = (
    "CASE trim({c}) "
    + " ".join(f"WHEN '{t}' THEN '{x}'" for t, x in TIBETAN_TO_LATIN.items())
    + " ELSE upper(trim({c})) END"
)


def given_letter_sql(col: str, multi: str) -> str:
    """SQL for a given answer as stored: one letter (:data:`_GIVEN_SQL`) or, on
    multi-answer items (``multi``), a given set "A D", "d,a", '["A","D"]' → "AD"."""
    return (f"CASE WHEN {multi} AND regexp_full_match({col}, '[\\sA-Ja-j,;/+、，\\[\\]\"]+') "
            f"THEN {key_set_sql(col)} ELSE {_GIVEN_SQL.format(c=col)} END")


def letter_ok_sql(letter: str, k: str, multi: str) -> str:
    """SQL: is ``letter`` one label of an item with ``k`` options or, on a
    multi-answer item, a sorted set of them (never NULL)."""
    return (f"coalesce(CASE WHEN {multi} THEN length({letter}) >= 1 AND regexp_full_match({letter}, '{_ORDERED_SET}') "
            f"AND instr('{LABEL_STRING}', right({letter}, 1)) BETWEEN 1 AND {k} "
            f"ELSE {sql_is_label(letter, k)} END, false)")


@dataclass
class PredictionImportSummary:
    """What an import wrote.  ``replaced`` = earlier rows of the same
    (benchmark, model, run) that the import replaced."""

    benchmark: str
    path: str
    layout: str
    models: list[str]
    predictions: int
    valid: int
    extracted: int
    method: str
    replaced: int = 0
    seconds: float = 0.0
    key_mismatches: int | None = None  # seed files: their 'answer' differs from the stored key
    examples: list[str] = field(default_factory=list)
    skipped: int = 0   # rows for unknown question ids skipped (skip_unknown); examples names the first

    @property
    def invalid(self) -> int:
        return self.predictions - self.valid

    def __str__(self) -> str:
        s = (f"imported {self.predictions:,} predictions of {len(self.models)} model(s) into "
             f"'{self.benchmark}': {self.valid:,} valid, {self.invalid:,} invalid; "
             f"{self.extracted:,} extracted from raw responses ({self.method})")
        if self.replaced:
            s += f"; replaced {self.replaced:,} earlier rows"
        if self.key_mismatches:
            s += f"; {self.key_mismatches} seed keys differ from the stored keys"
        if self.skipped:
            s += (f"; skipped {self.skipped:,} row(s) for question ids the benchmark does not have "
                  f"(e.g. {', '.join(self.examples[:5])})")
        return s + f" [{self.seconds:.1f} s]"


def import_predictions(
    path: str | os.PathLike,
    *,
    benchmark: str,
    layout: str = "long",
    method: str = DEFAULT_METHOD,
    model: str | None = None,
    run: str | None = None,
    db: DbPath = None,
    progress: bool | None = None,
    mapping: dict[str, str] | None = None,
    skip_unknown: bool = False,
    actor=None,
) -> PredictionImportSummary:
    """Import model predictions for questions already in ``benchmark``.

    All-or-nothing, in one transaction.  Refused (nothing written) when any
    row names a question id the benchmark does not have, when a (question,
    model, run) appears twice, or when a model has no answer in any row.
    Re-importing a (benchmark, model, run) replaces its earlier rows.

    ``method`` ('caa' or 'da') extracts letters from raw responses; given
    letters are stored with method 'given'.  A given letter that is not a
    label of the item (by its option count) is an invalid prediction (answer
    NULL, the raw cell kept in ``response``).  ``model`` names the model of a
    long file without a ``model`` column (and of a seed file when its name
    does not say); ``run`` is used for rows without a run (default 'default').
    ``progress`` shows a tqdm bar on stderr (None = only on a terminal).
    ``mapping`` renames the file's columns first (``{"qid": "question_id"}``;
    dotted paths reach into nested JSON, see :mod:`audit.ingest.mapping`).
    ``skip_unknown`` skips the rows for question ids the benchmark does not
    have instead of refusing the file; the summary counts them and names the
    first (``skipped``, ``examples``).

    >>> import tempfile, os, pathlib
    >>> from audit.ingest._questions import import_questions
    >>> d = pathlib.Path(tempfile.mkdtemp()); db = d / "x.duckdb"
    >>> _ = (d / "q.csv").write_text("id,question,A,B,answer\\nq1,1+1?,2,3,A\\n")
    >>> _ = import_questions(d / "q.csv", benchmark="toy", db=db)
    >>> _ = (d / "p.csv").write_text("question_id,m1,m2\\nq1,A,b\\n")
    >>> s = import_predictions(d / "p.csv", benchmark="toy", layout="wide", db=db)
    >>> (s.predictions, s.valid, s.models)
    (2, 2, ['m1', 'm2'])
    """
    t0 = time.perf_counter()
    if layout not in LAYOUTS:
        raise InputError(f"unknown layout '{layout}' (use {', '.join(LAYOUTS)})")
    if method not in METHODS:
        raise InputError(f"unknown extraction method '{method}' (use one of {', '.join(METHODS)})")
    p = Path(path)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing predictions")
        _require_questions(con, benchmark)
        key_mismatches = None
        if layout == "long":
            _long_source(con, p, model=model, run=run, mapping=mapping)
        elif layout == "wide":
            _wide_source(con, p, run=run, mapping=mapping)
        else:
            key_mismatches = _seed_source(con, p, benchmark=benchmark, model=model, run=run)
        summary = store_predictions(con, benchmark, "_pred_src", p, method=method, layout=layout,
                                    progress=progress, skip_unknown=skip_unknown)
    summary.key_mismatches = key_mismatches
    summary.seconds = time.perf_counter() - t0
    return summary


def _require_questions(con, benchmark: str) -> None:
    if not benchmark or not str(benchmark).strip():
        raise InputError("a benchmark name is required (--benchmark)")
    n = one(con, "SELECT count(*) FROM questions WHERE benchmark = ?", [benchmark])[0]
    if n == 0:
        raise InputError(f"benchmark '{benchmark}' has no questions; import its questions first")


def _run_sql(run: str | None) -> str:
    return sql_str(run.strip() if run and run.strip() else "default")


def _open_mapped(con, p: Path, mapping: dict[str, str] | None) -> list[str]:
    """``_pred_file`` over the file, with ``mapping`` applied in SQL (a
    rename/struct-field projection: no copy of the data)."""
    cols = open_source(con, p, "_pred_file")
    if not mapping:
        return cols
    exprs, consumed, out = [], set(), []
    for src, target in mapping.items():
        head = src.split(".")[0]
        if src in cols:
            expr = sql_ident(src)
            consumed.add(src)
        elif "." in src and head in cols:
            # JSON files arrive as text (nested objects as JSON); Parquet structs as structs
            typ = one(con, f"SELECT typeof({sql_ident(head)}) FROM _pred_file LIMIT 1")[0]
            rest = src.split(".", 1)[1]
            if typ.startswith("STRUCT"):
                expr = sql_ident(head) + "".join(f".{sql_ident(x)}" for x in rest.split("."))
            else:
                expr = f"json_extract_string(try_cast({sql_ident(head)} AS JSON), {sql_str('$.' + rest)})"
            consumed.add(head)
        else:
            raise InputError(
                f"mapped field '{src}' is not in the file (fields: {', '.join(c for c in cols if c != '_line')})",
                path=p,
            )
        if target:
            exprs.append(f"{expr} AS {sql_ident(target)}")
            out.append(target)
    keep = [c for c in cols if c not in consumed and c not in out]
    con.execute("CREATE OR REPLACE TEMP VIEW _pred_mapped AS SELECT "
                + ", ".join([sql_ident(c) for c in keep] + exprs + ["_line"]) + " FROM _pred_file")
    con.execute("CREATE OR REPLACE TEMP VIEW _pred_file_m AS SELECT * FROM _pred_mapped")
    return keep + out


def _long_source(con, p: Path, *, model: str | None, run: str | None, mapping: dict[str, str] | None = None) -> None:
    cols = _open_mapped(con, p, mapping)
    file_view = "_pred_file_m" if mapping else "_pred_file"
    unknown = [c for c in cols if c not in LONG_COLUMNS]
    if unknown:
        raise InputError(
            f"unknown column(s) for the long layout: {', '.join(unknown)} (allowed: "
            f"{', '.join(sorted(LONG_COLUMNS))}; a file with one column per model needs --layout wide)",
            path=p)
    missing = [c for c in ("question_id",) if c not in cols]
    if "model" not in cols and not model:
        missing.append("model (or pass --model)")
    if "response" not in cols and "answer" not in cols:
        missing.append("response or answer")
    if missing:
        raise InputError(f"missing required column(s): {', '.join(missing)} (found: {', '.join(cols)})", path=p)
    model_expr = "nullif(trim(model::VARCHAR), '')" if "model" in cols else sql_str(model.strip())
    if "model" in cols and model:
        model_expr = f"coalesce({model_expr}, {sql_str(model.strip())})"
    run_expr = f"coalesce(nullif(trim(run::VARCHAR), ''), {_run_sql(run)})" if "run" in cols else _run_sql(run)
    resp = "nullif(response::VARCHAR, '')" if "response" in cols else "NULL::VARCHAR"
    given = "nullif(trim(answer::VARCHAR), '')" if "answer" in cols else "NULL::VARCHAR"
    shown = (", nullif(trim(options_shown::VARCHAR), '') AS shown" if "options_shown" in cols else "")
    con.execute(
        "CREATE OR REPLACE TEMP VIEW _pred_src AS SELECT "
        "nullif(nfc_normalize(trim(question_id::VARCHAR)), '') AS question_id, "
        f"{model_expr} AS model, {run_expr} AS run, "
        f"{resp} AS response, {given} AS given{shown}, _line FROM {file_view}"
    )


def _wide_source(con, p: Path, *, run: str | None, mapping: dict[str, str] | None = None) -> None:
    cols = _open_mapped(con, p, mapping)
    file_view = "_pred_file_m" if mapping else "_pred_file"
    if "question_id" not in cols:
        raise InputError(f"missing required column: question_id (found: {', '.join(cols)})", path=p)
    models = [c for c in cols if c != "question_id"]
    if "model" in models and ("response" in models or "answer" in models):
        raise InputError("this looks like a long file (columns model and response/answer); use --layout long",
                         path=p)
    if not models:
        raise InputError("no model columns: the wide layout is question_id plus one column per model", path=p)
    blank = [c for c in models if not c.strip() or re.fullmatch(r"(column|Unnamed: )\d+", c)]
    if blank:
        raise InputError(f"model column(s) without a name: {', '.join(blank)}", path=p)
    # only non-text columns are cast before the unpivot, and the cell is trimmed after it, on the one
    # `given` column: an expression per model column costs DuckDB seconds at 2,000 columns
    types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE {file_view})").fetchall())
    casts = ", ".join(sql_ident(m) if types.get(m) == "VARCHAR" else f"{sql_ident(m)}::VARCHAR AS {sql_ident(m)}"
                      for m in models)
    on = ", ".join(sql_ident(m) for m in models)
    # INCLUDE NULLS: an empty cell is kept as an invalid prediction (the model
    # gave no usable answer to that question).  Unpivoted once into a table:
    # the checks read the source several times, and each read of a view
    # would bind the file's columns and unpivot again (2,000 model columns:
    # seconds per read).
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _pred_src AS SELECT question_id, model, "
        f"{_run_sql(run)} AS run, NULL::VARCHAR AS response, nullif(trim(given), '') AS given, _line FROM ("
        f"SELECT nullif(nfc_normalize(trim(question_id::VARCHAR)), '') AS question_id, _line, {casts} FROM {file_view}"
        f") UNPIVOT INCLUDE NULLS (given FOR model IN ({on}))"
    )


_SEED_NAME = re.compile(r"^(?P<model>.+?)_combined_results$")


def _seed_source(con, p: Path, *, benchmark: str, model: str | None, run: str | None) -> int:
    """The pipeline's JSONL: loc, extracted_answer (list; first item), answer (key)."""
    if not model:
        m = _SEED_NAME.match(p.stem)
        if not m:
            raise InputError("cannot tell the model from the file name (expected <model>_combined_results.jsonl); "
                             "pass --model", path=p)
        model = m.group("model")
    qids, givens, keys, lines = [], [], [], []
    for no, obj in read_jsonl(p):
        if "loc" not in obj or "extracted_answer" not in obj:
            missing = [f for f in ("loc", "extracted_answer") if f not in obj]
            raise InputError(f"missing field(s): {', '.join(missing)}", path=p, line=no)
        ext = obj["extracted_answer"]
        if isinstance(ext, str):
            ext = [ext]
        if ext is not None and not isinstance(ext, list):
            raise InputError("extracted_answer must be a list of letters", path=p, line=no)
        first = ext[0] if ext else None
        qids.append(unicodedata.normalize("NFC", str(obj["loc"]).strip()))
        givens.append(None if first is None else str(first))
        keys.append(None if obj.get("answer") is None else str(obj["answer"]).strip().upper())
        lines.append(no)
    table = pa.table({"question_id": pa.array(qids, pa.string()), "given": pa.array(givens, pa.string()),
                      "seed_key": pa.array(keys, pa.string()), "_line": pa.array(lines, pa.int64())})
    con.register("_seed_arrow", table)
    con.execute(
        f"CREATE OR REPLACE TEMP VIEW _pred_src AS SELECT question_id, {sql_str(model)} AS model, "
        f"{_run_sql(run)} AS run, NULL::VARCHAR AS response, nullif(trim(given), '') AS given, _line FROM _seed_arrow"
    )
    return one(con, 
        "SELECT count(*) FROM _seed_arrow s JOIN questions q ON q.benchmark = ? AND q.question_id = s.question_id "
        "WHERE s.seed_key IS NOT NULL AND s.seed_key IS DISTINCT FROM q.answer_key",
        [benchmark],
    )[0]


@dataclass
class _Source:
    """A prediction source that passed :func:`_checked_source`."""

    view: str                   # the rows to store (without those for unknown ids when they are skipped)
    columns: set[str]
    models: list[str]
    shown: bool                 # some rows give the order the options were shown in
    shown_as_text: bool         # ... as option texts: the items' texts are needed to read them
    skipped: int = 0            # rows for question ids the benchmark does not have, skipped
    examples: list[str] = field(default_factory=list)   # the first of them


@dataclass
class _Rows:
    """A source's rows normalised by :func:`_normalised`: SQL with one row per
    prediction (question_id, model, run, response, given, k, multi, written,
    src_method, letter read through the order shown, ok)."""

    sql: str
    responses: int              # rows whose letter comes from a raw response
    extracted: bool             # those letters were extracted here (in ``_extracted``)
    shown: bool                 # orders were shown (checked in ``_orders``)


def store_predictions(con, benchmark: str, src: str, path, *, method: str = "caa", layout: str = "long",
                      progress: bool | None = None, skip_unknown: bool = False) -> PredictionImportSummary:
    """Validate and write the predictions of view ``src`` (columns question_id,
    model, run, response, given, _line; optionally ``letter`` and ``method``
    when the source has already extracted them, ``shown`` for the order the
    options were shown in) inside the caller's
    transaction.  Raises InputError (nothing written) on bad rows.

    Three steps: the source is checked (:func:`_checked_source`), its rows
    normalised (:func:`_normalised`: letters extracted from raw responses,
    given letters and sets in canonical form, read through the order shown,
    checked against the item's labels) and written in place of the earlier
    rows of the same (model, run) pairs (:func:`_write`)."""
    where = str(path)
    con.execute("SET enable_progress_bar = false")  # our own bar (tqdm) goes to stderr
    source = _checked_source(con, benchmark, src, where, layout=layout, skip_unknown=skip_unknown)
    try:
        rows = _normalised(con, source, method, progress, where)
        replaced = _write(con, benchmark, source, rows, method, where)
    finally:
        try:
            unregister(con, "_extracted")
            con.execute("DROP TABLE IF EXISTS _model_ix")
            con.execute("DROP TABLE IF EXISTS _orders")
        except duckdb.Error:  # a failed statement aborted the transaction; the caller rolls back
            pass
    if rows.extracted and method == "final":  # the option texts settle what the letters left open
        answer_by_option_text(con, benchmark, "_pairs")
    n, n_valid = one(con,
        "SELECT count(*), count(*) FILTER (valid) FROM predictions p SEMI JOIN _pairs USING (model, run) "
        "WHERE p.benchmark = ?", [benchmark])
    return PredictionImportSummary(benchmark=benchmark, path=where, layout=layout, models=source.models, predictions=n,
                                   valid=n_valid, extracted=rows.responses, method=method, replaced=replaced,
                                   skipped=source.skipped, examples=source.examples)


# --- source: refuse bad rows ----------------------------------------------------------------------------------

def _checked_source(con, benchmark: str, src: str, where: str, *, layout: str, skip_unknown: bool) -> _Source:
    """Refuse a source with an empty id or model, unknown question ids
    (unless ``skip_unknown``), a (question, model, run) twice, or a model
    without any answer; register its models.  Creates ``_bench_q`` (the
    benchmark's items: option count, multi-answer flag, index, texts when
    needed) and ``_pairs`` (the source's (model, run) pairs)."""
    bad = one(con, f"SELECT _line FROM {src} WHERE question_id IS NULL ORDER BY _line LIMIT 1")
    if bad:
        raise InputError("empty question_id", path=where, line=int(bad[0]))
    bad = one(con, f"SELECT _line FROM {src} WHERE model IS NULL ORDER BY _line LIMIT 1")
    if bad:
        raise InputError("empty model name", path=where, line=int(bad[0]))

    src_cols = {r[0] for r in con.execute(f"DESCRIBE {src}").fetchall()}
    has_shown = "shown" in src_cols and bool(one(con, f"SELECT count(shown) > 0 FROM {src}")[0])
    # option texts (a JSON list of strings) need the items' texts; letters and indexes do not
    by_text = (
        has_shown
        and one(
            con,
            f"SELECT 1 FROM {src} WHERE starts_with(shown, '[') AND contains(shown, '\"') "
            f'AND NOT regexp_full_match(shown, \'\\[\\s*"[A-Ja-j]"(\\s*,\\s*"[A-Ja-j]")*\\s*\\]\') '
            "LIMIT 1",
        )
        is not None
    )
    texts_col = ", [nfc_normalize(trim(o.text)) FOR o IN options] AS texts" if by_text else ""
    con.execute("CREATE OR REPLACE TEMP TABLE _bench_q AS SELECT question_id, len(options) AS k, "
                "coalesce(list_contains(flags, 'multi_answer'), false) AS multi, "
                f"(row_number() OVER () - 1)::INTEGER AS qi{texts_col} FROM questions WHERE benchmark = ?", [benchmark])
    src, n_unknown, examples = _known_rows(con, benchmark, src, where, skip_unknown)
    models = _models_of(con, src, where, layout)
    con.execute(f"CREATE OR REPLACE TEMP TABLE _pairs AS SELECT DISTINCT model, run FROM {src}")
    register_models(con, models)
    return _Source(view=src, columns=src_cols, models=models, shown=has_shown, shown_as_text=by_text,
                   skipped=n_unknown if skip_unknown else 0, examples=examples)


def _known_rows(con, benchmark: str, src: str, where: str, skip_unknown: bool) -> tuple[str, int, list[str]]:
    """The view of the rows whose question id the benchmark has, how many
    rows name another id, and the first of those (when skipped).  Refuses
    the source when a row names an unknown id and ``skip_unknown`` is not
    set, or when no row is left."""
    n_unknown, n_ids = one(con,
        f"SELECT count(*), count(DISTINCT question_id) FROM {src} s ANTI JOIN _bench_q q USING (question_id)")
    if not n_unknown:
        return src, 0, []
    ex = con.execute(
        f"SELECT question_id, min(_line) AS l FROM {src} s ANTI JOIN _bench_q q USING (question_id) "
        "GROUP BY question_id ORDER BY l LIMIT 5").fetchall()
    examples = ", ".join(f"'{q}' (line {l})" for q, l in ex)
    if not skip_unknown:
        raise InputError(
            f"{n_unknown:,} prediction(s) for {n_ids:,} question id(s) that benchmark '{benchmark}' does not have, "
            f"e.g. {examples}; nothing was imported (import the questions first, fix the ids, or pass "
            "--skip-unknown to skip and report those rows)",
            path=where)
    con.execute(f"CREATE OR REPLACE TEMP VIEW _known_src AS SELECT * FROM {src} "
                "SEMI JOIN _bench_q USING (question_id)")
    if not one(con, "SELECT count(*) FROM _known_src")[0]:
        raise InputError(f"no row names a question id of benchmark '{benchmark}' (e.g. {examples})",
                         path=where)
    return "_known_src", n_unknown, [f"'{q}' (line {l})" for q, l in ex]


def _models_of(con, src: str, where: str, layout: str) -> list[str]:
    """The source's models, sorted; refused when a (question, model, run)
    appears twice or a model has no answer in any row."""
    # Per (model, run): rows, distinct questions (a bitmap over question
    # indexes: one cheap pass even at 10 M rows), filled cells.
    n_q = one(con, "SELECT count(*) FROM _bench_q")[0]
    stats = con.execute(
        f"SELECT model, run, count(*) AS n, bit_count(bitstring_agg(q.qi, 0, {max(n_q - 1, 0)})) AS d, "
        f"count(s.given) + count(s.response) AS filled "
        f"FROM {src} s JOIN _bench_q q USING (question_id) GROUP BY model, run ORDER BY model, run").fetchall()
    if any(n != d for _, _, n, d, _ in stats):
        dup = one(con,
            f"SELECT question_id, model, run, min(_line), max(_line) FROM {src} "
            "GROUP BY question_id, model, run HAVING count(*) > 1 ORDER BY 4 LIMIT 1")
        raise InputError(
            f"lines {dup[3]} and {dup[4]} both give a prediction for question '{dup[0]}', model '{dup[1]}', "
            f"run '{dup[2]}'", path=where, line=int(dup[3]))
    per_model: dict[str, list[int]] = {}
    for m, _, n, _, filled in stats:
        per_model.setdefault(m, [0, 0])
        per_model[m][0] += n
        per_model[m][1] += filled
    empty = [m for m, (n, filled) in per_model.items() if filled == 0]
    if empty:
        what = "model column" if layout == "wide" else "model"
        raise InputError(
            f"{what}(s) {', '.join(repr(m) for m in empty)} entirely empty (no answer in any of "
            f"{per_model[empty[0]][0]:,} rows)", path=where)
    return sorted(per_model)


# --- normalise: one letter (or set) per row, as the item's label ----------------------------------------------

def _normalised(con, source: _Source, method: str, progress: bool | None, where: str) -> _Rows:
    """The rows of ``source`` with their letter: the given letter (or set)
    in canonical form, else the letter extracted from the raw response (or
    the one the source brings), read through the order shown, and whether it
    is a label of the item.  Extracted letters are kept in ``_extracted``
    (keyed by line and ``_model_ix`` number), checked orders in ``_orders``."""
    src, src_cols = source.view, source.columns
    # A source may bring letters already extracted (and mapped), e.g. HELM,
    # in columns `letter` and `method`; then nothing is extracted here.
    pre = "letter" in src_cols
    n_responses = one(con, f"SELECT count(*) FROM {src} WHERE given IS NULL AND response IS NOT NULL")[0]
    extract = bool(n_responses) and not pre
    if extract:
        # models by a small integer: the extracted rows are keyed (line, model
        # number), so neither Arrow nor the join's hash table holds a model
        # name per extracted row (10 M of them at 100 M predictions)
        con.execute("CREATE OR REPLACE TEMP TABLE _model_ix AS SELECT model, "
                    "(row_number() OVER (ORDER BY model))::INTEGER AS mi FROM (SELECT DISTINCT model FROM _pairs)")
        con.register("_extracted", _extract_bulk(con, src, method, n_responses, progress))
    given = given_letter_sql("s.given", "q.multi")
    letter = f"CASE WHEN s.given IS NOT NULL THEN {given} " + (
        "ELSE e.letter " if extract else "ELSE s.letter " if pre else "") + "END"
    join_e = ("JOIN _model_ix x ON x.model = s.model LEFT JOIN _extracted e ON e._line = s._line AND e.mi = x.mi "
              if extract else "")
    method_expr = "coalesce(s.method, $m)" if "method" in src_cols else "$m"
    ok = letter_ok_sql("letter", "k", "multi")
    if source.shown:
        join_o, shown_cols, mapped = _orders_shown(con, src, source.shown_as_text, where)
    else:
        shown_cols, mapped, join_o = "", "written", ""
    sql = (
        f"SELECT *, {ok} AS ok FROM (SELECT *, {mapped} AS letter FROM ("
        f"  SELECT s.question_id, s.model, s.run, s.response, s.given, q.k, q.multi, {letter} AS written, "
        f"         {method_expr} AS src_method{shown_cols} "
        f"  FROM {src} s JOIN _bench_q q USING (question_id) {join_e}{join_o}))"
    )
    return _Rows(sql=sql, responses=n_responses, extracted=extract, shown=source.shown)


def _orders_shown(con, src: str, by_text: bool, where: str) -> tuple[str, str, str]:
    """Check every order shown in ``src`` (``_orders``: each distinct order
    with its permutation as item labels) and return the SQL that joins it
    (``join``), its columns (``cols``) and the written letter(s) read through
    it (``mapped``).  Refuses an order that is not a permutation of the
    item's options."""
    # Orders are few (24 for 4 options) unless given as texts: compute and
    # check each distinct (order, option count) once, then join.
    key_cols = "s.question_id, " if by_text else ""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _orders AS SELECT *, CASE WHEN {_is_perm_sql('perm_c', 'k')} "
        f"THEN perm_c END AS perm FROM (SELECT *, {_perm_sql('shown', 'k', 'texts' if by_text else None)} AS perm_c "
        f"FROM (SELECT DISTINCT {key_cols}s.shown, q.k{', q.texts' if by_text else ''} FROM {src} s "
        "JOIN _bench_q q USING (question_id) WHERE s.shown IS NOT NULL))")
    bad = one(
        con, "SELECT shown, k" + (", question_id" if by_text else "") + " FROM _orders WHERE perm IS NULL LIMIT 1"
    )
    if bad:
        cond = "s.shown = $shown" + (" AND s.question_id = $qid" if by_text else "")
        params = {"shown": bad[0]} | ({"qid": bad[2]} if by_text else {})
        line = one(con, f"SELECT min(_line) FROM {src} s WHERE {cond}", params)[0]
        raise InputError(f"options_shown is not an order of the item's {bad[1]} options: {bad[0]}",
                         path=where, line=int(line))
    join_o = ("LEFT JOIN _orders o ON o.shown = s.shown AND o.k = q.k"
              + (" AND o.question_id = s.question_id " if by_text else " "))
    shown_cols = ", s.shown, o.perm"
    # the written letter(s) read through the order shown (a set stays sorted)
    mapped = ("CASE WHEN perm IS NULL OR written IS NULL THEN written "
              f"WHEN length(written) = 1 THEN substr(perm, instr('{LABEL_STRING}', written), 1) "
              "ELSE array_to_string(list_sort(list_transform(string_split(written, ''), "
              f"lambda c: substr(perm, instr('{LABEL_STRING}', c), 1))), '') END")
    return join_o, shown_cols, mapped


def _extract_bulk(con, src: str, method: str, total: int, progress: bool | None) -> pa.Table:
    """Extract letters from the raw responses of ``src`` (rows without a given
    letter).  Responses are streamed from DuckDB in record batches (memory
    stays bounded however long they are), extracted in bulk per option count
    with :func:`audit.ingest.extract.extract_answers` in this one thread, and
    returned as a compact Arrow table (_line, mi = the model's number in
    ``_model_ix``, letter) to join back in SQL."""
    parts: list[pa.Table] = []
    reader = con.sql(
        f"SELECT s._line::BIGINT AS _line, x.mi, s.response, "
        f"CASE WHEN q.multi THEN -q.k ELSE q.k END FROM {src} s "
        "JOIN _bench_q q USING (question_id) JOIN _model_ix x ON x.model = s.model "
        "WHERE s.given IS NULL AND s.response IS NOT NULL").to_arrow_reader(50_000)
    with tqdm(total=total, desc=f"extracting answers ({method})", unit=" responses", unit_scale=True,
              disable=(not progress) if progress is not None else None, leave=False) as bar:
        for batch in reader:
            texts = batch.column(2).to_pylist()
            ks = batch.column(3).to_pylist()
            out: list[str | None] = [None] * len(texts)
            groups: dict[int, list[int]] = defaultdict(list)
            for i, k in enumerate(ks):
                if k is not None and MIN_OPTIONS <= abs(k) <= MAX_OPTIONS:  # negative k: a multi-answer item
                    groups[k].append(i)
            for k, idx in groups.items():
                fn = extract_answer_sets if k < 0 else extract_answers
                for i, letter in zip(idx, fn([texts[i] for i in idx], abs(k), method)):
                    out[i] = letter
            # the key columns stay Arrow (no Python object per row survives the
            # batch): 10 M extracted rows cost a few hundred MB, not gigabytes
            parts.append(pa.table({"_line": batch.column(0), "mi": batch.column(1),
                                   "letter": pa.array(out, pa.string())}))
            del texts, ks, out
            bar.update(batch.num_rows)
    schema = pa.schema([("_line", pa.int64()), ("mi", pa.int32()), ("letter", pa.string())])
    return pa.concat_tables(parts).cast(schema) if parts else schema.empty_table()


def _perm_sql(shown: str, k: str, texts: str | None) -> str:
    """SQL for the order shown, as item labels in shown order ('CADB'), or
    NULL when ``shown`` is not a permutation of the item's k options.
    Accepts letters ("CADB", "C,A,D,B", '["C","A","D","B"]'), 0-based
    indexes ('[2,0,3,1]') and, when ``texts`` (the item's normalised option
    texts) is given, a JSON list of the option texts as shown."""
    as_letters = f"upper(regexp_replace({shown}, '[\\s,;\\[\\]\"]', '', 'g'))"
    as_index = (f"array_to_string(list_transform(string_split(regexp_replace({shown}, '[\\s\\[\\]]', '', 'g'), ','), "
                "lambda x: chr(65 + x::INTEGER)), '')")
    letters_rx = ('[A-Ja-j]{2,10}|[A-Ja-j](\\s*[,;]\\s*[A-Ja-j])+|'
                  '\\[\\s*"[A-Ja-j]"(\\s*,\\s*"[A-Ja-j]")*\\s*\\]')
    cand = (f"CASE WHEN regexp_full_match(trim({shown}), '{letters_rx}') THEN {as_letters} "
            f"WHEN regexp_full_match({shown}, '\\[[\\s0-9,]+\\]') THEN {as_index} ")
    if texts is not None:
        cand += (f"WHEN starts_with({shown}, '[') THEN array_to_string(list_transform("
                 f"CAST(json_extract_string(try_cast({shown} AS JSON), '$[*]') AS VARCHAR[]), "
                 f"lambda x: coalesce(chr(64 + nullif(list_position({texts}, nfc_normalize(trim(x))), 0)), '?')), '') ")
    return cand + "END"


def _is_perm_sql(c: str, k: str) -> str:
    """SQL: ``c`` holds each of the first ``k`` labels exactly once (length k
    and contains every one of them; plain string tests, cheap at 10 M rows)."""
    return (f"(length({c}) = {k} AND " + " AND ".join(
        f"({k} < {i + 1} OR contains({c}, '{label}'))" for i, label in enumerate(LABEL_STRING)) + ")")


# --- write: replace the earlier rows of the same (model, run) pairs --------------------------------------------

def _write(con, benchmark: str, source: _Source, rows: _Rows, method: str, where: str) -> int:
    """Delete the benchmark's earlier predictions (and letters as written) of
    the source's (model, run) pairs, insert ``rows`` (an invalid given cell
    kept as the response), and, when orders were shown, the letters as
    written with their order.  Returns how many earlier rows were replaced.
    The stored response has the values of this process's secret environment
    variables replaced by ``***`` (:func:`audit._util.redact.redact_sql`), as
    a live run stores its replies: a file may echo the key in use."""
    replaced = one(con,
        "SELECT count(*) FROM predictions p SEMI JOIN _pairs USING (model, run) WHERE p.benchmark = ?", [benchmark]
    )[0]
    if replaced:
        con.execute("DELETE FROM predictions WHERE benchmark = ? AND (model, run) IN (SELECT (model, run) FROM _pairs)",
                    [benchmark])
    con.execute(
        "DELETE FROM prediction_written WHERE benchmark = ? AND (model, run) IN (SELECT (model, run) FROM _pairs)",
        [benchmark],
    )
    response_sql = redact_sql(
        "CASE WHEN response IS NULL AND given IS NOT NULL AND NOT ok THEN given ELSE response END"
    )
    try:
        con.execute(
            "INSERT INTO predictions (benchmark, question_id, model, run, response, answer, method, valid) "
            "SELECT $b, question_id, model, run, "
            f"  {response_sql}, "
            "  CASE WHEN ok THEN letter END, "
            "  CASE WHEN given IS NULL AND response IS NOT NULL THEN src_method ELSE 'given' END, ok "
            f"FROM ({rows.sql})",
            {"b": benchmark, "m": method},
        )
        if rows.shown:
            # the letter as written, with the order it was read through (a
            # second, narrow pass: cheaper than materialising every row)
            # (every order is valid here, so each distinct order has one
            # permutation and no item lookup is needed; the written letter is
            # the cell as given, or the letter extracted from the response)
            okey = "question_id, shown" if source.shown_as_text else "shown"
            join_e2 = ("JOIN _model_ix x ON x.model = s.model "
                       "LEFT JOIN _extracted e ON e._line = s._line AND e.mi = x.mi " if rows.extracted else "")
            written = "coalesce(s.given, e.letter)" if rows.extracted else "s.given"
            con.execute(
                "INSERT INTO prediction_written (benchmark, question_id, model, run, written, shown_order) "
                f"SELECT $b, s.question_id, s.model, s.run, {written}, o.perm "
                f"FROM {source.view} s JOIN (SELECT DISTINCT {okey}, perm FROM _orders) o USING ({okey}) {join_e2}",
                {"b": benchmark})
    except duckdb.Error as exc:
        msg = str(exc).splitlines()[0]
        raise InputError(f"could not store the predictions: {msg}", path=where) from None
    return replaced
