"""``audit import predictions --in-place``: register a Parquet file, folder or
glob — local, ``s3://…`` or ``hf://…`` — as a prediction source of a
benchmark, read where it is instead of copied.

The files hold the long layout with *given letters*: ``question_id``,
``model`` (or ``--model``), ``answer`` (the letter; Tibetan ཀ ཁ ག ང and
lower case are read as A–D, a multi-answer item takes a set such as
"A D"), optional ``run`` and ``response``; other columns are ignored and
``--map`` renames.  Raw responses are not extracted in place (that is
Python work per row): import such a file by copy.

Registration validates like a copying import — question ids the benchmark
has, one row per (question, model, run), no model without any answer, no
(model, run) that is already stored or registered for the benchmark —
then records the source (URI, mapping, files, their fingerprint, rows,
valid rows, models, the time) in ``prediction_sources``, all or nothing.
From then on every reader sees the rows through ``all_predictions``
(:mod:`audit.store.sources`), with the letters normalised and checked
against the item's options exactly as a copying import stores them.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

from audit._util.sql import sql_ident, sql_str
from audit.accounts import require_role
from audit.errors import InputError, NotFoundError
from audit.ingest._duck import one
from audit.ingest._predictions import _require_questions, _run_sql, given_letter_sql, letter_ok_sql
from audit.ingest.models import register_models
from audit.store import DbPath, connect, transaction
from audit.store.sources import (
    SourceListing,
    list_source,
    normalize_uri,
    parquet_scan_sql,
    register_filesystem,
    remember_listing,
)

_KNOWN = ("question_id", "model", "run", "answer", "response")


@dataclass
class InPlaceSummary:
    """What a registration recorded."""

    benchmark: str
    uri: str
    files: int
    predictions: int
    valid: int
    models: list[str]
    fingerprint: str
    refreshed: bool = False
    seconds: float = 0.0
    forgotten: bool = False
    ignored_columns: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        if self.forgotten:
            return f"forgot the in-place prediction source {self.uri} of '{self.benchmark}' (its files are untouched)"
        s = (f"{'refreshed' if self.refreshed else 'registered'} {self.uri} as an in-place prediction source of "
             f"'{self.benchmark}': {self.files} Parquet file(s), {self.predictions:,} predictions of "
             f"{len(self.models)} model(s), {self.valid:,} valid, {self.predictions - self.valid:,} invalid; "
             f"read in place, not copied (fingerprint {self.fingerprint[:12]})")
        if self.ignored_columns:
            s += f"; ignored column(s): {', '.join(self.ignored_columns)}"
        return s + f" [{self.seconds:.1f} s]"


def register_predictions_in_place(
    source: str | os.PathLike,
    *,
    benchmark: str,
    model: str | None = None,
    run: str | None = None,
    mapping: dict[str, str] | None = None,
    refresh: bool = False,
    forget: bool = False,
    db: DbPath = None,
    actor=None,
) -> InPlaceSummary:
    """Register *source* (a Parquet file, a folder of them, or a glob; a
    local path, ``s3://bucket/prefix`` or ``hf://datasets/org/name/path``)
    as predictions of ``benchmark`` read in place.  Credentials come from
    the environment only.  ``refresh`` re-registers a source already
    registered (same mapping, model and run; new fingerprint) after its
    files changed; ``forget`` drops the registration.  Refused with one
    line, nothing recorded, on bad input (see the module docstring).

    >>> import tempfile, pathlib, pyarrow as pa, pyarrow.parquet as pq
    >>> from audit.ingest._questions import import_questions
    >>> from audit.store import connect
    >>> d = pathlib.Path(tempfile.mkdtemp()); db = d / "x.duckdb"
    >>> _ = (d / "q.csv").write_text("id,question,A,B,answer\\nq1,1+1?,2,3,A\\nq2,2+2?,4,5,A\\n")
    >>> _ = import_questions(d / "q.csv", benchmark="toy", db=db)
    >>> pq.write_table(pa.table({"question_id": ["q1", "q2"], "model": ["m", "m"], "answer": ["a", "Z"]}),
    ...                d / "p.parquet")
    >>> s = register_predictions_in_place(d / "p.parquet", benchmark="toy", db=db)
    >>> (s.files, s.predictions, s.valid, s.models)
    (1, 2, 1, ['m'])
    >>> with connect(db, read_only=True) as con:
    ...     con.sql("SELECT question_id, answer, valid FROM all_predictions ORDER BY 1").fetchall()
    [('q1', 'A', True), ('q2', None, False)]
    """
    t0 = time.perf_counter()
    if refresh and forget:
        raise InputError("--refresh and --forget ask for opposite things: pass one of them")
    uri = normalize_uri(source)
    if refresh or forget:
        with connect(db, read_only=True) as con:
            row = con.execute("SELECT mapping::VARCHAR, model, run, models FROM prediction_sources "
                              "WHERE benchmark = ? AND uri = ?", [benchmark, uri]).fetchall()
        if not row:
            raise NotFoundError(f"no in-place prediction source {uri} registered for benchmark '{benchmark}'")
        if forget:
            with connect(db) as con, transaction(con):
                require_role(con, actor, "lead", "forgetting a prediction source")
                con.execute("DELETE FROM prediction_sources WHERE benchmark = ? AND uri = ?", [benchmark, uri])
            return InPlaceSummary(benchmark, uri, 0, 0, 0, list(row[0][3]), "", forgotten=True)
        mapping = json.loads(row[0][0]) if row[0][0] else None
        model, run = row[0][1], row[0][2]
    listing = list_source(uri)   # the network, before taking the database
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "registering a prediction source")
        _require_questions(con, benchmark)
        if not refresh and one(con, "SELECT 1 FROM prediction_sources WHERE benchmark = ? AND uri = ?",
                               [benchmark, uri]):
            raise InputError(f"{uri} is already registered for benchmark '{benchmark}'; pass --refresh to "
                             "re-register it")
        register_filesystem(con, listing.protocol)
        src, ignored = _source_sql(con, listing, model=model, run=run, mapping=mapping)
        con.execute(f"CREATE OR REPLACE TEMP VIEW _ip_src AS {src}")
        models = _validate(con, benchmark, uri)
        relation = relation_sql(benchmark, src)
        n, n_valid = one(con, f"SELECT count(*), count(*) FILTER (valid) FROM ({relation})")
        con.execute("DELETE FROM prediction_sources WHERE benchmark = ? AND uri = ?", [benchmark, uri])
        con.execute(
            "INSERT INTO prediction_sources (benchmark, uri, protocol, mapping, model, run, files, listing, revision, "
            "fingerprint, n_rows, n_valid, models, relation_sql) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [benchmark, uri, listing.protocol, json.dumps(mapping) if mapping else None, model, run,
             list(listing.files), listing.listing_json(), listing.revision,
             listing.fingerprint, n, n_valid, models, relation])
        register_models(con, models)
        con.execute("DROP VIEW _ip_src")
    remember_listing(listing)
    return InPlaceSummary(benchmark, uri, len(listing.files), int(n), int(n_valid), models, listing.fingerprint,
                          refreshed=refresh, seconds=time.perf_counter() - t0, ignored_columns=ignored)


def _source_sql(con, listing: SourceListing, *, model: str | None, run: str | None,
                mapping: dict[str, str] | None) -> tuple[str, list[str]]:
    """SELECT over the files giving question_id, model, run, response,
    given, _file, _row (the mapping applied); and the ignored columns."""
    scan = parquet_scan_sql(listing.files, union_by_name=True)
    try:
        schema = con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()
        if len(listing.files) > 1:   # the same columns in every file: bind by the first footer only
            first = con.execute(f"DESCRIBE SELECT * FROM {parquet_scan_sql(listing.files[:1])}").fetchall()
            if [r[:2] for r in first] == [r[:2] for r in schema]:
                scan = parquet_scan_sql(listing.files)
        else:
            scan = parquet_scan_sql(listing.files)
    except Exception as exc:
        raise InputError(f"cannot read the Parquet files: {(str(exc).strip().splitlines() or ['?'])[0]}",
                         path=listing.uri) from None
    cols = [r[0] for r in schema]
    cols = [c for c in cols if c not in ("filename", "file_row_number")]
    expr = {c: sql_ident(c) for c in cols}
    for src, target in (mapping or {}).items():
        head, _, rest = src.partition(".")
        if src in cols:
            e = sql_ident(src)
        elif rest and head in cols:
            e = sql_ident(head) + "".join(f".{sql_ident(x)}" for x in rest.split("."))
        else:
            raise InputError(f"mapped field '{src}' is not in the files (fields: {', '.join(cols)})", path=listing.uri)
        expr.pop(src if src in cols else head, None)
        if target:
            expr[target] = e
    missing = [c for c in ("question_id",) if c not in expr]
    if "model" not in expr and not model:
        missing.append("model (or pass --model)")
    if "answer" not in expr:
        missing.append("answer (given letters: raw responses are extracted only by a copying import, "
                       "without --in-place)")
    if missing:
        raise InputError(f"missing required column(s): {', '.join(missing)} (found: {', '.join(cols)})",
                         path=listing.uri)
    model_expr = f"nullif(trim({expr['model']}::VARCHAR), '')" if "model" in expr else sql_str(model.strip())
    if "model" in expr and model:
        model_expr = f"coalesce({model_expr}, {sql_str(model.strip())})"
    run_expr = (f"coalesce(nullif(trim({expr['run']}::VARCHAR), ''), {_run_sql(run)})" if "run" in expr
                else _run_sql(run))
    resp = f"nullif({expr['response']}::VARCHAR, '')" if "response" in expr else "NULL::VARCHAR"
    sql = (f"SELECT nullif(nfc_normalize(trim({expr['question_id']}::VARCHAR)), '') AS question_id, "
           f"{model_expr} AS model, {run_expr} AS run, {resp} AS response, "
           f"nullif(trim({expr['answer']}::VARCHAR), '') AS given, filename AS _file, file_row_number AS _row "
           f"FROM {scan}")
    return sql, sorted(c for c in expr if c not in _KNOWN)


def relation_sql(benchmark: str, src: str) -> str:
    """The source's rows as ``predictions`` rows: the given letter
    normalised (as a copying import does), checked against the item's
    options (invalid: answer NULL, the cell kept in ``response``), method
    'given'."""
    given = given_letter_sql("s.given", "q.multi")
    ok = letter_ok_sql("letter", "k", "multi")
    return (
        f"SELECT {sql_str(benchmark)} AS benchmark, question_id, model, run, "
        "CASE WHEN response IS NULL AND given IS NOT NULL AND NOT ok THEN given ELSE response END AS response, "
        "CASE WHEN ok THEN letter END AS answer, 'given' AS method, ok AS valid "
        f"FROM (SELECT *, {ok} AS ok FROM ("
        f"SELECT s.question_id, s.model, s.run, s.response, s.given, q.k, q.multi, {given} AS letter "
        f"FROM ({src}) s JOIN (SELECT question_id, len(options) AS k, "
        "coalesce(list_contains(flags, 'multi_answer'), false) AS multi FROM main.questions "
        f"WHERE benchmark = {sql_str(benchmark)}) q USING (question_id)))"
    )


def _validate(con, benchmark: str, uri: str) -> list[str]:
    """The checks of a copying import, over the files in place (``_ip_src``):
    one aggregate pass per (model, run) — rows, rows of unknown or empty
    question ids, distinct questions (a bitmap over question indexes),
    filled answers; the offending file and row are looked up only when a
    check fails.  Returns the models."""
    def at(row) -> dict:
        return {"path": row[0], "line": int(row[1]) + 1}

    con.execute("CREATE OR REPLACE TEMP TABLE _ip_q AS SELECT question_id, (row_number() OVER () - 1)::INTEGER AS qi "
                "FROM questions WHERE benchmark = ?", [benchmark])
    n_q = one(con, "SELECT count(*) FROM _ip_q")[0]
    stats = con.execute(
        "SELECT model, run, count(*) AS n, count(*) FILTER (s.question_id IS NULL) AS no_id, "
        "count(*) FILTER (s.question_id IS NOT NULL AND q.qi IS NULL) AS unknown, count(q.qi) AS known, "
        f"coalesce(bit_count(bitstring_agg(q.qi, 0, {max(n_q - 1, 0)})), 0) AS distinct_q, count(s.given) AS filled "
        "FROM _ip_src s LEFT JOIN _ip_q q USING (question_id) GROUP BY model, run ORDER BY model, run").fetchall()
    if not stats:
        raise InputError("the Parquet files hold no row", path=uri)
    if any(no_id for _, _, _, no_id, _, _, _, _ in stats):
        bad = one(con, "SELECT _file, _row FROM _ip_src WHERE question_id IS NULL ORDER BY _file, _row LIMIT 1")
        raise InputError("empty question_id (row numbers count from 1)", **at(bad))
    if any(m is None for m, *_ in stats):
        bad = one(con, "SELECT _file, _row FROM _ip_src WHERE model IS NULL ORDER BY _file, _row LIMIT 1")
        raise InputError("empty model name (row numbers count from 1)", **at(bad))
    n_unknown = sum(u for _, _, _, _, u, _, _, _ in stats)
    if n_unknown:
        ex = con.execute("SELECT question_id, _file, _row FROM _ip_src s ANTI JOIN _ip_q q USING (question_id) "
                         "ORDER BY _file, _row LIMIT 5").fetchall()
        eg = ", ".join(f"'{q}'" for q, _, _ in ex)
        raise InputError(f"{n_unknown:,} prediction(s) for question ids that benchmark '{benchmark}' does not "
                         f"have (e.g. {eg}); nothing was registered", path=ex[0][1], line=int(ex[0][2]) + 1)
    if any(known != d for _, _, _, _, _, known, d, _ in stats):
        dup = one(con, "SELECT question_id, model, run, min(_file), min(_row) FROM _ip_src "
                       "GROUP BY question_id, model, run HAVING count(*) > 1 ORDER BY 4, 5 LIMIT 1")
        raise InputError(f"more than one prediction for question '{dup[0]}', model '{dup[1]}', run '{dup[2]}'",
                         path=dup[3], line=int(dup[4]) + 1)
    filled: dict[str, int] = {}
    for m, _, _, _, _, _, _, f in stats:
        filled[m] = filled.get(m, 0) + f
    empty = sorted(m for m, f in filled.items() if f == 0)
    if empty:
        raise InputError(f"model(s) {', '.join(repr(m) for m in empty)} entirely empty (no answer in any row)",
                         path=uri)
    clash = one(con, "SELECT s.model, s.run FROM (SELECT unnest(?::VARCHAR[]) AS model, unnest(?::VARCHAR[]) AS run) s "
                     "SEMI JOIN (SELECT DISTINCT model, run FROM predictions WHERE benchmark = ?) p USING (model, run) "
                     "ORDER BY 1, 2 LIMIT 1", [[m for m, *_ in stats], [r for _, r, *_ in stats], benchmark])
    if clash:
        raise InputError(f"model '{clash[0]}' run '{clash[1]}' already has predictions stored for '{benchmark}'; "
                         "give these another --run, or delete the stored ones first", path=uri)
    models = sorted(filled)
    other = one(con, "SELECT uri, m FROM (SELECT uri, unnest(models) AS m FROM prediction_sources "
                     "WHERE benchmark = ? AND uri <> ?) o WHERE list_contains(?, o.m) ORDER BY 1, 2 LIMIT 1",
                [benchmark, uri, models])
    if other:
        raise InputError(f"model '{other[1]}' already comes from the in-place source {other[0]} of '{benchmark}'",
                         path=uri)
    con.execute("DROP TABLE _ip_q")
    return models
