"""Import judge files of the methodology pipeline.

One JSON object per line::

    {"loc": "agronomy7", ..., "llm_validation": {"answer_key_correct": false,
     "correct_answer": "C", "answer_explanation": "...", "confidence": 0.9}}

``loc`` is the item's question id in the benchmark (TLUE's ``loc``, NFC
normalised as the TLUE importer does).  Other top-level fields are ignored.
``path`` is a file or a folder of ``*.jsonl`` files (one per subject, as the
pipeline writes them).  Everything is checked before anything is written,
and written in one transaction; on any problem nothing changes:

* a line that is not JSON, lacks ``loc`` or ``llm_validation``, or whose
  ``llm_validation`` lacks ``answer_key_correct`` / has a non-boolean one →
  error naming the line;
* ``loc`` values that are not items of the benchmark → error listing them
  (count and the first ones with their lines): refused, not skipped;
* a ``correct_answer`` that is not a label of the item's options (``E`` on a
  four-option item, ``ཅ``, "42") → error naming the line;
* the same ``loc`` twice → error.

Verdicts whose fields are well-formed but contradictory (says the key is
correct and names another answer, or says it is wrong and names the key)
are stored with ``parse_ok = false`` and the reason, and counted — the same
rule as for live judge replies.  Rows are stored under (judge = ``--judge``,
prompt version = ``prompt_version``, default ``"imported"``); importing the
same file again replaces them.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from audit.accounts import require_role
from audit.errors import InputError, NotFoundError
from audit.judge import _store as jstore
from audit.judge._parse import ReplyError, verdict_from_object
from audit.store import DbPath, connect, transaction

IMPORTED_VERSION = "imported"
_SHOW = 5


@dataclass
class JudgeImportSummary:
    benchmark: str
    judge: str
    prompt_version: str
    run_id: int
    n_lines: int
    n_stored: int
    n_disputed: int
    n_parse_failed: int   # contradictory verdicts stored with parse_ok = false

    def lines(self) -> list[str]:
        return [f"imported {self.n_stored} verdicts of judge '{self.judge}' into '{self.benchmark}' "
                f"(prompt version {self.prompt_version}, run {self.run_id}): key disputed {self.n_disputed}, "
                f"contradictory (stored raw, parse_ok false) {self.n_parse_failed}"]


def import_judge(path: str | os.PathLike, *, judge: str, benchmark: str = "tlue",
                 prompt_version: str = IMPORTED_VERSION, db: DbPath = None, actor=None) -> JudgeImportSummary:
    """Import a methodology judge file (see the module docstring); all-or-nothing.

    >>> import tempfile, json, os
    >>> from audit.ingest.storing import store_questions
    >>> from audit.store.records import Question, Option
    >>> d = tempfile.mkdtemp(); db = os.path.join(d, "x.duckdb")
    >>> with connect(db) as con, transaction(con):
    ...     _ = store_questions(con, "tlue", "test", [Question("tlue", "agronomy7", "stem",
    ...                         [Option(l, l) for l in "ABCD"], "A")])
    >>> f = os.path.join(d, "j.jsonl")
    >>> _ = open(f, "w").write(json.dumps({"loc": "agronomy7", "llm_validation": {"answer_key_correct": False,
    ...     "correct_answer": "C", "answer_explanation": "because", "confidence": 0.9}}) + "\\n")
    >>> import_judge(f, judge="gemini-2.5-pro", db=db).n_disputed
    1
    """
    from audit._util.files import nfc, read_jsonl

    judge = (judge or "").strip()
    if not judge:
        raise InputError("--judge must name the judge (e.g. gemini-2.5-pro)")
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() == ".jsonl")
        if not files:
            raise InputError("no .jsonl files in this folder", path=p)
    else:
        files = [p]
    records = []       # (file, line, loc, llm_validation)
    seen: dict[str, str] = {}
    for f in files:
        for line, obj in read_jsonl(f):
            loc = obj.get("loc")
            if loc is None or isinstance(loc, bool) or not str(loc).strip():
                raise InputError("the field 'loc' (question id) is missing", path=f, line=line)
            loc = nfc(str(loc).strip())
            if loc in seen:
                raise InputError(f"'{loc}' appears twice (first at {seen[loc]})", path=f, line=line)
            seen[loc] = f"{f}:{line}"
            val = obj.get("llm_validation")
            if not isinstance(val, dict):
                raise InputError("the field 'llm_validation' is missing or not an object", path=f, line=line)
            if "answer_key_correct" not in val:
                raise InputError("llm_validation.answer_key_correct is missing", path=f, line=line)
            records.append((f, line, loc, val))

    with connect(db) as con:
        require_role(con, actor, "lead", "importing judge verdicts")
        if not con.execute("SELECT 1 FROM benchmarks WHERE name = ?", [benchmark]).fetchone():
            raise NotFoundError(f"no benchmark named '{benchmark}'")
        items = con.execute(
            "SELECT question_id, answer_key, [o.label FOR o IN options] AS labels "
            "FROM questions WHERE benchmark = ? AND question_id IN (SELECT unnest(?::VARCHAR[]))",
            [benchmark, [r[2] for r in records]],
        ).df().set_index("question_id")
        unknown = [(f, line, loc) for f, line, loc, _ in records if loc not in items.index]
        if unknown:
            where = (lambda f, line: f"line {line}") if len(files) == 1 else (lambda f, line: f"{f.name}:{line}")
            shown = ", ".join(f"'{loc}' ({where(f, line)})" for f, line, loc in unknown[:_SHOW])
            more = f" and {len(unknown) - _SHOW} more" if len(unknown) > _SHOW else ""
            raise InputError(
                f"{len(unknown)} id(s) are not questions of benchmark '{benchmark}': {shown}{more}; "
                "nothing was imported", path=p)

        rows = []
        for f, line, loc, val in records:
            key = items.at[loc, "answer_key"]
            labels = list(items.at[loc, "labels"])
            raw = json.dumps(val, ensure_ascii=False, sort_keys=True)
            try:
                v = verdict_from_object(val, labels=labels, answer_key=key, explanation_field="answer_explanation")
            except ReplyError as exc:
                msg = str(exc)
                if msg.startswith("contradictory"):
                    rows.append(_row(benchmark, loc, judge, prompt_version, raw, None, ok=False, error=msg))
                    continue
                raise InputError(f"{loc}: {msg}", path=f, line=line) from None
            rows.append(_row(benchmark, loc, judge, prompt_version, raw, v, ok=True, error=None))

        with transaction(con):
            run_id = jstore.start_run(con, benchmark=benchmark, judge=judge, prompt_version=prompt_version,
                                      source="import", config={"file": str(p)}, file_path=str(p))
            jstore.ensure_prompt(con, prompt_version, f"(imported from {p.name}; prompt text not available)")
            for r in rows:
                r["run_id"] = run_id
            jstore.save_verdicts(con, rows)
            n_ok = sum(r["parse_ok"] for r in rows)
            jstore.update_run(con, run_id, status="finished", finished=True, n_selected=len(rows),
                              n_requested=len(rows), n_ok=n_ok, n_parse_failed=len(rows) - n_ok)
    return JudgeImportSummary(
        benchmark=benchmark, judge=judge, prompt_version=prompt_version, run_id=run_id, n_lines=len(records),
        n_stored=len(rows), n_disputed=sum(bool(r["parse_ok"] and r["answer_key_correct"] is False) for r in rows),
        n_parse_failed=sum(not r["parse_ok"] for r in rows))


def _row(benchmark, qid, judge, version, raw, v, *, ok: bool, error: str | None) -> dict:
    return {
        "benchmark": benchmark, "question_id": qid, "judge": judge, "prompt_version": version,
        "answer_key_correct": v.answer_key_correct if v else None,
        "correct_answer": v.correct_answer if v else None,
        "explanation": v.explanation if v else None, "confidence": v.confidence if v else None,
        "raw_reply": raw, "parse_ok": ok, "parse_error": error, "prompt_tokens": None,
        "completion_tokens": None, "cost_usd": None, "latency_s": None, "attempts": None, "run_id": None,
        "source": "import",
    }


__all__ = ["import_judge", "JudgeImportSummary", "IMPORTED_VERSION"]
