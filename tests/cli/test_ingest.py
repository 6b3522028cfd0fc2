"""audit.cli.ingest: the ``audit import …`` commands through the Typer app on
a real DuckDB file — --help of each, question and prediction files, HELM,
MMLU-Redux, parallel sources, ``import auto`` (each printing the summary its
library function returns: the same import into a second file gives the same
text), ``--set`` parsing, and refusals as one line on stderr with exit code
1 that names the fix (a usage error is click's exit 2)."""
import json
import re
import shutil

import pandas as pd
import pytest

from audit.cli.ingest import parse_set
from audit.errors import InputError
from audit.ingest import import_mmlu_redux, import_predictions, import_questions
from tests.support.cli import invoke, run_main
from tests.support.tiny import rows, write_questions

IMPORTS = ["tlue", "questions", "predictions", "helm", "mmlu-redux", "parallel", "lm-eval", "inspect", "auto",
           "outputs"]
ITEMS = [("q1", "2+2?", ["3", "4", "5", "6"], "B"), ("q2", "ལྷ་ས་གང་དུ་ཡོད།", ["བོད།", "རྒྱ་ནག", "=HYPERLINK()"], "A C")]


@pytest.mark.parametrize("name", IMPORTS)
def test_help(name):
    r = invoke(["import", name, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")


def _timeless(text):
    return re.sub(r" \[[\d.]+ s\]", "", text)


def test_questions_and_predictions_match_the_library(db_path, migrated_template, tmp_path):
    q = write_questions(tmp_path / "q.csv", ITEMS)
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,response\nq1,m,The answer is B\nq2,m,A and C\n", encoding="utf-8")
    dry = invoke(["import", "questions", q, "-b", "x", "--dry-run", "--db", db_path])
    assert dry.exit_code == 0 and "[q2] ལྷ་ས་གང་དུ་ཡོད།" in dry.output and "dry run: nothing was written" in dry.output
    assert rows(db_path, "SELECT count(*) FROM questions") == [(0,)]
    r1 = invoke(["import", "questions", q, "-b", "x", "--set", "language=bo", "--db", db_path])
    r2 = invoke(["import", "predictions", p, "-b", "x", "--db", db_path])
    assert r1.exit_code == r2.exit_code == 0
    other = tmp_path / "other.duckdb"
    shutil.copyfile(migrated_template, other)
    assert r1.output == str(import_questions(q, benchmark="x", db=other, constants={"language": "bo"})) + "\n"
    assert _timeless(r2.output) == _timeless(str(import_predictions(p, benchmark="x", db=other))) + "\n"
    assert rows(db_path, "SELECT question_id, answer FROM predictions ORDER BY 1") == [("q1", "B"), ("q2", "AC")]
    assert rows(db_path, "SELECT DISTINCT language FROM questions") == [("bo",)]


def test_wide_predictions_with_a_map(db_path, tmp_path):
    import_questions(write_questions(tmp_path / "q.csv", ITEMS), benchmark="x", db=db_path)
    f = tmp_path / "wide.csv"
    f.write_text("item,gpt-4o,llama-3\nq1,B,C\nq2,AC,A\n", encoding="utf-8")
    r = invoke(["import", "predictions", f, "-b", "x", "--layout", "wide", "--map", "item=question_id",
                "--db", db_path])
    assert r.exit_code == 0 and "4 predictions of 2 model(s)" in r.output


def test_mmlu_redux_and_parallel(db_path, migrated_template, tmp_path):
    d = tmp_path / "redux"
    d.mkdir()
    pd.DataFrame([["Q?", "['a', 'b', 'c']", 1, "ok", "B"]],
                 columns=["question", "choices", "groundtruth_answer", "error_type", "gpt-4o"]).to_csv(
        d / "anatomy.csv", index=False)
    r = invoke(["import", "mmlu-redux", d, "--db", db_path])
    other = tmp_path / "other.duckdb"
    shutil.copyfile(migrated_template, other)
    assert r.exit_code == 0 and r.output == str(import_mmlu_redux(d, db=other)) + "\n"
    import_questions(write_questions(tmp_path / "t.csv", [("anatomy0", "ཀ?", ["a", "b", "c"], "A")]),
                     benchmark="tlue", db=db_path)
    src = tmp_path / "src"
    src.mkdir()
    pd.DataFrame([[0, "问题", "甲", "乙", "丙", "B"], [5, "别的", "甲", "乙", "丙", "A"]],
                 columns=["", "Question", "A", "B", "C", "Answer"]).to_csv(src / "anatomy.csv", index=False)
    r = invoke(["import", "parallel", src, "--source", "cmmlu", "--db", db_path])
    assert r.exit_code == 0
    assert r.output == ("linked 1 questions of 'tlue' to cmmlu: 1 key mismatch(es) (anatomy0); "
                        "1 rows had no question in the benchmark\n")


def test_helm(db_path, tmp_path):
    refs = ["10%", "20%", "40%", "80%"]
    inst = {"input": {"text": "Share?"}, "id": "id1",
            "references": [{"output": {"text": t}, "tags": ["correct"] if t == "40%" else []} for t in refs]}
    state = {"instance": inst, "output_mapping": dict(zip("ABCD", refs)), "result": {"completions": [{"text": "C"}]}}
    f = tmp_path / "global_facts.json"
    f.write_text(json.dumps({"adapter_spec": {"model": "openai/gpt-4o"}, "request_states": [state]}), encoding="utf-8")
    r = invoke(["import", "helm", f, "--db", db_path])
    assert r.exit_code == 0
    assert r.output == ("imported 1 questions and 1 predictions of 1 models from 1 HELM file(s) into "
                        "'global_facts' (0 invalid)\n")


def test_auto_recognises_then_imports(db_path, tmp_path):
    q = write_questions(tmp_path / "q.csv", ITEMS)
    r = invoke(["import", "auto", q, "-b", "y", "--dry-run", "--db", db_path])
    assert r.exit_code == 0 and r.output.startswith("found: questions")
    assert "nothing was written" in r.output       # a question file's own summary says so
    assert rows(db_path, "SELECT count(*) FROM questions") == [(0,)]
    r = invoke(["import", "auto", q, "-b", "y", "--db", db_path])
    assert r.exit_code == 0 and "imported 2 questions into 'y'" in r.output


def test_parse_set():
    assert parse_set(None) == {} and parse_set([" language = kk ", "script=Arab"]) == {"language": "kk",
                                                                                         "script": "Arab"}
    assert parse_set(["note="]) == {"note": ""}
    with pytest.raises(InputError, match="--set expects FIELD=VALUE"):
        parse_set(["language"])
    with pytest.raises(InputError, match="--set expects FIELD=VALUE"):
        parse_set(["=kk"])
    with pytest.raises(InputError, match="--set names 'language' twice"):
        parse_set(["language=kk", "language=ug"])


@pytest.mark.parametrize("case", ["unknown ids", "missing file", "bad set", "no options"])
def test_refusals_are_one_line(db_path, tmp_path, case):
    q = write_questions(tmp_path / "q.csv", ITEMS)
    import_questions(q, benchmark="x", db=db_path)
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer\nq1,m,B\nzz,m,A\n", encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text("id,question,answer\nb1,Q?,A\n", encoding="utf-8")
    args, message = {
        "unknown ids": (["import", "predictions", p, "-b", "x"], "pass --skip-unknown to skip and report those rows"),
        "missing file": (["import", "questions", tmp_path / "nope.csv", "-b", "x"], "nope.csv"),
        "bad set": (["import", "questions", q, "-b", "x", "--set", "lang"], "--set expects FIELD=VALUE"),
        "no options": (["import", "questions", bad, "-b", "z"], "bad.csv"),
    }[case]
    r = run_main([*args, "--db", db_path])
    assert r.code == 1 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr
    assert rows(db_path, "SELECT count(*) FROM predictions") == [(0,)]


def test_in_place_refuses_other_layouts_as_a_usage_error(db_path, tmp_path):
    r = run_main(["import", "predictions", tmp_path / "p.parquet", "-b", "x", "--in-place", "--layout", "wide",
                  "--db", db_path])
    assert r.code == 2 and "--in-place reads the long layout" in r.stderr and "Traceback" not in r.stderr
