"""A database where a benchmark has lived a while, for the pages that show it
(the Dashboards' "since the last version" and "compare" tabs, the Judges
page's reliability card, a reopened item's page):

* ``demo`` — the synthetic demo; a few keys settled wrong, a few settled
  right where the models were split; version 1.1 exported; then four new
  models that reject those settled keys, and a second analysis; two judges
  (a position-biased one with its permuted pass, one that knows the settled
  answers) with the Tibetan, Chinese and bilingual prompts, played by the
  local OpenAI-compatible server;
* ``tlue`` and ``tlue-cmmlu`` — two TLUE subjects and their CMMLU source,
  linked as parallel items, one CMMLU key changed.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pandas as pd

KEY = re.compile(r"(?:ལན་གྱི་ལྡེ་མིག|标准答案|Provided answer key)[^:\n]*:\s*([A-F])")
OPTION = re.compile(r"(?m)^([A-F])\. (.*)$")


def _q(db, sql, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).df()
    finally:
        con.close()


def build_living(db: Path, shared: Path, work: Path) -> dict:
    """Build the database at *db* (reference data in *shared*, scratch files
    in *work*); returns what the pages should show (``reopened``: item ids)."""
    from audit.analyze import analyze_benchmark
    from audit.demo import build_demo, demo_truth
    from audit.export import create_version
    from audit.ingest import import_parallel, import_predictions, import_questions, import_tlue
    from audit.review import add_review
    from audit.review.changes import review_changes

    build_demo(db)
    truth = demo_truth(db)
    wrong = sorted(q for q, t in truth.items() if t.get("injected_key_error"))[:5]
    for q in wrong:
        add_review("demo", q, "lead", "key_wrong", corrected_answer=truth[q]["true_answer"], cause="key_slip",
                   is_adjudication=True, db=db)
    s = _q(db, "SELECT question_id, p_reject, alternative FROM key_error_scores WHERE benchmark = 'demo' "
               "AND p_reject BETWEEN 0.2 AND 0.8 ORDER BY p_reject DESC LIMIT 6")
    for q in s["question_id"]:
        add_review("demo", q, "lead", "key_correct", is_adjudication=True, db=db)
    create_version("demo", "1.1", db=db, exports_dir=work / "exports")
    # four new models: the key almost everywhere, the alternative on the items settled right
    items = _q(db, "SELECT question_id, answer_key FROM questions WHERE benchmark = 'demo' ORDER BY seq")
    labels = {"A": "B", "B": "C", "C": "D", "D": "A"}
    alt = dict(zip(s["question_id"], s["alternative"]))
    rows = []
    for m in ("newcomer-a-70b", "newcomer-b-32b", "newcomer-c-8b", "newcomer-d-405b"):
        for i, r in enumerate(items.itertuples()):
            ans = alt.get(r.question_id) or (labels.get(r.answer_key, "A") if i % 23 == 0 else r.answer_key)
            rows.append((r.question_id, m, ans))
    f = work / "newcomers.csv"
    pd.DataFrame(rows, columns=["question_id", "model", "answer"]).to_csv(f, index=False)
    import_predictions(f, benchmark="demo", db=db)
    analyze_benchmark("demo", db=db)
    ch = review_changes("demo", db=db)
    # parallel benchmarks: two TLUE subjects and their CMMLU rows, one CMMLU key changed
    tl, cm = work / "tlue", work / "cmmlu"
    tl.mkdir()
    cm.mkdir()
    for subject in ("agronomy", "anatomy"):
        shutil.copy(shared / "tlue_subset670" / f"{subject}.jsonl", tl / f"{subject}.jsonl")
        shutil.copy(shared / "cmmlu_subset670" / f"{subject}.csv", cm / f"{subject}.csv")
    rows = pd.read_csv(cm / "agronomy.csv", dtype=str, keep_default_na=False)
    rows.loc[3, "Answer"] = {"A": "B", "B": "C", "C": "D", "D": "A"}[rows.loc[3, "Answer"]]
    rows.to_csv(cm / "agronomy.csv", index=False)
    import_tlue(tl, benchmark="tlue", db=db)
    import_questions(cm, benchmark="tlue-cmmlu", db=db, mapping={"Question": "question", "Answer": "answer",
                                                                "Unnamed: 0": "id"},
                     id_template="{file}{id}", constants={"language": "zh-Hans"})
    import_parallel(cm, benchmark="tlue", source="tlue-cmmlu", db=db)
    return {"reopened": ch.loc[ch["change"] == "reopened", "question_id"].tolist(), "changes": ch}


def _options(content: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in OPTION.finditer(content)}


def always_a(content: str):
    """A judge that always says the answer is the option shown as A."""
    key = KEY.search(content).group(1)
    if key == "A":
        return ("json", {"answer_key_correct": True, "correct_answer": None, "explanation": "A", "confidence": 0.9})
    return ("json", {"answer_key_correct": False, "correct_answer": "A", "explanation": "A", "confidence": 0.9})


def knower(items: dict, truth: dict, zh_doubts: set, blind: str):
    """A judge that knows *truth* (item → the right option's text), except
    the item *blind* (it says the next option) and, with the Chinese-only
    prompt, the items of *zh_doubts*.  ``items``: item → its stem."""
    def respond(content: str):
        qid = next(q for q, stem in items.items() if stem in content)
        key = KEY.search(content).group(1)
        shown = {text: label for label, text in _options(content).items()}
        ordered = sorted(shown.values())
        right = shown.get(truth[qid], key)
        zh_only = "标准答案" in content and "ལན་གྱི་ལྡེ་མིག" not in content
        if (zh_only and qid in zh_doubts) or qid == blind:
            right = ordered[(ordered.index(right) + 1) % len(ordered)]
        if right == key:
            return ("json", {"answer_key_correct": True, "correct_answer": None, "explanation": "ok",
                             "confidence": 0.8})
        return ("json", {"answer_key_correct": False, "correct_answer": right, "explanation": "no",
                         "confidence": 0.8})
    return respond


def add_judges(db: Path, server_cls, n: int = 16) -> None:
    """Two judges on *n* demo items, the settled ones first (see the module
    docstring).  The stand-in API key is set only while they run: a key left
    in this process's environment would be a secret every later test of the
    process redacts."""
    import os

    import pytest

    with pytest.MonkeyPatch.context() as mp:
        if "OPENAI_API_KEY" not in os.environ:
            mp.setenv("OPENAI_API_KEY", "sk-test")
        _add_judges(db, server_cls, n)


def _add_judges(db: Path, server_cls, n: int) -> None:
    from audit.judge import run_judge

    q = _q(db, "SELECT question_id, stem, options, answer_key FROM questions WHERE benchmark = 'demo' ORDER BY seq")
    settled = _q(db, "SELECT question_id, verdict, corrected_answer FROM reviews WHERE benchmark = 'demo'")
    chosen = list(settled["question_id"]) + [x for x in q["question_id"] if x not in set(settled["question_id"])]
    q = q[q["question_id"].isin(chosen[:n])]
    fix = {r.question_id: r.corrected_answer for r in settled.itertuples() if r.verdict == "key_wrong"}
    truth = {}
    for r in q.itertuples():
        text = {o["label"]: o["text"] for o in r.options}
        truth[r.question_id] = text.get(fix.get(r.question_id, r.answer_key))
    stems = dict(zip(q["question_id"], q["stem"]))
    ids = list(q["question_id"])

    def run(server, judge, prompt, permute=False):
        run_judge("openai/judge", "demo", db=db, judge_name=judge, prompt=prompt, permute=permute,
                  api_base=server.base, concurrency=2, max_retries=0, timeout=20, progress=False, question_ids=ids)

    with server_cls(respond=always_a) as s:
        run(s, "mistral-small-position", "tlue-bo")
        run(s, "mistral-small-position", "tlue-bo", True)
    with server_cls(respond=knower(stems, truth, set(ids[3:6]), ids[1])) as s:
        for prompt in ("tlue-bo", "tlue-zh", "tlue-bilingual"):
            run(s, "qwen2.5-7b-judge", prompt)
        run(s, "qwen2.5-7b-judge", "tlue-bo", True)
