"""``audit import inspect``: inspect-ai evaluation logs (``.eval`` or ``.json``).

The logs are read with inspect-ai's own reader (``inspect_ai.log.read_eval_log``),
an optional extra of this package (``pip install 'answer-key-audit[inspect]'``).
Per sample: ``id``, ``input`` (text or chat messages), ``choices``,
``target`` (a letter, or a list of letters for a multi-answer item) and
``output.completion``.  The model is ``eval.model``; the default benchmark
name is ``eval.task``.

The prediction is the letter a scorer recorded as its ``answer`` (e.g. the
``choice()`` scorer of ``multiple_choice()``) when that is one or more
option letters; otherwise the completion text is stored raw and its letter
extracted (``method``).  Questions come from the samples when the benchmark
has none yet.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest.formats._harness import HarnessImportSummary, build_question, write_harness
from audit.store import DbPath, connect, transaction

_LETTERS = re.compile(r"^\s*[A-J](\s*,\s*[A-J])*\s*$")


def _reader():
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InputError("reading inspect logs needs inspect-ai: pip install 'answer-key-audit[inspect]' "
                         "(or pip install inspect-ai)") from None
    return read_eval_log


def find_logs(path: Path) -> list[Path]:
    """``.eval``/``.json`` log files at ``path`` (a file or a folder)."""
    if not path.exists():
        raise InputError("file or folder not found", path=path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".eval", ".json")
                       and not p.name.startswith("logs") and not p.name.startswith("."))
        if not files:
            raise InputError("no inspect .eval or .json logs in this folder", path=path)
        return files
    return [path]


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # chat messages
        parts = []
        for m in value:
            t = getattr(m, "text", None)
            parts.append(t if isinstance(t, str) else str(getattr(m, "content", "")))
        return "\n".join(p for p in parts if p)
    return "" if value is None else str(value)


def import_inspect(path: str | os.PathLike, *, benchmark: str | None = None, model: str | None = None,
                   run: str | None = None, method: str = "caa", db: DbPath = None,
                   progress: bool | None = None, actor=None) -> HarnessImportSummary:
    """Import inspect-ai eval logs (see the module docstring).  All-or-nothing."""
    read_eval_log = _reader()
    p = Path(path)
    files = find_logs(p)
    logs = []
    for f in files:
        try:
            log = read_eval_log(str(f))
        except Exception as exc:  # the reader raises many types for a bad file
            raise InputError(f"not an inspect eval log: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                             path=f) from None
        if not log.samples:
            raise InputError(f"the log has no samples (status: {log.status})", path=f)
        logs.append((f, log))
    tasks = sorted({str(log.eval.task) for _, log in logs})
    models = sorted({str(log.eval.model) for _, log in logs})
    if benchmark is None:
        if len(tasks) > 1:
            raise InputError(f"{len(tasks)} tasks in these logs ({', '.join(tasks)}); pass --benchmark", path=p)
        benchmark = tasks[0]
    if model is None and len(models) > 1:
        raise InputError(f"{len(models)} models in these logs ({', '.join(models)}); import one model at a time "
                         "or pass --model", path=p)
    model_name = (model or "").strip() or models[0]
    run_name = run.strip() if run and run.strip() else "default"
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing inspect logs")
        has_q = con.execute("SELECT count(*) FROM questions WHERE benchmark = ?", [benchmark]).fetchall()[0][0] > 0
        questions = []
        seen: set[str] = set()
        pred: dict[str, list] = {k: [] for k in ("question_id", "model", "run", "response", "given", "_line")}
        n = 0
        for f, log in logs:
            for i, s in enumerate(log.samples, start=1):
                n += 1
                qid = str(s.id).strip()
                if s.epoch and s.epoch > 1:
                    qid = f"{qid}#epoch{s.epoch}"
                if not has_q and qid not in seen:
                    seen.add(qid)
                    if not s.choices:
                        raise InputError(f"sample '{qid}' (sample {i}) has no choices: not a multiple-choice "
                                         "task; import the questions first", path=f)
                    questions.append(build_question(benchmark, qid, _text(s.input), list(s.choices), s.target,
                                                    subject=str(log.eval.task), where=str(f), line=None,
                                                    source_record={"id": s.id, "input": _text(s.input),
                                                                   "choices": list(s.choices), "target": s.target,
                                                                   "metadata": s.metadata or {}}))
                answer = next((sc.answer for sc in (s.scores or {}).values()
                               if isinstance(sc.answer, str) and _LETTERS.match(sc.answer)), None)
                completion = s.output.completion if s.output is not None else None
                pred["question_id"].append(qid)
                pred["model"].append(model_name)
                pred["run"].append(run_name)
                pred["_line"].append(n)
                pred["given"].append(answer.replace(",", " ") if answer else None)
                pred["response"].append(completion or None)
        n_q, n_p, n_valid = write_harness(con, benchmark=benchmark, source="inspect", where=str(p),
                                          questions=questions, pred=pred, method=method, progress=progress)
    return HarnessImportSummary(source="inspect", benchmark=benchmark, files=len(files), model=model_name,
                                questions_created=n_q, predictions=n_p, valid=n_valid, tasks=tasks)


__all__ = ["import_inspect", "find_logs"]
