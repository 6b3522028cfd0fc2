"""A version in the layout the Hugging Face ecosystem loads: written by
``audit export create`` into ``<exports>/<benchmark>/<version>/hf/``.

Why: users pin a data set by revision on the Hub and read its dataset card
and Croissant metadata (MMLU-Redux ships both); a corrected version that
``datasets.load_dataset`` reads as it is, with a card that says what changed,
is one they can adopt.

* ``data/test.parquet`` — the items this version includes, and
  ``data/excluded.parquet`` the items it leaves out (only when it excludes
  some): ``question_id, subject, language, question, options`` (option texts
  in order), ``option_labels``, ``answer`` (the key in this version),
  ``original_answer``, ``action`` (``unchanged`` / ``corrected`` /
  ``excluded``).  Written with pyarrow (fixed schema, no pandas metadata, no
  statistics), so the bytes are reproducible.
* ``README.md`` — the dataset card: YAML metadata (licence, languages, task,
  size, the ``configs`` that name the splits' files), the changelog summary,
  the key-error estimates, licence and citation.
* ``croissant.json`` — Croissant 1.0 JSON-LD metadata (the files with their
  sha256, the record sets and fields) with the responsible-AI fields filled
  from what the tool knows (how keys were audited and settled, by how many
  reviewers, which models and judges, what is left).
* ``CITATION.cff`` — how to cite the version.

Nothing here holds a timestamp, a token or a reviewer's name.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from audit.export._write import sha256_file

HF_DIR = "hf"
CARD_NAME = "README.md"
CROISSANT_NAME = "croissant.json"
CITATION_NAME = "CITATION.cff"
SPLITS = ("test", "excluded")

#: What the tool knows of a source's licence and citation (``benchmarks.source``):
#: (Hub licence id, SPDX id, licence URL, BibTeX of the source benchmark).
KNOWN_SOURCES: dict[str, tuple[str, str, str, str | None]] = {
    "tlue": ("cc-by-nc-sa-4.0", "CC-BY-NC-SA-4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/",
             "@article{gao2025tlue,\n  title={TLUE: A Tibetan Language Understanding Evaluation Benchmark},\n"
             "  author={Gao, Fan and others},\n  year={2025}\n}"),
    "mmlu-redux": ("cc-by-4.0", "CC-BY-4.0", "https://creativecommons.org/licenses/by/4.0/",
                   "@article{gema2024mmlu,\n  title={Are We Done with MMLU?},\n  author={Gema, Aryo Pradipta and "
                   "others},\n  year={2024}\n}"),
    "demo": ("cc0-1.0", "CC0-1.0", "https://creativecommons.org/publicdomain/zero/1.0/", None),
}
UNKNOWN_LICENCE = ("other", None, None, None)

_SCHEMA = pa.schema([
    ("question_id", pa.string()), ("subject", pa.string()), ("language", pa.string()), ("question", pa.string()),
    ("options", pa.list_(pa.string())), ("option_labels", pa.list_(pa.string())), ("answer", pa.string()),
    ("original_answer", pa.string()), ("action", pa.string()),
])


@dataclass
class HubRelease:
    """What the card and the metadata say about a version."""

    benchmark: str
    version: str
    parent: str | None
    source: str
    policy_name: str
    policy_description: str
    counts: dict
    causes: pd.DataFrame = field(default_factory=pd.DataFrame)   # action, cause, n
    impact: dict | None = None              # audit.analyze.impact_summary
    models: list[str] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    n_reviewers: int = 0
    required_reviews: str | None = None    # e.g. "2 for flagged items, 1 otherwise"
    agreement: str | None = None            # the reviewers' pooled kappa, in words
    platforms: list[str] = field(default_factory=list)


def split_table(items: pd.DataFrame, questions: pd.DataFrame) -> dict[str, pa.Table]:
    """``{split: Arrow table}`` of the version's items (import order):
    ``test`` the included items, ``excluded`` the others (absent when none)."""
    df = items[["seq", "question_id", "answer_key", "original_key", "action", "included"]].merge(
        questions[["question_id", "subject", "language", "stem", "options"]], on="question_id", how="left",
        validate="one_to_one").sort_values(["seq", "question_id"])

    def text(values) -> list:
        return [None if v is None or (isinstance(v, float) and pd.isna(v)) else str(v) for v in values]

    out = {}
    for split, mask in (("test", df["included"].astype(bool)), ("excluded", ~df["included"].astype(bool))):
        part = df[mask]
        if split == "excluded" and part.empty:
            continue
        opts = [list(o) for o in part["options"]]
        out[split] = pa.table({
            "question_id": text(part["question_id"]), "subject": text(part["subject"]),
            "language": text(part["language"]), "question": text(part["stem"]),
            "options": [[o["text"] for o in x] for x in opts], "option_labels": [[o["label"] for o in x] for x in opts],
            "answer": text(part["answer_key"]), "original_answer": text(part["original_key"]),
            "action": text(part["action"]),
        }, schema=_SCHEMA)
    return out


def _licence(source: str) -> tuple[str, str | None, str | None, str | None]:
    return KNOWN_SOURCES.get(source, UNKNOWN_LICENCE)


def _languages(tables: dict[str, pa.Table]) -> list[str]:
    """ISO 639-1/3 codes of the items' languages (``zh-Hans`` → ``zh``)."""
    langs = set()
    for t in tables.values():
        langs |= {str(x).split("-")[0] for x in t.column("language").to_pylist() if x}
    return sorted(langs)


def _size(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def _bibtex(rel: HubRelease) -> str:
    key = f"{rel.benchmark}_keys_{rel.version}".replace(".", "_").replace("-", "_")
    return (f"@misc{{{key},\n  title={{{rel.benchmark}: answer-key version {rel.version}}},\n"
            f"  note={{Answer keys corrected by expert review (policy {rel.policy_name})}},\n"
            f"  version={{{rel.version}}}\n}}")


def render_card(rel: HubRelease, tables: dict[str, pa.Table]) -> str:
    """The dataset card (``README.md``): YAML metadata, then the text."""
    import yaml

    hub_id, _, url, source_bib = _licence(rel.source)
    n = sum(t.num_rows for t in tables.values())
    meta = {
        "pretty_name": f"{rel.benchmark} (answer-key version {rel.version})",
        "license": hub_id,
        "language": _languages(tables) or ["und"],
        "task_categories": ["multiple-choice", "question-answering"],
        "task_ids": ["multiple-choice-qa"],
        "size_categories": [_size(n)],
        "tags": ["answer-key-audit", "corrected-answer-keys", "evaluation"],
        "configs": [{"config_name": "default", "data_files": [
            {"split": s, "path": f"data/{s}.parquet"} for s in SPLITS if s in tables]}],
    }
    c = rel.counts
    L = ["---", yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000).rstrip(), "---", "",
         f"# {rel.benchmark} — answer-key version {rel.version}", "",
         f"The items of `{rel.benchmark}` with the answer keys of version {rel.version}: the original keys, corrected "
         "where an expert review settled that a key was wrong, and without the items it settled as ambiguous or "
         "defective (they are in the `excluded` split).  Pin this version by its tag:", "",
         "```python", "from datasets import load_dataset", "",
         f'ds = load_dataset("ORG/NAME", revision="v{rel.version}")', "```", "",
         "## What changed in this version", "",
         f"- Parent version: {rel.parent or 'none (the original keys)'}; policy `{rel.policy_name}`: "
         f"{rel.policy_description}",
         f"- Items: {c['items']}; corrected: {c['corrected']}; excluded: {c['excluded']}; unchanged: "
         f"{c['unchanged']}; reviewed: {c['reviewed']}."]
    if len(rel.causes):
        L += ["", "| Action | Cause | Items |", "|---|---|---|"]
        L += [f"| {r.action} | {r.cause} | {int(r.n)} |" for r in rel.causes.itertuples()]
    L += ["", "The full list, item by item, is `CHANGELOG.csv` in the version's folder.", "",
          "## Key-error estimates", ""]
    e = (rel.impact or {}).get("expected_wrong_keys") if rel.impact and rel.impact.get("scored") else None
    if e:
        lvl = f"{100 * rel.impact['level']:.0f}%"
        L.append(f"Before this version's corrections, about {e['estimate']:.0f} of the {e['n_items']} keys were "
                 f"estimated wrong ({lvl} interval {e['low']:.0f}–{e['high']:.0f}; the audit's key-error model over "
                 f"the answers of {len(rel.models)} models and the settled verdicts).  This version corrects "
                 f"{c['corrected']} and leaves out {c['excluded']}; keys nobody reviewed may still be wrong.")
    else:
        L.append("No key-error estimate: the benchmark was audited with fewer than two models.")
    L += ["", "## Columns", "",
          "`question_id`, `subject`, `language`, `question`, `options` (option texts in order), `option_labels`, "
          "`answer` (the key in this version), `original_answer` (the key as first published), `action` "
          "(`unchanged`, `corrected` or `excluded`).", "",
          "## Licence", ""]
    L.append(f"[{hub_id}]({url}), the licence of the source benchmark." if url else
             "The licence of the source benchmark applies; check it before use (`license: other`).")
    L += ["", "## Citation", "", "```bibtex", _bibtex(rel), "```"]
    if source_bib:
        L += ["", "and the source benchmark:", "", "```bibtex", source_bib, "```"]
    return "\n".join(L) + "\n"


def render_citation(rel: HubRelease) -> str:
    """``CITATION.cff`` (Citation File Format 1.2.0)."""
    import yaml

    _, spdx, _, _ = _licence(rel.source)
    doc = {
        "cff-version": "1.2.0",
        "message": "If you use this version of the answer keys, please cite it as below.",
        "type": "dataset",
        "title": f"{rel.benchmark}: answer-key version {rel.version}",
        "version": rel.version,
        "authors": [{"name": f"The {rel.benchmark} answer-key reviewers"}],
        "abstract": (f"The items of {rel.benchmark} with answer keys corrected by expert review: "
                     f"{rel.counts['corrected']} corrected, {rel.counts['excluded']} excluded of "
                     f"{rel.counts['items']} items."),
        "keywords": ["answer keys", "benchmark", "evaluation", rel.benchmark],
    }
    if spdx:
        doc["license"] = spdx
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)


def _field(record_set: str, name: str, dtype: str, file_id: str, description: str, repeated: bool = False) -> dict:
    f: dict = {"@type": "cr:Field", "@id": f"{record_set}/{name}", "name": name, "description": description,
         "dataType": dtype, "source": {"fileObject": {"@id": file_id}, "extract": {"column": name}}}
    if repeated:
        f["repeated"] = True
    return f


_FIELDS = [("question_id", "sc:Text", "The item's id in the benchmark.", False),
           ("subject", "sc:Text", "The item's subject.", False),
           ("language", "sc:Text", "The item's language (BCP 47).", False),
           ("question", "sc:Text", "The question text.", False),
           ("options", "sc:Text", "The option texts, in order.", True),
           ("option_labels", "sc:Text", "The option labels, in order.", True),
           ("answer", "sc:Text", "The key in this version.", False),
           ("original_answer", "sc:Text", "The key as first published.", False),
           ("action", "sc:Text", "unchanged, corrected or excluded.", False)]


def render_croissant(rel: HubRelease, folder: Path, tables: dict[str, pa.Table]) -> str:
    """``croissant.json`` for the files already written under *folder*."""
    _, _, url, _ = _licence(rel.source)
    dist, records = [], []
    for split in tables:
        fid = f"{split}.parquet"
        dist.append({"@type": "cr:FileObject", "@id": fid, "name": fid, "contentUrl": f"data/{split}.parquet",
                     "encodingFormat": "application/x-parquet",
                     "sha256": sha256_file(folder / "data" / f"{split}.parquet")})
        records.append({"@type": "cr:RecordSet", "@id": split, "name": split,
                        "description": "Items this version includes." if split == "test" else
                        "Items this version leaves out (settled ambiguous or defective).",
                        "field": [_field(split, n, t, fid, d, r) for n, t, d, r in _FIELDS]})
    c = rel.counts
    e = rel.impact.get("expected_wrong_keys") if rel.impact and rel.impact.get("scored") else None
    left = (f"About {e['estimate']:.0f} of {e['n_items']} keys were estimated wrong before this version "
            f"(interval {e['low']:.0f}–{e['high']:.0f}); {c['items'] - c['reviewed']} items were never reviewed "
            "and may still have a wrong key." if e else
            f"{c['items'] - c['reviewed']} items were never reviewed and may still have a wrong key.")
    doc = {
        "@context": {
            "@language": "en", "@vocab": "https://schema.org/", "sc": "https://schema.org/",
            "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
            "dct": "http://purl.org/dc/terms/", "citeAs": "cr:citeAs", "column": "cr:column",
            "conformsTo": "dct:conformsTo", "data": {"@id": "cr:data", "@type": "@json"},
            "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "examples": {"@id": "cr:examples", "@type": "@json"},
            "extract": "cr:extract", "field": "cr:field", "fileProperty": "cr:fileProperty",
            "fileObject": "cr:fileObject", "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes",
            "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5",
            "parentField": "cr:parentField", "path": "cr:path", "recordSet": "cr:recordSet",
            "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace",
            "samplingRate": "cr:samplingRate", "separator": "cr:separator", "source": "cr:source",
            "subField": "cr:subField", "transform": "cr:transform",
        },
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": f"{rel.benchmark}-keys-{rel.version}",
        "description": (f"The items of {rel.benchmark} with the answer keys of version {rel.version}, corrected by "
                        "expert review of the keys that the answers of several models put in doubt."),
        "version": rel.version,
        "license": url or "other",
        "url": f"https://huggingface.co/datasets/ORG/NAME/tree/v{rel.version}",
        "citeAs": _bibtex(rel),
        "keywords": ["answer keys", "multiple choice", "evaluation"],
        "inLanguage": _languages(tables) or ["und"],
        "rai:dataCollection": (f"The items and their original keys come from the published {rel.benchmark} "
                               f"(source format '{rel.source}'); nothing was collected from people."),
        "rai:dataCollectionType": "Secondary data: an existing benchmark, re-published with corrected keys.",
        "rai:dataPreprocessingProtocol": ("Text NFC-normalised on import; options parsed into labels and texts; "
                                          "option labels stored as Latin A–F (Tibetan ཀ ཁ ག ང read as A–D)."),
        "rai:dataAnnotationProtocol": (
            f"Keys were put in doubt by the answers of {len(rel.models)} models (agreement tiers and a "
            "latent-class key-error score) and reviewed by experts; a verdict is settled when "
            + (f"the required reviewers ({rel.required_reviews}) agree" if rel.required_reviews
               else "the required reviewers agree")
            + f" or a lead adjudicates.  Export policy '{rel.policy_name}': {rel.policy_description}"),
        "rai:dataAnnotationPlatform": ", ".join(rel.platforms) or "answer-key-audit",
        "rai:annotationsPerItem": (f"Expert reviews per settled item: {rel.required_reviews or 'as required'}; "
                                   f"{c['reviewed']} of {c['items']} items reviewed by {rel.n_reviewers} "
                                   "reviewer(s)."),
        "rai:dataAnnotationAnalysis": rel.agreement or "No two reviewers reviewed the same item.",
        "rai:machineAnnotationTools": sorted(set(rel.models) | set(rel.judges)) or ["none"],
        "rai:annotatorDemographics": "Not recorded by the tool.",
        "rai:dataLimitations": left,
        "rai:dataBiases": ("Items were chosen for review where models disagreed with the key, so keys that every "
                           "model gets wrong alike (a shared misconception) and keys no model doubted are reviewed "
                           "less; models of one family answer alike."),
        "rai:dataUseCases": "Evaluating language models on multiple-choice questions; not for training them.",
        "rai:personalSensitiveInformation": "None known: exam questions. Reviewer names are not published.",
        "rai:dataSocialImpact": ("Corrected keys change published scores; the change from one version to the next is "
                                 "a key correction, not a change of the models."),
        "rai:dataReleaseMaintenancePlan": ("Each correction is a new immutable version with a changelog; a version "
                                           f"is never overwritten (parent of this one: {rel.parent or 'none'})."),
        "distribution": dist,
        "recordSet": records,
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def write_hf_layout(version_folder: Path, rel: HubRelease, items: pd.DataFrame, questions: pd.DataFrame) -> list[str]:
    """Write ``hf/`` into *version_folder*; returns the paths written,
    relative to the version folder (``hf/README.md``, …)."""
    root = Path(version_folder) / HF_DIR
    (root / "data").mkdir(parents=True, exist_ok=True)
    tables = split_table(items, questions)
    written = []
    for split, table in tables.items():
        pq.write_table(table, root / "data" / f"{split}.parquet", compression="zstd", write_statistics=False)
        written.append(f"{HF_DIR}/data/{split}.parquet")
    for name, text in ((CARD_NAME, render_card(rel, tables)), (CITATION_NAME, render_citation(rel)),
                       (CROISSANT_NAME, render_croissant(rel, root, tables))):
        (root / name).write_bytes(text.encode("utf-8"))
        written.append(f"{HF_DIR}/{name}")
    return sorted(written)


__all__ = ["HF_DIR", "CARD_NAME", "CROISSANT_NAME", "CITATION_NAME", "SPLITS", "KNOWN_SOURCES", "HubRelease",
           "split_table", "render_card", "render_citation", "render_croissant", "write_hf_layout"]
