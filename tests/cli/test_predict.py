"""audit.cli.predict: ``audit predict run|list|prompt`` and ``audit
predictions reextract|methods`` through the Typer app on a real DuckDB file
— --help of each, the shipped prompts and their versions, the stored
extraction methods and a re-extraction printing what the library reports
(the same re-extraction of a copy gives the same lines), one real run
against the local OpenAI-compatible server (slow: litellm loads), and
refusals as one line on stderr with exit code 1 that name the fix."""
import shutil

import pytest

from audit.ingest import import_predictions, import_questions
from audit.predict import extraction_methods, load_predict_prompt, reextract
from tests.support.cli import invoke, run_main
from tests.support.tiny import rows, write_questions

COMMANDS = [["predict", "run"], ["predict", "list"], ["predict", "prompt"], ["predictions", "reextract"],
            ["predictions", "methods"]]


@pytest.fixture
def db(db_path, tmp_path):
    items = [("q1", "2+2?", ["3", "4", "5", "6"], "B"), ("q2", "Capital?", ["Paris", "Rome", "Oslo"], "A")]
    import_questions(write_questions(tmp_path / "q.csv", items), benchmark="x", db=db_path)
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,response\nq1,m,A B C D so B\nq2,m,Paris\n", encoding="utf-8")
    import_predictions(p, benchmark="x", db=db_path, method="da")
    return db_path


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help(cmd):
    r = invoke([*cmd, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")


@pytest.mark.parametrize("style,lang", [("direct", None), ("reasoning", "bo"), ("reasoning", "zh")])
def test_prompt_prints_the_shipped_template(style, lang):
    r = invoke(["predict", "prompt", "--style", style] + (["--instructions", lang] if lang else []))
    p = load_predict_prompt(style=style, instructions=lang)
    assert r.output == f"# {p.name} · prompt version {p.version}\n" + p.template.rstrip("\n") + "\n"
    assert "${question}" in r.output


def test_list_without_runs(db):
    assert invoke(["predict", "list", "--db", db]).output == "(no predict runs)\n"


def test_methods_and_reextract_match_the_library(db, tmp_path):
    r = invoke(["predictions", "methods", "-b", "x", "--db", db])
    assert r.output == extraction_methods("x", db=db).to_string(index=False) + "\n"
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(db, copy)
    r = invoke(["predictions", "reextract", "--method", "caa", "-b", "x", "--db", db])
    assert r.exit_code == 0
    assert r.output.splitlines() == reextract("x", method="caa", db=copy).lines()
    assert "answered 0 → 1" in r.output              # "A B C D so B": the listed options dropped under caa
    assert rows(db, "SELECT question_id, answer, method FROM predictions ORDER BY 1") == [
        ("q1", "B", "caa"), ("q2", None, "caa")]
    assert invoke(["predictions", "methods", "-b", "x", "--db", db]).output.split("\n")[1].split() == [
        "m", "default", "caa", "2", "1"]


@pytest.mark.slow
def test_a_run_against_a_local_server(db, monkeypatch):
    from tests.support.judge_server import JudgeServer

    monkeypatch.setenv("LOCAL_SERVER_KEY", "any value")

    with JudgeServer(respond=lambda prompt: ("text", "Answer: B")) as server:
        r = invoke(["predict", "run", "-m", "openai/local-model", "-b", "x", "--api-base", server.base,
                    "--api-key-env", "LOCAL_SERVER_KEY", "--no-progress", "--db", db])
    assert r.exit_code == 0, r.output
    assert rows(db, "SELECT question_id, answer FROM predictions WHERE model = 'openai/local-model' ORDER BY 1") == [
        ("q1", "B"), ("q2", "B")]
    listed = invoke(["predict", "list", "--db", db]).output.splitlines()
    assert len(listed) == 2 and "openai/local-model" in listed[1]


@pytest.mark.parametrize("args,message", [
    (["predict", "prompt", "--style", "bogus"], "unknown prompt style 'bogus' (use direct or reasoning)"),
    (["predict", "run", "-m", "openai/x", "-b", "nope"], "no benchmark named 'nope' (known: x)"),
    (["predictions", "reextract", "--method", "bogus", "-b", "x"], "use one of final, caa, da, tlue-caa, tlue-da"),
    (["predictions", "methods", "-b", "nope"], "no benchmark named 'nope'"),
])
def test_refusals_are_one_line(db, args, message):
    r = run_main([*args] + (["--db", db] if args[1] != "prompt" else []))
    assert r.code == 1 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr
