"""audit.cli.analyze: ``audit analyze``, ``audit report`` (and its
``scores`` and ``compare``) and ``audit rescore`` driven through the Typer
app on a real DuckDB file — each answers --help, prints what its one library
function returns, and turns a user error into one line on stderr with exit
code 1 and the fix named."""
import json
import shutil

import pytest

from audit.analyze import tier_counts
from audit.analyze.reporting import render_report
from audit.report import build_report
from audit.report.compare import compare_report
from audit.report.scores import scores_report
from tests.support.cli import invoke, run_main
from tests.support.tiny import analysed_tiny, tiny_benchmark

COMMANDS = [["analyze"], ["report"], ["report", "scores"], ["report", "compare"], ["rescore"]]


@pytest.fixture(scope="module")
def analysed(migrated_template, tmp_path_factory):
    return analysed_tiny(migrated_template, tmp_path_factory.mktemp("cli_analyze"))


@pytest.fixture
def db(analysed, tmp_path):
    path = tmp_path / "t.duckdb"
    shutil.copyfile(analysed, path)
    return path


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help(cmd):
    r = invoke([*cmd, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ") and "--db" in r.output


def test_analyze_prints_the_tier_counts(db):
    r = invoke(["analyze", "--benchmark", "tiny", "--db", db])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert lines[0].startswith("tiny: audit run ") and "12 questions, 4 models" in lines[0]
    counts = tier_counts("tiny", db=db)
    printed = {int(l.split()[1]): int(l.split()[2]) for l in lines[1:] if l.strip().startswith("Tier ")}
    assert printed == {int(t): int(n) for t, n in zip(counts["tier"], counts["n"]) if t is not None}


def test_analyze_tlue4_preset_and_skipped_benchmarks(db, tmp_path):
    tiny_benchmark(db, tmp_path / "w", name="empty", n=2)
    r = invoke(["analyze", "--preset", "tlue4", "--no-score", "--db", db])
    assert r.exit_code == 0
    assert "preset tlue4" in r.output and "empty: skipped (no predictions)" in r.output


@pytest.mark.slow
def test_report_is_the_library_report(db, tmp_path):
    """A full report takes seconds (every stage's section): one in JSON, one written to a file."""
    r = invoke(["report", "--benchmark", "tiny", "--format", "json", "--db", db])
    assert r.exit_code == 0
    rep = build_report("tiny", db=db)
    assert r.output == render_report(rep, "json") and json.loads(r.output)["benchmark"] == "tiny"
    out = tmp_path / "r.md"
    r = invoke(["--db", db, "report", "-b", "tiny", "-f", "markdown", "-o", out])    # --db before the command
    assert r.exit_code == 0 and r.output == f"report written to {out}\n"
    assert out.read_text(encoding="utf-8") == render_report(rep, "markdown")


def test_report_scores(db, tmp_path):
    r = invoke(["report", "scores", "-b", "tiny", "--db", db])
    assert r.exit_code == 0 and r.output == scores_report("tiny", db=db)
    assert all(m in r.output for m in ("gpt-4o", "llama-3-70b", "qwen2.5-72b", "claude-3-opus"))
    out = tmp_path / "s.csv"
    r = invoke(["report", "scores", "-b", "tiny", "-f", "csv", "-o", out, "--db", db])
    assert r.output == f"scores written to {out}\n"
    assert out.read_text(encoding="utf-8") == scores_report("tiny", fmt="csv", db=db)


@pytest.mark.slow
def test_report_compare(db, tmp_path):
    tiny_benchmark(db, tmp_path / "w", name="tiny2", n=12, answers={"gpt-4o": "ABCD" * 3, "llama-3-70b": "ABCD" * 3})
    invoke(["analyze", "-b", "tiny2", "--db", db])
    r = invoke(["report", "compare", "tiny", "tiny2", "--db", db])
    assert r.exit_code == 0 and r.output == compare_report(["tiny", "tiny2"], db=db)


def test_rescore(db):
    r = invoke(["rescore", "-b", "tiny", "--db", db])
    assert r.exit_code == 0 and r.output == "tiny: key-error score refitted with 0 settled item(s)\n"


@pytest.mark.parametrize("args,message", [
    (["report", "-b", "nope"], "no benchmark named 'nope' (known: tiny)"),
    (["report", "-b", "tiny", "-f", "xml"], "unknown format 'xml' (choose one of table, json, csv, markdown)"),
    (["report", "compare", "tiny"], "compare needs at least two different benchmarks"),
    (["analyze", "-b", "tiny", "--incomplete", "drop"], "incomplete"),
])
def test_user_errors_are_one_line(db, args, message):
    r = run_main([*args, "--db", db])
    assert r.code == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr
