"""``audit import helm``: HELM ``scenario_state`` JSON (one file per model run,
or a folder of them).

Questions come from ``request_states[*].instance``: ``id``, ``input.text``
and ``references`` (in order; labels A, B, … ; the key is the reference
tagged ``correct``).  The model is ``adapter_spec.model``; the raw answer is
``result.completions[0].text``.  The letter a model wrote refers to the
options *as shown to it*: ``output_mapping`` maps that letter to a reference
text, which is mapped back to the stored label of that reference (so a
shuffled presentation is scored correctly).  Letters are found in the raw
text with the Concern-All-Answer extractor over the shown letters.

Perturbed instances (HELM robustness/fairness variants) are skipped.
Default benchmark name = the scenario name: the file name when it is not the
model's name (HELM's own ``<scenario>.json``), else the folder name.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from audit._util.files import load_json, nfc, read_text
from audit._util.sql import unregister
from audit.accounts import require_role
from audit.errors import InputError
from audit.ingest._predictions import store_predictions
from audit.ingest.extract import extract_answers
from audit.ingest.storing import store_questions
from audit.options import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS
from audit.store import DbPath, connect, transaction
from audit.store.records import Option, Question


@dataclass
class HelmImportSummary:
    benchmark: str
    files: int
    questions: int
    models: list[str]
    predictions: int
    valid: int
    skipped_perturbed: int = 0

    @property
    def invalid(self) -> int:
        return self.predictions - self.valid

    def __str__(self) -> str:
        s = (f"imported {self.questions:,} questions and {self.predictions:,} predictions of {len(self.models)} "
             f"models from {self.files} HELM file(s) into '{self.benchmark}' ({self.invalid} invalid)")
        if self.skipped_perturbed:
            s += f"; skipped {self.skipped_perturbed} perturbed instances"
        return s


def _files(path: Path) -> list[Path]:
    if not path.exists():
        raise InputError("not found", path=path)
    if path.is_file():
        return [path]
    files = sorted(f for f in path.rglob("*.json") if f.name not in ("run_spec.json", "stats.json",
                                                                     "per_instance_stats.json"))
    if not files:
        raise InputError("no HELM scenario_state .json files in this folder", path=path)
    return files


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")


def scenario_name(path: Path, files: list[Path], models: list[str]) -> str:
    """The default benchmark name (see module doc)."""
    model_slugs = {_slug(m) for m in models}
    stems = {f.stem for f in files if _slug(f.stem) not in model_slugs}
    if len(stems) == 1:
        return stems.pop()
    folder = path if path.is_dir() else path.parent
    return folder.resolve().name


def _load(f: Path) -> dict:
    try:
        d = load_json(read_text(f), f)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", path=f, line=exc.lineno) from None
    if not isinstance(d, dict) or "request_states" not in d or "adapter_spec" not in d:
        raise InputError("not a HELM scenario_state file (needs 'adapter_spec' and 'request_states')", path=f)
    return d


def import_helm(path: str | os.PathLike, *, benchmark: str | None = None, db: DbPath = None,
                progress: bool | None = None, actor=None) -> HelmImportSummary:
    """Import HELM scenario_state file(s): questions and one prediction per
    model and instance.  All-or-nothing, in one transaction.

    The same instance id in several files must carry the same question; a
    conflict is an error naming both files."""
    p = Path(path)
    files = _files(p)
    questions: dict[str, Question] = {}
    origin: dict[str, Path] = {}
    rows: dict[str, list] = {"question_id": [], "model": [], "response": [], "letter": [], "_line": []}
    models: list[str] = []
    skipped = 0
    for f in files:
        d = _load(f)
        model = (d["adapter_spec"] or {}).get("model")
        if not model:
            raise InputError("adapter_spec.model is missing", path=f)
        if model in models:
            raise InputError(f"a second file for model '{model}' (the first was {files[models.index(model)].name})",
                             path=f)
        models.append(model)
        texts, ns, maps = [], [], []
        for i, rs in enumerate(d["request_states"]):
            inst = rs.get("instance") or {}
            if inst.get("perturbation"):
                skipped += 1
                continue
            qid = nfc(str(inst.get("id", "")).strip())
            if not qid:
                raise InputError(f"request state {i}: instance.id is missing", path=f)
            refs = inst.get("references") or []
            if not MIN_OPTIONS <= len(refs) <= MAX_OPTIONS:
                raise InputError(f"instance '{qid}' has {len(refs)} references; an item has "
                                 f"{MIN_OPTIONS}–{MAX_OPTIONS}", path=f)
            ref_texts = [str((r.get("output") or {}).get("text", "")) for r in refs]
            correct = [j for j, r in enumerate(refs) if "correct" in (r.get("tags") or [])]
            raw_stem = str((inst.get("input") or {}).get("text", ""))
            q = Question(
                benchmark="", question_id=qid, stem=nfc(raw_stem).strip(),
                options=[Option(LATIN_LABELS[j], nfc(t).strip()) for j, t in enumerate(ref_texts)],
                answer_key=LATIN_LABELS[correct[0]] if correct else None,
                raw_text=raw_stem, source_record=inst,
                flags=["multiple_correct_references"] if len(correct) > 1 else [],
            )
            if qid in questions:
                old = questions[qid]
                if (old.stem, old.options, old.answer_key) != (q.stem, q.options, q.answer_key):
                    raise InputError(f"instance '{qid}' differs from the one in {origin[qid].name}", path=f)
            else:
                questions[qid], origin[qid] = q, f
            # Shown letter → reference index → stored label.
            mapping = rs.get("output_mapping") or {L: t for L, t in zip(LATIN_LABELS, ref_texts)}
            shown = {}
            for letter, text in mapping.items():
                if text in ref_texts:
                    shown[str(letter).strip().upper()] = LATIN_LABELS[ref_texts.index(text)]
            comps = (rs.get("result") or {}).get("completions") or []
            texts.append(comps[0].get("text") if comps else None)
            ns.append(len(mapping))
            maps.append(shown)
            rows["question_id"].append(qid)
            rows["model"].append(model)
            rows["_line"].append(i + 1)
        # Extract per option count (mostly one group).
        letters: list[str | None] = [None] * len(texts)
        for n in set(ns):
            idx = [j for j, k in enumerate(ns) if k == n]
            if not MIN_OPTIONS <= n <= MAX_OPTIONS:
                continue
            for j, L in zip(idx, extract_answers([texts[j] for j in idx], n, "caa")):
                letters[j] = maps[j].get(L) if L else None
        rows["response"].extend(texts)
        rows["letter"].extend(letters)
    if not models:
        raise InputError("no request states found", path=p)
    name = benchmark or scenario_name(p, files, models)
    for q in questions.values():
        q.benchmark = name
    table = pa.table({k: pa.array(v, pa.int64() if k == "_line" else pa.string()) for k, v in rows.items()})
    with connect(db) as con, transaction(con):
        require_role(con, actor, "lead", "importing HELM output")
        store_questions(con, name, "helm", list(questions.values()), source_path=str(p))
        con.register("_helm_pred", table)
        con.execute("CREATE OR REPLACE TEMP VIEW _helm_src AS SELECT question_id, model, 'default' AS run, "
                    "response, NULL::VARCHAR AS given, letter, 'caa' AS method, _line FROM _helm_pred")
        s = store_predictions(con, name, "_helm_src", p, method="caa", layout="long", progress=progress)
        unregister(con, "_helm_pred")
    return HelmImportSummary(benchmark=name, files=len(files), questions=len(questions), models=s.models,
                             predictions=s.predictions, valid=s.valid, skipped_perturbed=skipped)
