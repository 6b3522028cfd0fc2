"""The passage an item refers to reaches the model and the judge.

Published files in AGIEval's and CLIcK's layouts are imported with
``audit import auto`` (no flags), then a judge run and a model run go
through litellm's real request path to a scripted OpenAI-compatible server
on 127.0.0.1 (tests/support/judge_server.py).  Every prompt the server received
must give the passage, a blank line, then the question, exactly as
:func:`audit.llm.prompts.render_question` renders it; an item whose passage
is empty gets its question alone.  The expectations are read from the
source files with ``json``, not through the importer.
"""
from __future__ import annotations

import json

import pytest

from audit.judge import run_judge
from audit.llm.prompts import render_question
from audit.predict import run_predict
from tests.support.cli import run_cli
from tests.support.judge_server import JudgeServer
from tests.support.layouts import read_jsonl, write_agieval_logiqa, write_click

KEY = "sk-test-passages-5e1d"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer(default_reply=lambda qid: ("text", "Answer: A")) as s:
        yield s


def _import(capsys, path, bench, db) -> None:
    code, _out, err = run_cli(capsys, "import", "auto", path, "-b", bench, "--db", db)
    assert code == 0, err


def _run_args(server, db, bench) -> dict:
    return dict(benchmark=bench, db=db, api_base=server.base, concurrency=2, timeout=5.0, max_retries=1,
                backoff_base=0.05, input_cost_per_token=1e-6, output_cost_per_token=1e-6, progress=False)


def _prompt_of(prompts: list[str], question: str) -> str:
    hits = [p for p in prompts if question in p]
    assert len(hits) == 1, f"{len(hits)} prompts hold the question {question[:40]!r}"
    return hits[0]


def _check(prompts: list[str], records: list[tuple[str, str]]) -> None:
    """Each (passage, question) of the source has one prompt that gives the
    passage, a blank line, then the question; an empty passage adds nothing."""
    for passage, question in records:
        prompt = _prompt_of(prompts, question)
        if passage.strip():
            assert f"{passage.strip()}\n\n{question}" in prompt, "the passage comes right before the question"
            assert prompt.count(passage.strip()) == 1
            assert render_question(question, passage) in prompt
        else:
            assert render_question(question, passage) == question
            assert "\n\n" + question not in prompt, "no blank passage before the question"


@pytest.mark.parametrize("stage", ["judge", "predict"])
def test_agieval_passages_are_in_every_prompt(tmp_path, db_path, capsys, server, stage):
    src = write_agieval_logiqa(tmp_path, "zh")
    _import(capsys, src, "logiqa", db_path)
    records = read_jsonl(src)
    if stage == "judge":
        s = run_judge("openai/test-judge", **_run_args(server, db_path, "logiqa"))
    else:
        s = run_predict("openai/test-model", **_run_args(server, db_path, "logiqa"))
    assert (s.n_selected, s.n_requested) == (len(records), len(records))
    assert len(server.prompts) == len(records)
    _check(server.prompts, [(r["passage"], r["question"]) for r in records])
    if stage == "judge":
        # the judge is told the key it checks, after the passage and the question
        for r in records:
            p = _prompt_of(server.prompts, r["question"])
            assert p.index(r["passage"]) < p.index(r["question"]) < p.index(f"Provided answer key: {r['label']}")


def test_click_items_with_and_without_a_paragraph(tmp_path, db_path, capsys, server):
    topik = write_click(tmp_path) / "Language" / "Textual" / "Textual_TOPIK.json"
    _import(capsys, topik, "click", db_path)
    records = json.loads(topik.read_text(encoding="utf-8"))
    assert any(r["paragraph"] for r in records) and any(not r["paragraph"] for r in records)
    run_judge("openai/test-judge", **_run_args(server, db_path, "click"))
    judged = list(server.prompts)
    run_predict("openai/test-model", **_run_args(server, db_path, "click"))
    asked = server.prompts[len(judged):]
    for prompts in (judged, asked):
        assert len(prompts) == len(records)
        _check(prompts, [(r["paragraph"], r["question"]) for r in records])


def test_a_custom_template_gets_the_passage_in_its_question_placeholder(tmp_path, db_path, capsys, server):
    src = write_agieval_logiqa(tmp_path, "en")
    _import(capsys, src, "logiqa", db_path)
    tpl = tmp_path / "mine.txt"
    tpl.write_text("Read and answer.\n${question}\n${options}\nReply with one of ${labels}.\n", encoding="utf-8")
    run_predict("openai/test-model", prompt=tpl, **_run_args(server, db_path, "logiqa"))
    records = read_jsonl(src)
    _check(server.prompts, [(r["passage"], r["question"]) for r in records])
    for r in records:
        assert _prompt_of(server.prompts, r["question"]).startswith(f"Read and answer.\n{r['passage']}\n\n")
