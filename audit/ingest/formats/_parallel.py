"""``audit import parallel``: link questions to their counterpart in another
language version (e.g. TLUE's Tibetan items ↔ the Chinese CMMLU rows they were
translated from) and compare the keys.

Input: CMMLU-style ``<subject>.csv`` files (a folder or one file): first
column = the row index in the source test file, ``Question``, ``A``…``D``
(up to ``F``), ``Answer``.  Row ``7`` of ``agronomy.csv`` is linked to question
``agronomy7`` of the benchmark (TLUE's ``loc`` = subject + row index).  Rows
whose question is not in the benchmark are counted and skipped (a full
source test set may be given); at least one row must link.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from audit._util.files import nfc, read_table, require_columns
from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest._duck import one
from audit.ingest.storing import _OPTION_TYPE
from audit.options import LATIN_LABELS, normalize_label
from audit.store import DbPath, connect, transaction

_LANGUAGE = {"cmmlu": "zh-Hans", "mmlu": "en"}


@dataclass
class ParallelImportSummary:
    benchmark: str
    source: str
    links: int
    mismatches: int
    unmatched_rows: int
    mismatch_ids: list[str] = field(default_factory=list)
    without_key: int = 0   # counterparts with an empty Answer: not compared (key_match NULL)

    def __str__(self) -> str:
        s = (f"linked {self.links:,} questions of '{self.benchmark}' to {self.source}: "
             f"{self.mismatches} key mismatch(es)")
        if self.mismatch_ids:
            s += " (" + ", ".join(self.mismatch_ids[:10]) + (", …" if len(self.mismatch_ids) > 10 else "") + ")"
        if self.without_key:
            s += f"; {self.without_key:,} counterpart(s) have no key (empty Answer) and were not compared"
        if self.unmatched_rows:
            s += f"; {self.unmatched_rows:,} rows had no question in the benchmark"
        return s


def import_parallel(path: str | os.PathLike, *, benchmark: str = "tlue", source: str = "cmmlu", db: DbPath = None,
                    language: str | None = None, actor=None) -> ParallelImportSummary:
    """Store the counterpart text, options and key of each linked question in
    ``parallel_links`` with ``key_match``.  Re-importing the same source
    replaces its links.  All-or-nothing, in one transaction.

    ``language`` of the counterpart defaults to zh-Hans for cmmlu, en for mmlu."""
    p = Path(path)
    if not p.exists():
        raise InputError("not found", path=p)
    files = [p] if p.is_file() else sorted(p.glob("*.csv"))
    if not files:
        raise InputError("no <subject>.csv files in this folder", path=p)
    rec: dict[str, list] = {k: [] for k in ("question_id", "counterpart_id", "stem", "options", "key", "file", "line")}
    for f in files:
        subject = f.stem
        df = read_table(f)
        cols = [c for c in df.columns if c != "_line"]
        require_columns(df, ["Question", "A", "B", "Answer"], f)
        index_col = cols[0]
        if index_col in ("Question", "A"):
            raise InputError("the first column must be the row index of the source file", path=f)
        opt_cols = [c for c in LATIN_LABELS if c in cols]
        seen: dict[str, int] = {}
        for r in df.to_dict("records"):
            line = int(r["_line"])
            idx = str(r[index_col]).strip()
            if not idx.isdigit():
                raise InputError(f"row index '{idx}' in the first column is not a number", path=f, line=line)
            idx = str(int(idx))
            if idx in seen:
                raise InputError(f"row index {idx} repeats line {seen[idx]}", path=f, line=line)
            seen[idx] = line
            texts = [str(r[c]) for c in opt_cols]
            while texts and not texts[-1].strip():
                texts.pop()
            raw_key = str(r["Answer"]).strip()
            key = normalize_label(raw_key) or (raw_key or None)
            rec["question_id"].append(nfc(f"{subject}{idx}"))
            rec["counterpart_id"].append(f"{f.name}:{idx}")
            rec["stem"].append(nfc(str(r["Question"])).strip())
            rec["options"].append([{"label": LATIN_LABELS[i], "text": nfc(t).strip()} for i, t in enumerate(texts)])
            rec["key"].append(key)
            rec["file"].append(f.name)
            rec["line"].append(line)
    table = pa.table({
        "question_id": pa.array(rec["question_id"], pa.string()),
        "counterpart_id": pa.array(rec["counterpart_id"], pa.string()),
        "stem": pa.array(rec["stem"], pa.string()),
        "options": pa.array(rec["options"], _OPTION_TYPE),
        "key": pa.array(rec["key"], pa.string()),
    })
    lang = language or _LANGUAGE.get(source.lower())
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "linking parallel questions")
        if not one(con, "SELECT count(*) FROM questions WHERE benchmark = ?", [benchmark])[0]:
            raise InputError(f"benchmark '{benchmark}' has no questions; import them first (e.g. audit import tlue)")
        con.register("_par_in", table)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _par AS SELECT i.*, q.answer_key, "
            "CASE WHEN i.key IS NULL THEN NULL ELSE coalesce(i.key = q.answer_key, false) END AS key_match "
            "FROM _par_in i JOIN questions q ON q.benchmark = ? AND q.question_id = i.question_id", [benchmark])
        links, mismatches, no_key = one(
            con, "SELECT count(*), count(*) FILTER (NOT key_match), count(*) FILTER (key_match IS NULL) FROM _par")
        if links == 0:
            raise InputError(f"no row matches a question of '{benchmark}' (row 7 of agronomy.csv links to question "
                             f"'agronomy7'); is this the right benchmark?", path=p)
        mismatch_ids = [r[0] for r in con.execute(
            "SELECT question_id FROM _par WHERE NOT key_match ORDER BY question_id").fetchall()]
        con.execute("DELETE FROM parallel_links WHERE benchmark = ? AND counterpart_source = ?", [benchmark, source])
        con.execute(
            "INSERT INTO parallel_links (benchmark, question_id, counterpart_source, counterpart_id, "
            "counterpart_language, counterpart_stem, counterpart_options, counterpart_key, key_match) "
            "SELECT ?, question_id, ?, counterpart_id, ?, stem, options, key, key_match FROM _par",
            [benchmark, source, lang])
        unregister(con, "_par_in")
    return ParallelImportSummary(benchmark=benchmark, source=source, links=links, mismatches=mismatches,
                                 unmatched_rows=len(rec["question_id"]) - links, mismatch_ids=mismatch_ids,
                                 without_key=no_key)
