"""Import published judge verdicts: the MMLU-Redux error detectors' CSVs and
a plain verdict table.

**MMLU-Redux detector CSVs** (Gema et al. 2024, ``outputs/retriever_evaluation``):
one file per judge run, named
``binary_mini_mmlu_groundtruth_correctness_<style>_<model>_<subject>_<corpus>.csv``
(``<style>`` = ``zeroshot``, ``zeroshot_cot`` or ``zeroshot_simple_prompt``),
with ``question``, ``choices``, ``model_answer`` (the detector's raw reply)
and ``predicted_error_type`` (``ok`` / ``notok``; ``invalidprediction``,
the detector's reply that held no verdict, is stored unparsed; any other
word refuses the file).  The run is named from the
file name: judge = ``<model>``, prompt version = ``<style>/<corpus>``; the
subject is not part of the run's name (one run covers all subjects).  Rows
carry no item id: they are linked to the benchmark's items by question text
and option set, with the importers' linking rule
(:func:`audit.ingest.formats.link_by_text`).  Stored per row:
``answer_key_correct = (predicted_error_type == 'ok')``, the raw
``model_answer`` as ``raw_reply``, and ``predicted_error_type`` in
``explanation`` (prefixed ``predicted_error_type=``).

**Plain verdict table** (CSV or JSONL): ``question_id, judge, key_correct``
and optionally ``correct_answer``, ``explanation`` and ``prompt_version``
(default ``imported``).  Each row is checked as ``import judge`` checks a
verdict: a ``correct_answer`` that is not one of the item's labels refuses
the import; a row that contradicts itself (``key_correct`` true with another
answer named) is stored unparsed with the reason.

All-or-nothing: a row whose question matches no item (or several) refuses
the import, naming its file and line, unless ``skip_unmatched`` (then it is
skipped and reported).  Importing the same file again changes nothing: a
file whose content (SHA-256) was already imported under the same run name is
skipped.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa

from audit._util.files import read_table
from audit._util.literals import LiteralRefused, parse_list_literal
from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest.formats import link_by_text
from audit.ingest.formats import norm_text_sql as _norm_sql
from audit.judge import _store as jstore
from audit.judge._parse import ReplyError, verdict_from_object
from audit.store import DbPath, connect, transaction

DETECTOR_COLUMNS = frozenset({"question", "choices", "model_answer", "predicted_error_type"})
PLAIN_COLUMNS = frozenset({"question_id", "judge", "key_correct"})
_NAME = re.compile(r"^(?:binary_)?(?:mini_mmlu_groundtruth_correctness_)?"
                   r"(zeroshot(?:_cot|_simple_prompt)?)_([^_]+)_(.+)_([^_]+)$")
_TRUE = {"true", "1", "yes", "ok", "correct"}
_FALSE = {"false", "0", "no", "notok", "wrong", "incorrect"}
#: The detectors' words: ``ok`` (the key is right), ``notok`` (it is wrong),
#: ``invalidprediction`` (the detector gave no verdict: stored unparsed).
#: Any other word is refused: "maybe" was read as "the key is wrong".
DETECTOR_VERDICTS = {"ok": True, "notok": False, "invalidprediction": None}
_SHOW = 3


def run_name(path: str | os.PathLike) -> tuple[str, str]:
    """(judge, prompt version) of a detector file, from its name.

    >>> run_name("binary_mini_mmlu_groundtruth_correctness_zeroshot_cot_gpt-4-turbo_formal_logic_enwiki-paragraphs.csv")
    ('gpt-4-turbo', 'zeroshot_cot/enwiki-paragraphs')
    >>> run_name("my_detector.csv")
    ('my_detector', 'imported')
    """
    stem = Path(path).stem
    m = _NAME.match(stem)
    if not m:
        return stem, "imported"
    style, model, _subject, corpus = m.groups()
    return model, f"{style}/{corpus}"


@dataclass
class DetectorImportSummary:
    """What :func:`import_detectors` stored: runs (judge, prompt version) →
    verdicts stored, files already imported (skipped), unmatched rows
    (``file:line``)."""

    benchmark: str
    files: int = 0
    rows: int = 0
    stored: int = 0
    runs: dict[str, int] = field(default_factory=dict)
    already_imported: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        s = (f"imported {self.stored:,} judge verdicts of {len(self.runs)} run(s) into '{self.benchmark}' "
             f"from {self.files - len(self.already_imported)} file(s)")
        if self.already_imported:
            s += f"; {len(self.already_imported)} file(s) already imported, unchanged"
        if self.unmatched:
            s += (f"; {len(self.unmatched)} row(s) match no item and were skipped: "
                  + ", ".join(self.unmatched[:_SHOW]) + (" …" if len(self.unmatched) > _SHOW else ""))
        return s

    def lines(self) -> list[str]:
        return [str(self)]


def _files(p: Path) -> list[Path]:
    if not p.exists():
        raise InputError("file or folder not found", path=p)
    if p.is_file():
        return [p]
    files = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in (".csv", ".jsonl", ".json"))
    if not files:
        raise InputError("no .csv or .jsonl files in this folder", path=p)
    return files


def _bool(v: object, f: Path, line: int) -> bool:
    s = str(v).strip().lower() if v is not None and not (isinstance(v, float) and pd.isna(v)) else ""
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise InputError(f"key_correct must be true or false, not '{str(v)[:20]}'", path=f, line=line)


def _detector_verdict(v: object, f: Path, line: int) -> bool | None:
    word = str(v).strip().lower() if isinstance(v, str) else None
    if word not in DETECTOR_VERDICTS:
        shown = str(v)[:20] if not (isinstance(v, float) and pd.isna(v)) else ""
        raise InputError(f"predicted_error_type is '{shown}', not one of {', '.join(DETECTOR_VERDICTS)}",
                         path=f, line=line)
    return DETECTOR_VERDICTS[word]


def _choices(v: object, f: Path, line: int) -> list[str]:
    if isinstance(v, list):
        out = v
    else:
        try:
            out = parse_list_literal(str(v))
        except LiteralRefused as exc:
            raise InputError(f"'choices' is not a list of option texts: {exc}", path=f, line=line) from None
    if not isinstance(out, list) or not all(isinstance(c, str) for c in out) or len(out) < 2:
        raise InputError("'choices' is not a list of option texts", path=f, line=line)
    return out


def import_detectors(path: str | os.PathLike, *, benchmark: str, db: DbPath = None,
                     skip_unmatched: bool = False, actor=None) -> DetectorImportSummary:
    """Import detector CSVs or a plain verdict table (see the module docstring).

    >>> import tempfile, pathlib
    >>> from audit.ingest._questions import import_questions
    >>> d = pathlib.Path(tempfile.mkdtemp()); db = d / "x.duckdb"
    >>> _ = (d / "q.csv").write_text("id,question,A,B,C,answer\\nq1,Capital of France?,Rome,Paris,Oslo,B\\n")
    >>> _ = import_questions(d / "q.csv", benchmark="geo", db=db)
    >>> f = d / "binary_mini_mmlu_groundtruth_correctness_zeroshot_gpt4_geo_enwiki-paragraphs.csv"
    >>> _ = f.write_text('question,choices,model_answer,predicted_error_type\\n'
    ...                  '"Capital of  France?","[\\'Paris\\', \\'Rome\\', \\'Oslo\\']","Wrong key",notok\\n')
    >>> s = import_detectors(f, benchmark="geo", db=db)
    >>> s.stored, s.runs
    (1, {'gpt4 zeroshot/enwiki-paragraphs': 1})
    >>> import_detectors(f, benchmark="geo", db=db).already_imported == [str(f)]
    True
    """
    p = Path(path)
    files = _files(p)
    summary = DetectorImportSummary(benchmark=benchmark, files=len(files))
    frames = []
    for fi, f in enumerate(files):
        df = read_table(f)
        cols = set(df.columns)
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        if DETECTOR_COLUMNS <= cols:
            judge, version = run_name(f)
            recs: list[tuple] = [(int(ln), fi, judge, version, None, str(q), _choices(c, f, int(ln)),
                     _detector_verdict(pe, f, int(ln)), None, f"predicted_error_type={str(pe).strip()}",
                     None if pd.isna(ma) else str(ma), digest)
                    for q, c, ma, pe, ln in zip(df["question"], df["choices"], df["model_answer"],
                                                df["predicted_error_type"], df["_line"])]
            for r in recs:
                if not isinstance(r[5], str) or not r[5].strip() or r[5] == "nan":
                    raise InputError("the row has no question text", path=f, line=r[0])
        elif PLAIN_COLUMNS <= cols:
            def opt(name: str) -> list:
                return list(df[name]) if name in df.columns else [None] * len(df)
            recs = []
            for qid, jd, kc, ca, ex, pv, ln in zip(df["question_id"], df["judge"], df["key_correct"],
                                                    opt("correct_answer"), opt("explanation"),
                                                    opt("prompt_version"), df["_line"]):
                if not str(jd or "").strip() or str(jd) == "nan":
                    raise InputError("the row names no judge", path=f, line=int(ln))
                none = (lambda v: None if v is None or (isinstance(v, float) and pd.isna(v)) or str(v) == ""
                        else str(v))
                recs.append((int(ln), fi, str(jd).strip(), none(pv) or "imported", str(qid).strip(), None, None,
                             _bool(kc, f, int(ln)), none(ca), none(ex), None, digest))
        else:
            raise InputError("not a detector file (question, choices, model_answer, predicted_error_type) "
                             "nor a verdict table (question_id, judge, key_correct)", path=f)
        frames.append(pd.DataFrame(recs, columns=["line", "file", "judge", "prompt_version", "qid", "question",
                                                  "choices", "key_correct", "correct_answer", "explanation",
                                                  "raw_reply", "digest"]))
    allr = pd.concat(frames, ignore_index=True)
    allr["rec"] = range(1, len(allr) + 1)
    summary.rows = len(allr)

    def where(file_i: int, line: int) -> str:
        return f"{files[file_i]}:{line}"

    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing judge verdicts")
        if not con.execute("SELECT count(*) FROM benchmarks WHERE name = ?", [benchmark]).fetchall()[0][0]:
            raise InputError(f"no benchmark named '{benchmark}': import its questions first", path=p)
        text = allr[allr["question"].notna()]
        linked: dict[int, str] = {}
        bad: list[tuple[int, int]] = []
        if len(text):
            tbl = pa.table({"rec": pa.array(text["rec"].to_numpy(), pa.int64()),
                            "question": pa.array(text["question"].tolist(), pa.string()),
                            "choices": pa.array(text["choices"].tolist(), pa.list_(pa.string()))})
            con.register("_det_arrow", tbl)
            try:
                con.execute("CREATE OR REPLACE TEMP TABLE _out AS SELECT rec, " + _norm_sql("question")
                            + " AS nq, list_transform(choices, lambda c: " + _norm_sql("c")
                            + ") AS nc FROM _det_arrow")
            finally:
                unregister(con, "_det_arrow")
            link_by_text(con, benchmark)
            res = con.execute("SELECT rec, question_id, n_items FROM _link ORDER BY rec").fetchall()
            for t in ("_out", "_items", "_cand", "_link"):
                con.execute(f"DROP TABLE IF EXISTS {t}")
            linked = {int(r): q for r, q, n in res if n == 1}
        ids = allr["qid"].copy()
        ids[allr["question"].notna()] = allr.loc[allr["question"].notna(), "rec"].map(linked)
        known = {r[0] for r in con.execute(
            "SELECT question_id FROM questions WHERE benchmark = ? AND question_id IN (SELECT unnest(?::VARCHAR[]))",
            [benchmark, [q for q in ids.dropna().unique().tolist()]]).fetchall()}
        ok = ids.isin(known)
        bad = list(zip(allr.loc[~ok, "file"], allr.loc[~ok, "line"]))
        summary.unmatched = [where(int(fi), int(ln)) for fi, ln in bad]
        if bad and not skip_unmatched:
            raise InputError(
                f"{len(bad):,} of {len(allr):,} rows match no item of '{benchmark}' (by question text, or "
                f"question_id): {', '.join(summary.unmatched[:_SHOW])}; nothing was imported "
                "(pass --skip-unmatched to skip and report them)", path=p)
        allr["question_id"] = ids
        good = allr[ok].copy()
        good["parse_ok"], good["parse_error"] = _checked_verdicts(con, benchmark, good, where)
        dup = good[good.duplicated(["question_id", "judge", "prompt_version"], keep=False)]
        if len(dup):
            a, b = dup.iloc[0], dup[dup["question_id"] == dup.iloc[0]["question_id"]].iloc[1]
            raise InputError(f"{where(a['file'], a['line'])} and {where(b['file'], b['line'])} both give judge "
                             f"'{a['judge']}' ({a['prompt_version']})'s verdict on item '{a['question_id']}'", path=p)
        for fi, g in good.groupby("file", sort=True):
            f = files[int(fi)]
            digest = g["digest"].iloc[0]
            for (judge, version), gg in g.groupby(["judge", "prompt_version"], sort=True):
                name = f"{judge} {version}"
                seen = con.execute(
                    "SELECT 1 FROM judge_runs WHERE benchmark = ? AND judge = ? AND prompt_version = ? "
                    "AND source = 'import' AND json_extract_string(config, '$.sha256') = ? LIMIT 1",
                    [benchmark, judge, version, digest]).fetchall()
                if seen:
                    if str(f) not in summary.already_imported:
                        summary.already_imported.append(str(f))
                    continue
                run_id = jstore.start_run(con, benchmark=benchmark, judge=judge, prompt_version=version,
                                          source="import", config={"file": f.name, "sha256": digest},
                                          file_path=str(f))
                jstore.ensure_prompt(con, version, f"(imported from {f.name}; prompt text not available)")
                rows = [{"benchmark": benchmark, "question_id": r.question_id, "judge": judge,
                         "prompt_version": version,
                         "answer_key_correct": bool(r.key_correct) if r.parse_ok else None,
                         "correct_answer": r.correct_answer if r.parse_ok else None, "explanation": r.explanation,
                         "raw_reply": r.raw_reply, "parse_ok": bool(r.parse_ok), "parse_error": r.parse_error,
                         "run_id": run_id, "source": "import"}
                        for r in gg.itertuples()]
                jstore.save_verdicts(con, rows)
                n_ok = sum(r["parse_ok"] for r in rows)
                jstore.update_run(con, run_id, status="finished", finished=True, n_selected=len(rows),
                                  n_requested=len(rows), n_ok=n_ok, n_parse_failed=len(rows) - n_ok)
                summary.runs[name] = summary.runs.get(name, 0) + len(rows)
                summary.stored += len(rows)
    return summary





def _checked_verdicts(con, benchmark: str, good: pd.DataFrame, where) -> tuple[list[bool], list[str | None]]:
    """Each row's verdict checked as ``import judge`` checks one
    (:func:`audit.judge._parse.verdict_from_object`): a ``correct_answer``
    that is not a label of the item refuses the import (naming the row); a
    row that contradicts itself (the key is right, and another answer is
    named) is stored unparsed with the reason; a detector's
    ``invalidprediction`` is stored unparsed."""
    items = con.execute(
        "SELECT question_id, answer_key, [o.label FOR o IN options] AS labels FROM questions "
        "WHERE benchmark = ? AND question_id IN (SELECT unnest(?::VARCHAR[]))",
        [benchmark, sorted(set(good["question_id"]))]).fetchall()
    keys = {q: (k, list(labels)) for q, k, labels in items}
    oks: list[bool] = []
    errors: list[str | None] = []
    for r in good.itertuples():
        if r.key_correct is None or (isinstance(r.key_correct, float) and pd.isna(r.key_correct)):
            oks.append(False)
            errors.append(f"the detector gave no verdict ({r.explanation})")
            continue
        key, labels = keys[r.question_id]
        try:
            answer = None if pd.isna(r.correct_answer) else r.correct_answer   # a table's empty cell
            verdict_from_object({"answer_key_correct": bool(r.key_correct), "correct_answer": answer},
                                labels=labels, answer_key=key)
        except ReplyError as exc:
            if not str(exc).startswith("contradictory"):
                raise InputError(f"{r.question_id}: {exc}", path=where(int(r.file), int(r.line))) from None
            oks.append(False)
            errors.append(str(exc))
            continue
        oks.append(True)
        errors.append(None)
    return oks, errors


def judge_reliability(benchmark: str | None = None, *, db: DbPath = None) -> pd.DataFrame:
    """Each judge run's reliability and weight in the latest key-error fit
    (:func:`audit.analyze.keyerror.judge_evidence`), one row per run:
    ``run`` ('<judge> <prompt version>'), ``n`` (items judged),
    ``sensitivity`` / ``specificity`` for "key wrong", ``youden_j``
    (sens + spec − 1; ≤ 0: no better than chance, the run adds nothing),
    ``llr_says_wrong`` / ``llr_says_right`` (its log likelihood ratios before
    the discount), ``family_correlation`` (ρ of its judge model's runs) and
    ``weight`` (the two-level Kish discount).  Empty when the fit saw no
    judge verdicts (run ``audit analyze`` after importing them)."""
    from audit.analyze.keyerror import key_error_params

    p = key_error_params(benchmark, db=db)
    p = p[p["kind"] == "judge_run"]
    cols = ["run", "n", "sensitivity", "specificity", "youden_j", "llr_says_wrong", "llr_says_right",
            "family_correlation", "weight"]
    if p.empty:
        return pd.DataFrame(columns=cols)
    t = p.pivot_table(index="name", columns="param", values="value", aggfunc="first")
    t["n"] = p.groupby("name")["n"].first()
    t["youden_j"] = t["sensitivity"] + t["specificity"] - 1.0
    return t.rename_axis("run").reset_index()[cols].sort_values("run", ignore_index=True)
__all__ = ["import_detectors", "DetectorImportSummary", "run_name", "judge_reliability"]
