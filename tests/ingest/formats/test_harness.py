"""Harness logs written by the real libraries.

* lm-evaluation-harness: its own ``lm_eval`` CLI (from ``.lm-eval-venv``,
  installed by ``.ci/install-lm-eval``; or ``$AUDIT_LM_EVAL_BIN``) runs the
  built-in ``dummy`` model on two tiny tasks built here from a local JSONL
  file (no hub download): a log-likelihood multiple-choice task and a
  generate-until task.
* inspect-ai: ``inspect_ai.eval`` with the ``mockllm/model`` provider and
  scripted outputs, ``multiple_choice()`` solver and ``choice()`` scorer.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from audit.ingest import import_lm_eval
from tests.conftest import REPO, db_snapshot
from tests.support.common import rows, run_cli

LM_EVAL_BIN = Path(os.environ.get("AUDIT_LM_EVAL_BIN", REPO / ".lm-eval-venv" / "bin" / "lm_eval"))

DOCS = [
    {"id": "q1", "question": "2+2?", "choices": ["3", "4", "5", "6"], "label": 1},
    {"id": "q2", "question": "Capital of France?", "choices": ["Paris", "Rome", "Oslo", "Bern"], "label": 0},
    {"id": "q3", "question": "ལྷ་ས་གང་དུ་ཡོད།", "choices": ["བོད།", "རྒྱ་ནག", "ཨིན་ཇི།"], "label": 0},
]


@pytest.fixture(scope="module")
def lm_eval_logs(tmp_path_factory) -> Path:
    if not LM_EVAL_BIN.exists():
        pytest.skip(f"lm-eval is not installed ({LM_EVAL_BIN}; run .ci/install-lm-eval or set AUDIT_LM_EVAL_BIN)")
    d = tmp_path_factory.mktemp("lmeval")
    data = d / "data.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in DOCS), encoding="utf-8")
    common = (f"dataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\ntest_split: test\n")
    (d / "tiny_mc.yaml").write_text(
        "task: tiny_mc\n" + common + "output_type: multiple_choice\n"
        'doc_to_text: "{{question}}\\nAnswer:"\ndoc_to_choice: "{{choices}}"\ndoc_to_target: label\n'
        "metric_list:\n  - metric: acc\n", encoding="utf-8")
    (d / "tiny_gen.yaml").write_text(
        "task: tiny_gen\n" + common + "output_type: generate_until\n"
        'doc_to_text: "{{question}}\\nAnswer:"\n'
        "doc_to_target: \"{{['A','B','C','D'][label]}}\"\n"
        'generation_kwargs:\n  until: ["\\n"]\nmetric_list:\n  - metric: exact_match\n', encoding="utf-8")
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_HOME=str(d / "hf"), HF_DATASETS_CACHE=str(d / "hf" / "datasets"))
    r = subprocess.run([str(LM_EVAL_BIN), "--model", "dummy", "--tasks", "tiny_mc,tiny_gen", "--include_path", str(d),
                        "--output_path", str(d / "out"), "--log_samples"], env=env, cwd=d,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return d / "out"


def _samples(out: Path, task: str) -> Path:
    (f,) = out.rglob(f"samples_{task}_*.jsonl")
    return f


@pytest.mark.slow
def test_lm_eval_loglikelihood_choice_and_questions_from_docs(lm_eval_logs, db_path, capsys):
    f = _samples(lm_eval_logs, "tiny_mc")
    code, out, err = run_cli(capsys, "import", "lm-eval", f, "--db", db_path)
    assert code == 0, err
    assert "3 questions from the logged documents" in out and "model 'dummy'" in out
    q = {r[0]: r[1:] for r in rows(db_path, "SELECT question_id, stem, [o.text FOR o IN options], answer_key, script "
                                           "FROM questions WHERE benchmark = 'tiny_mc'")}
    scripts = {"q1": None, "q2": "Latn", "q3": "Tibt"}  # "2+2?" has no letters
    assert q == {d["id"]: (d["question"], d["choices"], "ABCD"[d["label"]], scripts[d["id"]]) for d in DOCS}
    # independent check: numpy argmax over the log-likelihoods lm-eval wrote
    expected = {}
    for line in f.read_text().splitlines():
        s = json.loads(line)
        ll = [float(r[0]) for r in s["filtered_resps"]]
        expected[s["doc"]["id"]] = "ABCDEF"[int(np.argmax(ll))]
    got = dict(rows(db_path, "SELECT question_id, answer FROM predictions WHERE benchmark = 'tiny_mc' AND valid"))
    assert got == expected and len(got) == 3


@pytest.mark.slow
def test_lm_eval_generated_answers_into_existing_benchmark(lm_eval_logs, db_path):
    import_lm_eval(_samples(lm_eval_logs, "tiny_mc"), db=db_path)
    s = import_lm_eval(_samples(lm_eval_logs, "tiny_gen"), benchmark="tiny_mc", run="gen", db=db_path)
    assert s.questions_created == 0 and s.predictions == 3
    # the dummy model answers "lol" to every prompt: stored raw, no letter in it
    assert rows(db_path, "SELECT DISTINCT response, answer, valid, method FROM predictions WHERE run = 'gen'") == [
        ("lol", None, False, "caa")]
    assert rows(db_path, "SELECT count(*) FROM questions") == [(3,)]


@pytest.mark.slow
def test_lm_eval_folder_needs_benchmark_and_bad_line(lm_eval_logs, tmp_path, db_path, capsys):
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "lm-eval", lm_eval_logs, "--db", db_path)
    assert code == 1 and "2 tasks in these logs (tiny_gen, tiny_mc); pass --benchmark" in err, err
    bad = tmp_path / "samples_tiny_mc_2026-01-01T00-00-00.0.jsonl"
    lines = _samples(lm_eval_logs, "tiny_mc").read_text().splitlines()
    bad.write_text(lines[0] + "\n" + lines[1][:40] + "\n")
    code, out, err = run_cli(capsys, "import", "lm-eval", bad, "--db", db_path)
    assert code == 1 and re.match(rf"error: {re.escape(str(bad))}:2: not valid JSON", err), err
    assert db_snapshot(db_path) == before
    code, out, err = run_cli(capsys, "import", "auto", lm_eval_logs, "-b", "both", "--db", db_path)
    assert code == 0 and out.startswith("found: lm-eval") and "6 predictions" in out, (out, err)


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory) -> Path:
    pytest.importorskip("inspect_ai", reason="inspect-ai is not installed (pip install 'answer-key-audit[inspect]')")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import choice
    from inspect_ai.solver import multiple_choice

    d = tmp_path_factory.mktemp("inspect")
    ds = MemoryDataset([
        Sample(id="q1", input="2+2?", choices=["3", "4", "5", "6"], target="B"),
        Sample(id="q2", input="Which are primes?", choices=["2", "4", "5", "9"], target=["A", "C"]),
        Sample(id="q3", input="Capital of France?", choices=["Paris", "Rome", "Oslo"], target="A"),
    ])
    outputs = []
    for text in ("ANSWER: B", "ANSWER: A,C", "I think it is Rome"):
        o = ModelOutput.from_content(model="mockllm/model", content=text)
        o.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)  # no tokenizer download
        outputs.append(o)
    logs = inspect_eval(Task(dataset=ds, solver=multiple_choice(), scorer=choice(), name="tiny_inspect"),
                        model=get_model("mockllm/model", custom_outputs=outputs), log_dir=str(d), display="none")
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


@pytest.mark.slow
def test_inspect_log(inspect_log, db_path, capsys):
    code, out, err = run_cli(capsys, "import", "inspect", inspect_log, "--db", db_path)
    assert code == 0, err
    assert "3 questions from the logged documents" in out and "'mockllm/model'" in out
    q = {r[0]: r[1:] for r in rows(db_path, "SELECT question_id, answer_key, flags FROM questions "
                                           "WHERE benchmark = 'tiny_inspect'")}
    assert q == {"q1": ("B", []), "q2": ("AC", ["multi_answer"]), "q3": ("A", [])}
    p = {r[0]: r[1:] for r in rows(db_path, "SELECT question_id, answer, valid, method FROM predictions")}
    # q1: the choice() scorer's letter; q2: a set extracted from "ANSWER: A,C"; q3: no letter
    assert p == {"q1": ("B", True, "given"), "q2": ("AC", True, "caa"), "q3": (None, False, "caa")}


@pytest.mark.slow
def test_inspect_bad_file(tmp_path, db_path, capsys):
    pytest.importorskip("inspect_ai")
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"not a zip file")
    before = db_snapshot(db_path)
    code, out, err = run_cli(capsys, "import", "inspect", bad, "--db", db_path)
    assert code == 1 and err.startswith(f"error: {bad}: not an inspect eval log"), err
    assert db_snapshot(db_path) == before


@pytest.mark.slow
def test_readme_harness_commands(lm_eval_logs, inspect_log, db_path, capsys):
    """The README's data-format usages of `import lm-eval`, `import inspect`
    and `import auto`, run on logs written by the real libraries (the README
    test, tests/docs/test_readme.py, checks their options and leaves the
    running to this test, which has the logs)."""
    f = _samples(lm_eval_logs, "tiny_mc")
    code, out, err = run_cli(capsys, "import", "lm-eval", f, "--benchmark", "readme_lm", "--model", "dummy-1",
                             "--run", "r1", "--db", db_path)
    assert code == 0 and "dummy-1" in out, err
    code, out, err = run_cli(capsys, "import", "inspect", inspect_log, "--benchmark", "readme_inspect", "--db", db_path)
    assert code == 0, err
    code, out, err = run_cli(capsys, "import", "auto", inspect_log, "--benchmark", "readme_auto", "--dry-run",
                             "--db", db_path)
    assert code == 0 and out.startswith("found: inspect"), (out, err)
    assert rows(db_path, "SELECT count(*) FROM predictions WHERE benchmark = 'readme_lm' AND model = 'dummy-1' "
                         "AND run = 'r1'") == [(3,)]
    assert rows(db_path, "SELECT count(*) FROM questions WHERE benchmark = 'readme_auto'") == [(0,)]
