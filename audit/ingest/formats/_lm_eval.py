"""``audit import lm-eval``: lm-evaluation-harness sample logs.

Input: a ``samples_<task>_<date>.jsonl`` file written by ``lm_eval
--log_samples`` or a folder holding such files (searched recursively).
Each line has ``doc_id``, ``doc`` (the benchmark's document), ``target``,
``arguments`` and ``filtered_resps``.

* **Log-likelihood multiple choice** (``filtered_resps`` = one
  ``[log-likelihood, is_greedy]`` pair per option): the chosen option is the
  one with the highest log-likelihood (the first on a tie, as
  ``numpy.argmax`` in lm-eval's own ``acc``), stored as a given letter.
* **Generated answers** (``filtered_resps`` = text): the response text is
  stored raw and its letter extracted (``method``: caa or da).

Questions come from the logged documents when the benchmark has none yet:
the stem from ``question``/``query``/… (else the prompt), the options from
``choices``/``options``/… (else, for log-likelihood tasks, the scored
continuations), the key from ``target`` (index, letter, letter set or option
text).  Question ids come from the document's ``id``/``question_id``/… field,
else ``doc_id``.  The model name is ``--model``, else ``pretrained=`` of the
``results_*.json`` written next to the samples, else its ``model`` entry.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from audit._util.files import read_jsonl, read_text
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest.formats._harness import (
    ID_FIELDS,
    OPTION_FIELDS,
    STEM_FIELDS,
    HarnessImportSummary,
    build_question,
    write_harness,
)
from audit.options import LATIN_LABELS, MAX_OPTIONS
from audit.store import DbPath, connect, transaction

_SAMPLES = re.compile(r"^samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9\-.:]+)$")


def find_samples(path: Path) -> list[Path]:
    """The samples files at ``path`` (a file, or a folder searched recursively)."""
    if not path.exists():
        raise InputError("file or folder not found", path=path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("samples_*.jsonl") if p.is_file())
        if not files:
            raise InputError("no lm-eval samples_*.jsonl files in this folder (run lm_eval with --log_samples)",
                             path=path)
        return files
    return [path]


def task_of(path: Path) -> str:
    """``samples_mmlu_bo_2026-01-01T10-00-00.123.jsonl`` → ``mmlu_bo``.

    >>> task_of(Path("samples_tiny_mc_2026-11-23T03-30-26.152105.jsonl"))
    'tiny_mc'
    """
    m = _SAMPLES.match(path.stem)
    return m.group("task") if m else path.stem.removeprefix("samples_")


def model_of(samples: Path) -> str | None:
    """Model name from the ``results_*.json`` beside a samples file."""
    for res in sorted(samples.parent.glob("results_*.json"), reverse=True):
        try:
            obj = json.loads(read_text(res))
        except (json.JSONDecodeError, InputError):
            continue
        cfg = obj.get("config") or {}
        args = cfg.get("model_args")
        if isinstance(args, dict) and args.get("pretrained"):
            return str(args["pretrained"])
        if isinstance(args, str):
            m = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", args)
            if m:
                return m.group(1).strip()
        if cfg.get("model"):
            return str(cfg["model"])
    return None


def _loglik_choice(resps: list) -> int | None:
    """Index of the highest log-likelihood in [[ll, greedy], …], else None.
    A NaN or +Infinity log-likelihood is not a score: the record then has no
    answer (−Infinity, probability 0, is a score).

    >>> _loglik_choice([[-1.0, False], [float("nan"), False]]), _loglik_choice([[-1.0, 0], [-0.5, 0]])
    (None, 1)
    """
    vals: list[float] = []
    for r in resps:
        if isinstance(r, list) and r and not isinstance(r[0], list):
            r = r[0]
        elif isinstance(r, list) and r and isinstance(r[0], list):
            r = r[0][0]
        try:
            v = float(r)
        except (TypeError, ValueError):
            return None
        if v != v or v == float("inf"):
            return None
        vals.append(v)
    return max(range(len(vals)), key=lambda i: (vals[i], -i)) if vals else None


def _is_loglik(resps: object) -> bool:
    return (isinstance(resps, list) and len(resps) >= 2
            and all(isinstance(r, list) and len(r) == 2 and not isinstance(r[0], (list, dict)) for r in resps))


def _continuations(args: object) -> list[str]:
    if not isinstance(args, dict):
        return []
    out = []
    for key in sorted(args, key=lambda k: int(re.sub(r"\D", "", k) or 0)):
        a = args[key]
        if isinstance(a, dict) and isinstance(a.get("arg_1"), str):
            out.append(a["arg_1"])
    return out


def _prompt(args: object) -> str | None:
    if isinstance(args, dict):
        for a in args.values():
            if isinstance(a, dict) and isinstance(a.get("arg_0"), str):
                return a["arg_0"]
    return None


def import_lm_eval(path: str | os.PathLike, *, benchmark: str | None = None, model: str | None = None,
                   run: str | None = None, method: str = "caa", db: DbPath = None,
                   progress: bool | None = None, actor=None) -> HarnessImportSummary:
    """Import lm-eval sample logs (see the module docstring).  All-or-nothing.

    ``benchmark`` defaults to the task name (one task per import without it).
    """
    p = Path(path)
    files = find_samples(p)
    tasks = sorted({task_of(f) for f in files})
    if benchmark is None:
        if len(tasks) > 1:
            raise InputError(f"{len(tasks)} tasks in these logs ({', '.join(tasks)}); pass --benchmark "
                             "(question ids are then prefixed with the task) or import one task at a time", path=p)
        benchmark = tasks[0]
    model_name = (model or "").strip() or model_of(files[0]) or files[0].parent.name
    prefix = len(tasks) > 1
    run_name = run.strip() if run and run.strip() else "default"
    records = []  # (file, line, qid, doc, target, args, resps)
    offset = 0
    for f in files:
        task = task_of(f)
        n_lines = 0
        for line, obj in read_jsonl(f, allow_nan=True):
            n_lines = line
            for req in ("doc_id", "doc", "filtered_resps"):
                if req not in obj:
                    raise InputError(f"missing field '{req}': not an lm-eval samples line", path=f, line=line)
            doc = obj["doc"] if isinstance(obj["doc"], dict) else {"text": obj["doc"]}
            raw_id = next((doc[k] for k in ID_FIELDS if isinstance(doc.get(k), (str, int))
                           and not isinstance(doc.get(k), bool)), obj["doc_id"])
            qid = f"{task}/{raw_id}" if prefix else str(raw_id).strip()
            records.append((f, line, offset + line, qid, doc, obj.get("target"), obj.get("arguments"),
                            obj["filtered_resps"], task))
        offset += n_lines
    where = str(p)
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing lm-eval logs")
        has_q = con.execute("SELECT count(*) FROM questions WHERE benchmark = ?", [benchmark]).fetchall()[0][0] > 0
        questions = []
        seen: set[str] = set()
        pred: dict[str, list] = {k: [] for k in ("question_id", "model", "run", "response", "given", "_line")}
        for f, line, gline, qid, doc, target, args, resps, task in records:
            loglik = _is_loglik(resps)
            if not has_q and qid not in seen:
                seen.add(qid)
                texts = next((doc[k] for k in OPTION_FIELDS if isinstance(doc.get(k), list)
                              and all(isinstance(x, (str, int, float)) for x in doc[k])), None)
                if texts is None and loglik:
                    texts = [c.strip() for c in _continuations(args)]
                if texts is None:
                    raise InputError(f"sample '{qid}': no options in the logged document (fields "
                                     f"{', '.join(doc)}); import the benchmark's questions first "
                                     "(audit import questions) so predictions can be matched by id",
                                     path=f, line=line)
                stem = next((doc[k] for k in STEM_FIELDS if isinstance(doc.get(k), str)), None) or _prompt(args)
                questions.append(build_question(benchmark, qid, stem or "", [str(t) for t in texts], target,
                                                subject=task, source_record=doc, where=str(f), line=line))
            pred["question_id"].append(qid)
            pred["model"].append(model_name)
            pred["run"].append(run_name)
            pred["_line"].append(gline)
            if loglik:
                i = _loglik_choice(resps)
                if i is not None and i >= MAX_OPTIONS:
                    raise InputError(f"{len(resps)} scored options; at most {MAX_OPTIONS}", path=f, line=line)
                pred["given"].append(LATIN_LABELS[i] if i is not None else None)
                pred["response"].append(None)
            else:
                text = resps[0] if isinstance(resps, list) and resps else resps
                while isinstance(text, list) and text:
                    text = text[0]
                pred["given"].append(None)
                pred["response"].append(text if isinstance(text, str) else (None if text is None else str(text)))
        n_q, n_p, n_valid = write_harness(con, benchmark=benchmark, source="lm-eval", where=where,
                                          questions=questions, pred=pred, method=method, progress=progress)
    return HarnessImportSummary(source="lm-eval", benchmark=benchmark, files=len(files), model=model_name,
                                questions_created=n_q, predictions=n_p, valid=n_valid, tasks=tasks)


__all__ = ["import_lm_eval", "find_samples", "task_of", "model_of"]
