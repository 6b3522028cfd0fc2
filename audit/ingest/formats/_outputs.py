"""Model outputs that carry their question instead of an id, linked to the
benchmark's items by text (TUMLU's ``outputs/<setting>/[<org>/]<model>/<subject>.json``).

Each file is a JSON array (or JSONL) of records with ``question``,
``choices`` (the options *in the order shown to that model*), ``output``
(or ``response``: the raw reply) and optionally ``answer`` (the key's letter
in that shown order).  Nothing in a record names the item, so:

* **Linking.**  A record is linked to the item whose stem equals its
  ``question`` after Unicode NFC and whitespace normalisation (runs of
  white space become one space, ends trimmed) *and* whose options are the
  same set of texts (so two items with the same stem are told apart by
  their options).  When several items are identical (a subject file that
  holds an item twice) and the model's records of that question are as
  many, they are linked in order of appearance: the first record (by file
  and line) to the item that comes first, and so on.  A record that
  matches no item, or several otherwise, is *unmatched*; so is one whose
  item has two options with the same text (the order shown cannot be
  mapped back).  Unmatched records refuse the import
  (nothing written), naming the first ones, unless ``skip_unmatched``: then
  they are skipped and counted in the summary, never silently.
* **Order shown.**  Each record's ``choices`` become ``options_shown`` (the
  item's labels in shown order, ``"CADB"``), so the letter the model wrote
  is read against what it saw and stored as the item's label
  (:mod:`audit.ingest._predictions`).
* **Key as shown.**  ``answer`` mapped back through the same order is
  compared with the stored key; disagreements are counted and listed (the
  file's key is not imported: the stored key is the benchmark's).
* **Model and run.**  The model's name is the folder path of the file under
  the folder imported (``<org>/<model>``, or ``<model>``), unless ``model``
  is given; the run is the name of the folder imported (the setting, e.g.
  ``zero-shot``), or ``default`` for a single file.

The raw outputs are extracted like any long predictions file (method
``final`` by default).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from audit._util.files import read_jsonl
from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest._duck import one
from audit.ingest._predictions import PredictionImportSummary, store_predictions
from audit.ingest.extract import DEFAULT_METHOD
from audit.options import LABEL_STRING, MAX_OPTIONS, MIN_OPTIONS
from audit.store import DbPath, connect, transaction

OUTPUT_FIELDS = ("output", "response")


def norm_text_sql(x: str) -> str:
    """SQL: NFC, white space runs as one space, trimmed."""
    return f"trim(regexp_replace(nfc_normalize({x}), '\\s+', ' ', 'g'))"


@dataclass
class OutputsImportSummary:
    """What :func:`import_outputs` linked and stored.  ``unmatched`` maps a
    reason (``no item``, ``several items``, ``duplicate options``) to the
    records (``file:line``) skipped for it."""

    benchmark: str
    path: str
    files: int
    records: int
    linked: int
    models: list[str]
    predictions: PredictionImportSummary | None = None
    unmatched: dict[str, list[str]] = field(default_factory=dict)
    key_checked: int = 0
    key_mismatches: list[str] = field(default_factory=list)   # "file:line (item q: shown X → B, stored C)"
    in_order: list[str] = field(default_factory=list)   # items identical to others, linked in order of appearance

    def __str__(self) -> str:
        s = (f"linked {self.linked:,} of {self.records:,} output records from {self.files} file(s) to "
             f"'{self.benchmark}' by their question text ({len(self.models)} model(s))")
        if self.in_order:
            ids = ", ".join(f"'{q}'" for q in self.in_order[:6]) + (" …" if len(self.in_order) > 6 else "")
            s += (f"; linked {len(self.in_order):,} output records to {len(self.in_order):,} identical items in "
                  f"order of appearance ({ids})")
        for reason, recs in sorted(self.unmatched.items()):
            s += f"; skipped {len(recs):,} with {reason} (e.g. {', '.join(recs[:3])})"
        if self.key_checked:
            s += (f"; key as shown agrees with the stored key on {self.key_checked - len(self.key_mismatches):,} "
                  f"of {self.key_checked:,}")
            if self.key_mismatches:
                s += f" (differs: {'; '.join(self.key_mismatches[:3])})"
        if self.predictions is not None:
            s += f"\n{self.predictions}"
        return s


def output_files(path: Path) -> list[Path]:
    """The output files under *path* (``.json``/``.jsonl``, sorted), or [path]."""
    if not path.is_dir():
        return [path]
    files = sorted(f for f in path.rglob("*") if f.is_file() and f.suffix.lower() in (".json", ".jsonl")
                   and not f.name.startswith("."))
    if not files:
        raise InputError("no .json or .jsonl output file in this folder", path=path)
    return files


def _model_of(f: Path, root: Path) -> str:
    if root.is_dir() and f.parent != root:
        return f.parent.relative_to(root).as_posix()
    return f.parent.name


def import_outputs(path: str | os.PathLike, *, benchmark: str, db: DbPath = None, model: str | None = None,
                   run: str | None = None, method: str = DEFAULT_METHOD, skip_unmatched: bool = False,
                   progress: bool | None = None, actor=None) -> OutputsImportSummary:
    """Import model outputs that carry their question text (see the module
    docstring): link each record to its item by text, map the order shown
    back, check the key as shown, store the predictions.  All-or-nothing.

    >>> import json, tempfile, pathlib
    >>> from audit.ingest._questions import import_questions
    >>> d = pathlib.Path(tempfile.mkdtemp()); db = d / "x.duckdb"
    >>> _ = (d / "q.csv").write_text("id,question,A,B,C,answer\\nq1,Capital of France?,Rome,Paris,Oslo,B\\n")
    >>> _ = import_questions(d / "q.csv", benchmark="geo", db=db)
    >>> (d / "zero-shot" / "acme" / "m1").mkdir(parents=True)
    >>> _ = (d / "zero-shot/acme/m1/geo.json").write_text(json.dumps([{"question": "Capital of  France?",
    ...     "choices": ["Paris", "Oslo", "Rome"], "output": "A) Paris", "answer": "A"}]))
    >>> s = import_outputs(d / "zero-shot", benchmark="geo", db=db)
    >>> s.linked, s.models, s.key_checked, s.key_mismatches
    (1, ['acme/m1'], 1, [])
    >>> import duckdb
    >>> duckdb.connect(str(db), read_only=True).sql("SELECT model, run, answer FROM predictions").fetchall()
    [('acme/m1', 'zero-shot', 'B')]
    """
    p = Path(path)
    if not p.exists():
        raise InputError("file or folder not found", path=p)
    files = output_files(p)
    run_name = (run or "").strip() or (p.name if p.is_dir() else "default")
    cols: dict[str, list] = {k: [] for k in ("rec", "file", "line", "model", "question", "choices", "output",
                                             "key_shown")}
    for fi, f in enumerate(files):
        name = (model or "").strip() or _model_of(f, p)
        for line, rec in read_jsonl(f):
            q, choices = rec.get("question"), rec.get("choices")
            out = next((rec[k] for k in OUTPUT_FIELDS if k in rec), None)
            if not isinstance(q, str) or not q.strip():
                raise InputError("the record has no 'question' text", path=f, line=line)
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices) \
                    or not MIN_OPTIONS <= len(choices) <= MAX_OPTIONS:
                raise InputError(
                    f"'choices' must be a list of {MIN_OPTIONS}–{MAX_OPTIONS} option texts", path=f, line=line
                )
            if out is not None and not isinstance(out, str):
                raise InputError("'output' must be text", path=f, line=line)
            key = rec.get("answer")
            cols["rec"].append(len(cols["rec"]) + 1)
            cols["file"].append(fi)
            cols["line"].append(line)
            cols["model"].append(name)
            cols["question"].append(q)
            cols["choices"].append(choices)
            cols["output"].append(out)
            cols["key_shown"].append(key.strip().upper() if isinstance(key, str) and key.strip() else None)
    if not cols["rec"]:
        raise InputError("no output records", path=p)
    table = pa.table({
        "rec": pa.array(cols["rec"], pa.int64()), "file": pa.array(cols["file"], pa.int32()),
        "line": pa.array(cols["line"], pa.int64()), "model": pa.array(cols["model"], pa.string()),
        "question": pa.array(cols["question"], pa.string()),
        "choices": pa.array(cols["choices"], pa.list_(pa.string())),
        "output": pa.array(cols["output"], pa.string()), "key_shown": pa.array(cols["key_shown"], pa.string())})
    summary = OutputsImportSummary(benchmark=benchmark, path=str(p), files=len(files), records=len(cols["rec"]),
                                   linked=0, models=sorted(set(cols["model"])))

    def where(file_i: int, line: int) -> str:
        return f"{files[file_i]}:{line}"

    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing model outputs")
        if not one(con, "SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark])[0]:
            raise InputError(f"no benchmark named '{benchmark}': import its questions first", path=p)
        con.register("_outputs_arrow", table)
        try:
            con.execute(
                "CREATE OR REPLACE TEMP TABLE _out AS SELECT *, " + norm_text_sql("question") + " AS nq, "
                "list_transform(choices, lambda c: " + norm_text_sql("c") + ") AS nc FROM _outputs_arrow")
        finally:
            try:
                unregister(con, "_outputs_arrow")
            except duckdb.Error:   # a failed statement aborted the transaction; it is rolled back
                pass
        link_by_text(con, benchmark, in_order_by="model")
        summary.in_order = [r[0] for r in con.execute(
            "SELECT DISTINCT question_id FROM _link WHERE in_order ORDER BY 1").fetchall()]
        reasons = {"no item with this question and these options": "n_items = 0",
                   "several items with this question and these options": "n_items > 1",
                   "an item whose options repeat a text (order shown cannot be mapped)":
                       "n_items = 1 AND NOT distinct_opts"}
        for reason, cond in reasons.items():
            bad = con.execute(f"SELECT file, line FROM _link WHERE {cond} ORDER BY rec").fetchall()
            if bad:
                summary.unmatched[reason] = [where(f, ln) for f, ln in bad]
        n_bad = sum(len(v) for v in summary.unmatched.values())
        if n_bad and not skip_unmatched:
            reason, recs = next(iter(summary.unmatched.items()))
            raise InputError(
                f"{n_bad:,} of {summary.records:,} output records cannot be linked to one item of '{benchmark}' "
                f"by their question text ({reason}: {', '.join(recs[:3])}); nothing was imported "
                "(pass --skip-unmatched to skip and report them)", path=p)
        # the order shown, as the item's labels: shown position i holds item option perm[i]
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _ok AS SELECT *, array_to_string(list_transform(nc, "
            "lambda t: chr(64 + list_position(opts, t))), '') AS perm FROM _link WHERE n_items = 1 AND distinct_opts")
        summary.linked = one(con, "SELECT count(*) FROM _ok")[0]
        dup = one(con, "SELECT question_id, model, min(rec), max(rec) FROM _ok GROUP BY question_id, model "
                       "HAVING count(*) > 1 ORDER BY 3 LIMIT 1")
        if dup:
            a, b = (con.execute("SELECT file, line FROM _ok WHERE rec = ?", [r]).fetchone() for r in dup[2:])
            raise InputError(f"{where(*a)} and {where(*b)} both answer item '{dup[0]}' for model '{dup[1]}'; "
                             "import them as different runs (--run) or remove one", path=p)
        if not summary.linked:
            raise InputError(f"no output record links to an item of '{benchmark}'", path=p)
        checked = con.execute(
            "SELECT file, line, question_id, key_shown, "
            f"substr(perm, instr('{LABEL_STRING}', key_shown), 1) AS mapped, "
            "answer_key FROM _ok WHERE key_shown IS NOT NULL AND length(key_shown) = 1 "
            f"AND instr('{LABEL_STRING}', key_shown) BETWEEN 1 AND len(opts) ORDER BY rec"
        ).fetchall()
        summary.key_checked = len(checked)
        summary.key_mismatches = [f"{where(f, ln)} (item {q}: shown {k} → {m}, stored {a})"
                                  for f, ln, q, k, m, a in checked if m != a]
        con.execute(
            "CREATE OR REPLACE TEMP VIEW _outputs_src AS SELECT question_id, model, "
            f"'{run_name.replace(chr(39), chr(39) * 2)}' AS run, output AS response, NULL::VARCHAR AS given, "
            "perm AS shown, rec AS _line FROM _ok")
        summary.predictions = store_predictions(con, benchmark, "_outputs_src", p, method=method, layout="long",
                                                progress=progress)
        for t in ("_out", "_items", "_cand", "_link", "_ok"):
            con.execute(f"DROP TABLE IF EXISTS {t}")
        con.execute("DROP VIEW IF EXISTS _outputs_src")
    return summary


def link_by_text(con, benchmark: str, in_order_by: str | None = None) -> None:
    """Link records to items by text (the rule of the module docstring).

    Reads the temp table ``_out`` (``rec``, ``nq`` = the normalised question,
    ``nc`` = the normalised option texts) and creates ``_items`` and
    ``_link``: every ``_out`` row with ``question_id``, ``answer_key``,
    ``opts`` (the item's normalised option texts, in the item's order),
    ``n_items`` (how many items match: 1 when linked), ``distinct_opts`` and
    ``in_order`` (linked to one of several identical items by order).
    *in_order_by*: a column of ``_out`` (the model) within which records of
    identical items are linked in order of appearance (``rec`` order) when
    they are as many as the items; None leaves such records unmatched.
    Shared by :func:`import_outputs` and the detector-verdict importer
    (:mod:`audit.judge._detectors`).
    """
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _items AS SELECT question_id, answer_key, seq, " + norm_text_sql("stem")
        + " AS ns, [" + norm_text_sql("o.text") + " FOR o IN options] AS opts FROM questions WHERE benchmark = ?",
        [benchmark])
    # candidates: same stem and the same set of option texts
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _cand AS SELECT o.rec, i.question_id, i.answer_key, i.opts, i.seq "
        "FROM _out o JOIN _items i ON i.ns = o.nq AND list_sort(i.opts) = list_sort(o.nc)")
    # identical items: the k records of one model that fit the same k items, paired in order
    if in_order_by is not None:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _ordered AS "
            "WITH multi AS (SELECT rec, count(*) AS k FROM _cand GROUP BY rec HAVING count(*) > 1), "
            f"recs AS (SELECT o.rec, m.k, row_number() OVER (PARTITION BY o.{in_order_by}, o.nq, list_sort(o.nc) "
            "ORDER BY o.rec) AS r, "
            f"count(*) OVER (PARTITION BY o.{in_order_by}, o.nq, list_sort(o.nc)) AS n_recs "
            "FROM _out o JOIN multi m USING (rec)), "
            "cands AS (SELECT c.rec, c.question_id, c.answer_key, c.opts, "
            "row_number() OVER (PARTITION BY c.rec ORDER BY c.seq, c.question_id) AS r "
            "FROM _cand c SEMI JOIN multi USING (rec)) "
            "SELECT c.rec, c.question_id, c.answer_key, c.opts "
            "FROM recs JOIN cands c ON c.rec = recs.rec AND c.r = recs.r "
            "WHERE recs.n_recs = recs.k"
        )
    else:
        con.execute("CREATE OR REPLACE TEMP TABLE _ordered AS SELECT rec, question_id, answer_key, opts FROM _cand "
                    "WHERE false")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _link AS SELECT o.*, coalesce(c.question_id, d.question_id) AS question_id, "
        "coalesce(c.answer_key, d.answer_key) AS answer_key, coalesce(c.opts, d.opts) AS opts, "
        "CASE WHEN d.rec IS NOT NULL THEN 1 ELSE (SELECT count(*) FROM _cand c2 WHERE c2.rec = o.rec) END AS n_items, "
        "len(list_distinct(coalesce(c.opts, d.opts))) = len(coalesce(c.opts, d.opts)) AS distinct_opts, "
        "d.rec IS NOT NULL AS in_order "
        "FROM _out o LEFT JOIN (SELECT rec, question_id, answer_key, opts FROM _cand "
        "QUALIFY count(*) OVER (PARTITION BY rec) = 1) c USING (rec) "
        "LEFT JOIN _ordered d ON d.rec = o.rec")
    con.execute("DROP TABLE IF EXISTS _ordered")


__all__ = ["OutputsImportSummary", "import_outputs", "output_files", "link_by_text", "norm_text_sql"]
