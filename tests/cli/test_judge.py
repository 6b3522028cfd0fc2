"""audit.cli.judge: ``audit import judge`` and ``audit judge …`` through the
Typer app on a real DuckDB file with two imported judges — --help of each,
what each prints against its library function (the judges listed, the
panel's counts, the card's JSON rows, the agreement reading, the prompt and
its version on stderr), and refusals as one line on stderr with exit code 1
that names the fix.  ``judge run`` needs a model server: only its help and a
refusal before any request are checked here (runs against a local server:
tests/test_judge_run.py)."""
import json
import shutil

import pytest

from audit.judge import judge_agreement, list_judges, load_prompt, run_panel
from audit.judge.card import CARD_COLUMNS
from audit.review.judges import judge_card
from tests.support.cli import invoke, run_main
from tests.support.tiny import analysed_tiny, rows

JUDGE_COMMANDS = ["run", "list", "reliability", "bias", "agreement", "panel", "scenarios", "prompt", "card"]


def _judge_file(path, disputed: dict):
    lines = [{"loc": f"q{i}", "llm_validation": {"answer_key_correct": f"q{i}" not in disputed,
                                                 "correct_answer": disputed.get(f"q{i}"),
                                                 "answer_explanation": "<script>x</script>", "confidence": 0.8}}
             for i in range(1, 13)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def judged(migrated_template, tmp_path_factory):
    work = tmp_path_factory.mktemp("cli_judge")
    db = analysed_tiny(migrated_template, work)
    for name, disputed in (("gemini-2.5-pro", {"q9": "B", "q12": "A"}), ("gpt-4o", {"q9": "B"})):
        r = invoke(["import", "judge", _judge_file(work / f"{name}.jsonl", disputed), "-j", name, "-b", "tiny",
                    "--db", db])
        assert r.exit_code == 0, r.output
    return db


@pytest.fixture
def db(judged, tmp_path):
    path = tmp_path / "j.duckdb"
    shutil.copyfile(judged, path)
    return path


@pytest.mark.parametrize("cmd", [["judge", c] for c in JUDGE_COMMANDS] + [["import", "judge"]], ids=" ".join)
def test_help(cmd):
    r = invoke([*cmd, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")


def test_import_stored_the_verdicts(db):
    assert rows(db, "SELECT judge, count(*) FILTER (NOT answer_key_correct) FROM judge_verdicts GROUP BY 1 "
                    "ORDER BY 1") == [("gemini-2.5-pro", 2), ("gpt-4o", 1)]


def test_list(db):
    r = invoke(["judge", "list", "-b", "tiny", "--db", db])
    df = list_judges("tiny", db=db)
    lines = r.output.splitlines()
    assert lines[0].split()[:4] == ["benchmark", "judge", "prompt_version", "n"]
    assert [l.split()[1] for l in lines[1:]] == df["judge"].tolist()
    assert [int(l.split()[6]) for l in lines[1:]] == df["n_disputed"].tolist() == [2, 1]
    assert invoke(["judge", "list", "--unparsed", "-b", "tiny", "--db", db]).output == "no unparseable replies\n"
    runs = invoke(["judge", "list", "--runs", "-b", "tiny", "--db", db]).output.splitlines()
    assert len(runs) == 3 and all(" import finished " in l for l in runs[1:])


def test_panel_counts(db):
    r = invoke(["judge", "panel", "-b", "tiny", "--show", "0", "--db", db])
    res = run_panel("tiny", db=db)
    assert r.output == f"{len(res.verdicts)} items: " + ", ".join(f"{k} {n}" for k, n in res.counts().items()) + "\n"
    assert r.output == "12 items: key_correct 10, key_wrong 1, no_majority 1\n"


def test_panel_lists_the_disputed_items(db):
    r = invoke(["judge", "panel", "-b", "tiny", "--db", db])
    lines = r.output.splitlines()
    assert lines[0] == "12 items: key_correct 10, key_wrong 1, no_majority 1"
    assert [l.split()[0] for l in lines[2:]] == ["q9", "q12"]


def test_panel_shows_no_nan(db):
    r = invoke(["judge", "panel", "-b", "tiny", "--db", db])
    assert "NaN" not in r.output


def test_agreement(db):
    r = invoke(["judge", "agreement", "-b", "tiny", "-f", "json", "--db", db])
    got = json.loads(r.output)
    ja = judge_agreement("tiny", db=db)
    assert got["reading"] == ja.reading and got["fleiss"] is None
    assert got["pairs"][0]["kappa"] == pytest.approx(float(ja.pairs.iloc[0]["kappa"]))


def test_card_json_rows(db):
    r = invoke(["judge", "card", "-b", "tiny", "-f", "json", "--db", db])
    got = json.loads(r.output)
    card = judge_card("tiny", db=db).card
    assert [list(x) for x in got] == [CARD_COLUMNS] * len(card)
    assert [(x["judge"], x["same_family_warning"]) for x in got] == [("gemini-2.5-pro", False), ("gpt-4o", True)]


def test_bias_and_scenarios_print_their_reading(db):
    r = invoke(["judge", "bias", "-j", "gpt-4o", "-b", "tiny", "--no-experts", "--db", db])
    assert r.exit_code == 0
    assert r.output.startswith("The judge gpt-4o (family openai) disputes the key of 1 of 12 judged items.")
    r = invoke(["judge", "scenarios", "-j", "gpt-4o", "-b", "tiny", "--db", db])
    assert r.output.startswith("Tier 1–2: 2 items; disputed by gpt-4o: 1; both: 1; either: 2.")


def test_prompt_text_on_stdout_version_on_stderr():
    r = invoke(["judge", "prompt"])
    p = load_prompt(None)
    assert r.stdout == p.template and r.stderr == f"prompt version: {p.version}\n"


def test_reliability_without_runs_in_the_fit(db):
    r = invoke(["judge", "reliability", "-b", "tiny", "--db", db])
    assert r.output.startswith("no judge runs in the latest key-error fit")


@pytest.mark.parametrize("args,message", [
    (["judge", "bias", "-j", "nobody", "-b", "tiny"], "judges with verdicts: gemini-2.5-pro, gpt-4o"),
    (["judge", "card", "-b", "tiny", "-f", "xml"], "unknown format 'xml' (choose table or json)"),
    (["judge", "reliability", "-b", "tiny", "-f", "csv"], "unknown format 'csv' (choose table or json)"),
    (["judge", "run", "-m", "openai/x", "-b", "nope"], "no benchmark named 'nope' (known: tiny)"),
    (["import", "judge", "missing.jsonl", "-j", "x", "-b", "tiny"], "missing.jsonl"),
])
def test_refusals_are_one_line(db, args, message):
    r = run_main([*args, "--db", db])
    assert r.code == 1 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr


def test_prompt_refuses_a_bad_template(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("${question} only\n", encoding="utf-8")
    r = run_main(["judge", "prompt", "--prompt", f])
    assert r.code == 1 and "lacks the placeholder" in r.stderr and r.stderr.count("\n") == 1
