"""Every ``audit …`` usage shown in the data-formats reference
(docs/reference/formats.md, formerly the README's "Data formats" section)
names a real command and real options, and is run here on a small file
written by the test (or the reference data it names).  ``import lm-eval``,
``import inspect`` and ``import auto`` run in
tests/ingest/formats/test_harness.py::test_readme_harness_commands, on logs written by
the real libraries."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
import typer.main

from audit.cli import app
from tests.conftest import SHARED_DATA
from tests.support.analyze_data import run_cli

ROOT = Path(__file__).resolve().parents[2]
FORMATS = (ROOT / "docs" / "reference" / "formats.md").read_text(encoding="utf-8")

HARNESS_COMMANDS = {"import lm-eval", "import inspect", "import auto"}


def data_format_usages() -> list[str]:
    text = FORMATS
    return [re.sub(r"\s+", " ", u) for u in re.findall(r"`(audit [^`]+)`", text)]


def _command(words: list[str]):
    cmd = typer.main.get_command(app)
    for w in words:
        cmd = cmd.commands[w]
    return cmd


def _check_usage(usage: str) -> list[str]:
    """The command words of a usage line, after checking that they name a
    real command and that every --option shown is one of its options."""
    tokens = usage.replace("[", " ").replace("]", " ").split()[1:]
    words = []
    for t in tokens:
        if t.startswith("-") or not re.fullmatch(r"[a-z][a-z-]*", t):
            break
        words.append(t)
    cmd = _command(words)
    known = {o for p in cmd.params for o in p.opts}
    shown = {t.split("=")[0] for t in tokens if t.startswith("--")}
    assert shown <= known, (
        f"docs/reference/formats.md shows {sorted(shown - known)} for 'audit {' '.join(words)}' "
        f"(it has {sorted(known)})"
    )
    return words


def _run(*args) -> str:
    r = run_cli(*args)
    assert r.returncode == 0, f"audit {' '.join(map(str, args))}: {r.stderr}"
    return r.stdout


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("AUDIT_DB", str(tmp_path / "readme.duckdb"))
    monkeypatch.setenv("AUDIT_EXPORTS", str(tmp_path / "exports"))
    monkeypatch.chdir(ROOT)
    return tmp_path


def test_the_formats_page_shows_real_commands():
    usages = data_format_usages()
    assert len(usages) >= 6
    for u in usages:
        _check_usage(u)


@pytest.mark.slow
def test_data_format_commands_run(env):
    usages = {" ".join(_check_usage(u)): u for u in data_format_usages()}
    ran = set()
    # Questions: the generic layout
    q = env / "questions.csv"
    with q.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "A", "B", "C", "D", "answer", "subject"])
        for i in range(6):
            w.writerow([f"q{i}", f"{i} + 1 = ?", str(i), str(i + 1), str(i + 2), str(i + 3), "B", "math"])
    assert "6" in _run("import", "questions", q, "--benchmark", "toy")
    ran.add("import questions")
    # Predictions: long (raw responses, one model named with --model), wide, seed
    long = env / "long.jsonl"
    long.write_text("".join(json.dumps({"question_id": f"q{i}", "response": f"The answer is {'B' if i % 2 else 'C'}."})
                            + "\n" for i in range(6)), encoding="utf-8")
    _run("import", "predictions", long, "--benchmark", "toy", "--layout", "long", "--method", "caa",
         "--model", "m-long", "--run", "r1")
    wide = env / "wide.csv"
    wide.write_text("question_id,m-a,m-b\n" + "".join(f"q{i},B,{'A' if i else 'B'}\n" for i in range(6)),
                    encoding="utf-8")
    _run("import", "predictions", wide, "--benchmark", "toy", "--layout", "wide")
    seed = env / "m-seed_combined_results.jsonl"
    seed.write_text("".join(json.dumps({"loc": f"q{i}", "extracted_answer": ["B"], "answer": "B",
                                        "polished_ti_content": "x"}) + "\n" for i in range(6)), encoding="utf-8")
    _run("import", "predictions", seed, "--benchmark", "toy", "--layout", "seed", "--method", "da")
    ran.add("import predictions")
    models = _run("models", "list")
    assert all(m in models for m in ("m-long", "m-a", "m-b", "m-seed"))
    _run("models", "set-family", "m-a", "family-x")
    ran.add("models set-family")
    # Readers' error reports (a lead's act; this database has no accounts)
    rep = env / "reports.json"
    rep.write_text(json.dumps([{"question_id": "q1", "text": "the key is wrong", "answer": "C", "name": "Reader"}]),
                   encoding="utf-8")
    assert "1 error report" in _run("import", "reports", rep, "--benchmark", "toy")
    ran.add("import reports")
    if SHARED_DATA.exists():
        _run("import", "helm", SHARED_DATA / "helm_global_facts")
        _run("import", "mmlu-redux", SHARED_DATA / "mmlu_redux_dev", "--benchmark", "mmlu-redux")
        _run("import", "tlue", SHARED_DATA / "tlue_subset670")
        out = _run("import", "parallel", SHARED_DATA / "cmmlu_subset670", "--source", "cmmlu", "--benchmark", "tlue")
        assert "link" in out
        ran |= {"import helm", "import mmlu-redux", "import parallel"}
    missing = set(usages) - ran - HARNESS_COMMANDS
    if missing and not SHARED_DATA.exists():
        pytest.skip(f"{sorted(missing)} need the reference data {SHARED_DATA}")
    assert not missing, f"data-format commands not run here: {sorted(missing)}"
