"""The import side of the attack as a suite, plus hostile cases of
our own on the import surface (the new paths: ids, key bases, folders,
layouts, overwrites, dry runs).

Each case ends in the right result, or in one ``error:`` line naming the
file (and line or record) with exit 1 and the database unchanged
(``db_snapshot``; byte-identical where the database is not even opened).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, db_snapshot
from tests.support.common import cli_quiet, copy_db, rows, run_cli

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane


def refused(capsys, db: Path, *args, match: str) -> str:
    """Run the CLI; assert exit 1, exactly one line starting 'error:' and
    containing *match*, and the database unchanged."""
    before = db_snapshot(db)
    code, out, err = run_cli(capsys, *args, "--db", db)
    lines = err.strip().splitlines()
    assert code == 1, (out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and match in lines[0], lines[0]
    assert db_snapshot(db) == before
    return lines[0]


def ok(capsys, db: Path, *args) -> str:
    code, out, err = run_cli(capsys, *args, "--db", db)
    assert code == 0, err
    return out


def keys(db: Path, benchmark: str = "b") -> dict[str, str | None]:
    return dict(rows(db, "SELECT question_id, answer_key FROM questions WHERE benchmark = ?", [benchmark]))


def _seeded(db, folder):
    f = folder / "seed.csv"
    f.write_text("id,question,A,B,C,D,answer\nq1,2+2?,3,4,5,6,B\nq2,1+1?,1,2,3,4,B\n", encoding="utf-8")
    code, out, err = cli_quiet("import", "questions", f, "-b", "b", "--db", db)
    assert code == 0, err


@pytest.fixture
def seeded(db_path, db_template):
    return copy_db(db_template(_seeded), db_path)


# --- 22: paths are paths -------------------------------------------------------

def test_glob_characters_in_a_question_file_name_read_that_file(tmp_path, db_path, capsys):
    (tmp_path / "g1.csv").write_text("id,question,A,B,answer\nwrong,from g1,x,y,A\n", encoding="utf-8")
    (tmp_path / "g[12].csv").write_text("id,question,A,B,answer\nright,from g[12],x,y,B\n", encoding="utf-8")
    ok(capsys, db_path, "import", "questions", tmp_path / "g[12].csv", "-b", "b")
    assert keys(db_path) == {"right": "B"}


def test_glob_characters_in_a_prediction_file_name_read_that_file(tmp_path, seeded, capsys):
    (tmp_path / "p1.csv").write_text("question_id,model,answer\nq1,m,A\n", encoding="utf-8")
    (tmp_path / "p[12].csv").write_text("question_id,model,answer\nq1,m,C\n", encoding="utf-8")
    ok(capsys, seeded, "import", "predictions", tmp_path / "p[12].csv", "-b", "b")
    assert rows(seeded, "SELECT answer FROM predictions") == [("C",)]


def test_star_and_braces_in_a_file_name(tmp_path, db_path, capsys):
    (tmp_path / "a.csv").write_text("id,question,A,B,answer\nwrong,x,x,y,A\n", encoding="utf-8")
    (tmp_path / "*.csv").write_text("id,question,A,B,answer\nstar,x,x,y,A\n", encoding="utf-8")
    (tmp_path / "{a,b}.csv").write_text("id,question,A,B,answer\nbrace,x,x,y,B\n", encoding="utf-8")
    ok(capsys, db_path, "import", "questions", tmp_path / "*.csv", "-b", "b")
    ok(capsys, db_path, "import", "questions", tmp_path / "{a,b}.csv", "-b", "b")
    assert keys(db_path) == {"star": "A", "brace": "B"}


def test_glob_parquet_predictions(tmp_path, seeded, capsys):
    import pandas as pd

    pd.DataFrame({"question_id": ["q1"], "model": ["m"], "answer": ["A"]}).to_parquet(tmp_path / "x1.parquet")
    pd.DataFrame({"question_id": ["q1"], "model": ["m"], "answer": ["D"]}).to_parquet(tmp_path / "x?.parquet")
    ok(capsys, seeded, "import", "predictions", tmp_path / "x?.parquet", "-b", "b")
    assert rows(seeded, "SELECT answer FROM predictions") == [("D",)]


def test_a_pattern_that_names_no_file_is_file_not_found(tmp_path, db_path, capsys):
    (tmp_path / "g1.csv").write_text("id,question,A,B,answer\nq,x,x,y,A\n", encoding="utf-8")
    refused(capsys, db_path, "import", "questions", tmp_path / "g?.csv", "-b", "b", match="not found")


# --- 22: numbers are numbers ---------------------------------------------------

@pytest.mark.parametrize("record, match", [
    ('{"id": "a", "question": "x", "options": [NaN, "y"], "answer": "A"}', "NaN is not a JSON value"),
    ('{"id": "a", "question": "x", "options": ["x", Infinity], "answer": "A"}', "Infinity is not a JSON value"),
    ('{"id": NaN, "question": "x", "options": ["x", "y"], "answer": "A"}', "NaN is not a JSON value"),
    ('{"id": -Infinity, "question": "x", "options": ["x", "y"], "answer": "A"}', "-Infinity is not a JSON value"),
    ('{"id": 1.5, "question": "x", "options": ["x", "y"], "answer": "A"}', "id 1.5 is a fraction"),
    ('{"id": 9007199254740992.0, "question": "x", "options": ["x", "y"], "answer": "A"}', "too large to be exact"),
    ('{"id": 1e300, "question": "x", "options": ["x", "y"], "answer": "A"}', "too large to be exact"),
    ('{"id": "a", "question": "x", "options": ["x", "y"], "answer": 1.5}', "is a fraction, not a key"),
])
def test_non_numbers_and_inexact_ids_refused(tmp_path, db_path, capsys, record, match):
    f = tmp_path / "q.jsonl"
    f.write_text('{"id": "ok", "question": "x", "options": ["x", "y"], "answer": "A"}\n' + record + "\n",
                 encoding="utf-8")
    line = refused(capsys, db_path, "import", "questions", f, "-b", "b", match=match)
    assert f"{f}:2:" in line


def test_large_whole_ids_stay_exact(tmp_path, db_path, capsys):
    f = tmp_path / "q.jsonl"
    f.write_text('{"id": 9007199254740993, "question": "x", "options": ["x", "y"], "answer": "A"}\n'
                 '{"question": "no id here", "options": ["x", "y"], "answer": "A", "id": null}\n', encoding="utf-8")
    refused(capsys, db_path, "import", "questions", f, "-b", "b", match="empty id")
    f.write_text('{"id": 9007199254740993, "question": "x", "options": ["x", "y"], "answer": "A"}\n'
                 '{"id": 12, "question": "y", "options": ["x", "y"], "answer": "A", "subject": null}\n',
                 encoding="utf-8")
    ok(capsys, db_path, "import", "questions", f, "-b", "b")
    assert set(keys(db_path)) == {"9007199254740993", "12"}


def test_parquet_infinite_option_refused(tmp_path, db_path, capsys):
    import pandas as pd

    f = tmp_path / "q.parquet"
    pd.DataFrame({"id": ["a"], "question": ["x"], "A": [1.0], "B": [float("inf")], "answer": ["A"]}).to_parquet(f)
    refused(capsys, db_path, "import", "questions", f, "-b", "b", match="Infinity, not a value")


def test_parquet_fractional_ids_refused(tmp_path, db_path, capsys):
    import pandas as pd

    f = tmp_path / "q.parquet"
    pd.DataFrame({"id": [1.0, 1.5], "question": ["x", "y"], "A": ["a", "a"], "B": ["b", "b"],
                  "answer": ["A", "A"]}).to_parquet(f)
    refused(capsys, db_path, "import", "questions", f, "-b", "b", match="id 1.5 is a fraction")


# --- 22: keys as users write them ----------------------------------------------

def test_keys_as_users_write_them(tmp_path, db_path, capsys):
    f = tmp_path / "q.jsonl"
    recs = [("fw", "Ｂ", 4), ("lower", "abd", 4), ("dot", "C.", 4), ("paren", "(D)", 4), ("cjk", "Ａ）", 4),
            ("tib", "ཁ", 4), ("text", "gamma", 4), ("sep", "d, a", 4), ("lowone", "c", 4), ("fwset", "ＡＣ", 4)]
    f.write_text("".join(json.dumps({"id": i, "question": "?", "options": ["alpha", "beta", "gamma", "delta"][:n],
                                     "answer": a}, ensure_ascii=False) + "\n" for i, a, n in recs), encoding="utf-8")
    ok(capsys, db_path, "import", "questions", f, "-b", "b")
    assert keys(db_path) == {"fw": "B", "lower": "ABD", "dot": "C", "paren": "D", "cjk": "A", "tib": "B",
                             "text": "C", "sep": "AD", "lowone": "C", "fwset": "AC"}
    flags = dict(rows(db_path, "SELECT question_id, flags FROM questions"))
    assert flags["lower"] == ["multi_answer"] and flags["fw"] == []


@pytest.mark.parametrize("answer", ["bad", "BAD", "dab", "aab", "CA"])
def test_a_word_of_option_letters_is_not_a_set(tmp_path, db_path, capsys, answer):
    f = tmp_path / "q.csv"
    f.write_text(f"id,question,A,B,C,D,answer\nq1,x,a,b,c,d,A\nq2,x,a,b,c,d,{answer}\n", encoding="utf-8")
    line = refused(capsys, db_path, "import", "questions", f, "-b", "b", match=f"the answer '{answer}' is not a key")
    assert f"{f}:3:" in line and "(id 'q2')" in line


# --- 22: reserved fields, mapping ----------------------------------------------

@pytest.mark.parametrize("name, content", [
    ("q.jsonl", '{"id": "a", "question": "x", "options": ["x", "y"], "answer": "A", "_source": {"evil": 1}}\n'),
    ("q.jsonl", '{"id": "a", "question": "x", "options": ["x", "y"], "answer": "A", "_line": 99}\n'),
    ("q.csv", "id,question,A,B,answer,_line\na,x,x,y,A,7\n"),
    ("q.csv", "id,question,A,B,answer,_source\na,x,x,y,A,z\n"),
])
def test_reserved_fields_in_the_input_refused(tmp_path, db_path, capsys, name, content):
    f = tmp_path / name
    f.write_text(content, encoding="utf-8")
    refused(capsys, db_path, "import", "questions", f, "-b", "b", match="reserved")


def test_map_line_to_id_is_one_line(tmp_path, db_path, capsys):
    f = tmp_path / "q.jsonl"
    f.write_text('{"question": "x", "options": ["x", "y"], "answer": "A"}\n', encoding="utf-8")
    refused(capsys, db_path, "import", "questions", f, "-b", "b", "--map", "_line=id",
            match="'_line' in mapping '_line=id' is the importer's own bookkeeping")
    # what the user wanted: a file without ids gets <file>/<row>
    ok(capsys, db_path, "import", "questions", f, "-b", "b")
    assert keys(db_path) == {"q/0": "A"}


def test_one_source_mapped_to_two_targets_refused(tmp_path, db_path, capsys):
    f = tmp_path / "q.jsonl"
    f.write_text('{"id": "a", "q": "x", "options": ["x", "y"], "answer": "A"}\n', encoding="utf-8")
    refused(capsys, db_path, "import", "questions", f, "-b", "b", "--map", "q=question", "--map", "q=explanation",
            match="field 'q' is mapped twice")


def test_nested_field_mapped_onto_its_parent(tmp_path, db_path, capsys):
    f = tmp_path / "arc.jsonl"
    f.write_text(json.dumps({"id": "Mercury_1", "question": {"stem": "Which is a metal?", "choices": [
        {"text": "iron", "label": "1"}, {"text": "wood", "label": "2"}, {"text": "glass", "label": "3"}]},
        "answerKey": "1"}) + "\n", encoding="utf-8")
    ok(capsys, db_path, "import", "questions", f, "-b", "b", "--map", "question.stem=question",
       "--map", "question.choices=options", "--map", "answerKey=answer")
    assert keys(db_path) == {"Mercury_1": "A"}      # the label "1" is the first option, not B


# --- 22: JSON shape --------------------------------------------------------------

def test_json_array_with_a_trailing_comma_refused(tmp_path, db_path, capsys):
    f = tmp_path / "q.json"
    f.write_text('[\n {"id": "a", "question": "x", "options": ["x", "y"], "answer": "A"},\n]\n', encoding="utf-8")
    line = refused(capsys, db_path, "import", "questions", f, "-b", "b", match="trailing commas are not JSON")
    assert f"{f}:2:" in line or f"{f}:3:" in line


@pytest.mark.parametrize("layout", ["line", "array"])
def test_too_deep_json_names_file_and_line(tmp_path, db_path, capsys, layout):
    deep = "[" * 5000 + "]" * 5000
    rec = '{"id": "a", "question": "x", "options": ["x", "y"], "answer": "A", "deep": %s}' % deep
    f = tmp_path / ("q.jsonl" if layout == "line" else "q.json")
    ok_rec = '{"id": "b", "question": "x", "options": ["x", "y"], "answer": "A"}'
    f.write_text(ok_rec + "\n" + rec + "\n" if layout == "line" else "[\n" + ok_rec + ",\n" + rec + "\n]\n",
                 encoding="utf-8")
    line = refused(capsys, db_path, "import", "questions", f, "-b", "b", match="nested too deeply")
    assert line.startswith(f"error: {f}:{2 if layout == 'line' else 3}: "), line


# --- 22: lm-eval NaN log-likelihood -------------------------------------------------

def test_nan_log_likelihood_is_never_the_answer(tmp_path, db_path, capsys):
    f = tmp_path / "samples_tiny_2026-01-01T00-00-00.jsonl"
    doc = {"question": "2+2?", "choices": ["3", "4", "5", "6"], "answer": 1}
    lines = []
    for i, resps in enumerate([[[-3.0, False], [float("nan"), False], [-2.0, False], [-4.0, False]],
                               [[-3.0, False], [-1.0, False], [-2.0, False], [-4.0, False]]]):
        lines.append(json.dumps({"doc_id": i, "doc": {**doc, "id": f"t{i}"}, "target": 1,
                                 "arguments": [["2+2?", f" {c}"] for c in doc["choices"]],
                                 "filtered_resps": resps}))   # json.dumps writes NaN, as lm-eval's writer does
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok(capsys, db_path, "import", "lm-eval", f, "-b", "b", "--model", "m")
    got = dict(rows(db_path, "SELECT question_id, answer FROM predictions"))
    assert got == {"t0": None, "t1": "B"}


# --- 22: import auto ----------------------------------------------------------------

def test_auto_response_only_file_with_model_is_long(tmp_path, seeded, capsys):
    f = tmp_path / "r.csv"
    f.write_text("question_id,response\nq1,The answer is B.\nq2,I pick A\n", encoding="utf-8")
    out = ok(capsys, seeded, "import", "auto", f, "-b", "b", "--model", "mymodel")
    assert out.startswith("found: predictions-long")
    assert sorted(rows(seeded, "SELECT model, question_id, answer FROM predictions")) == [
        ("mymodel", "q1", "B"), ("mymodel", "q2", "A")]
    assert rows(seeded, "SELECT count(*) FROM models WHERE name = 'response'") == [(0,)]


def test_auto_folder_of_question_files_imports(tmp_path, db_path, capsys):
    d = tmp_path / "qs"
    d.mkdir()
    (d / "a.csv").write_text("id,question,A,B,answer\n1,x,a,b,A\n", encoding="utf-8")
    (d / "b.jsonl").write_text('{"id": "2", "question": "y", "options": ["a", "b"], "answer": "B"}\n',
                               encoding="utf-8")
    out = ok(capsys, db_path, "import", "auto", d, "-b", "b", "--dry-run")
    assert "would import 2 questions from 2 files" in out
    out = ok(capsys, db_path, "import", "auto", d, "-b", "b")
    assert "imported 2 questions from 2 files" in out and keys(db_path) == {"1": "A", "2": "B"}


def test_auto_on_a_binary_file_is_one_line(tmp_path, db_path, capsys):
    f = tmp_path / "blob.json"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    line = refused(capsys, db_path, "import", "auto", f, "-b", "b", match="not UTF-8 text (byte 0x89 at offset 0)")
    assert line.isprintable()


# --- 22: killed imports leave no staging folder ----------------------------------------

@pytest.mark.slow
def test_a_killed_question_import_leaves_nothing_after_the_next_import(tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "w", encoding="utf-8") as fh:
        fh.write("id,question,A,B,answer\n")
        for i in range(300_000):
            fh.write(f"q{i},What is {i}?,{i},{i + 1},A\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "TMPDIR": str(tmp), "HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "audit.cli", "import", "questions", str(big), "-b", "b", "--db",
           str(tmp_path / "k.duckdb")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not any(tmp.glob("audit-import-*/questions.parquet")):
        time.sleep(0.05)
    assert any(tmp.glob("audit-import-*")), "the import never staged"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert any(tmp.glob("audit-import-*"))               # a SIGKILL leaves the folder behind …
    small = tmp_path / "small.csv"
    small.write_text("id,question,A,B,answer\nz,x,a,b,A\n", encoding="utf-8")
    r = subprocess.run(cmd[:5] + [str(small)] + cmd[6:], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert list(tmp.iterdir()) == []                      # … and the next import removes it


# --- our own hostile cases on the import surface ------------------------------------------
# Each: files to write (name → text), the command after 'audit', and either
# ("ok", SQL, rows expected) or ("refused", text in the one error line).
# {d} in arguments is the test folder.

Q = "id,question,A,B,answer\n"
J = '{"id": "a", "question": "x", "options": ["p", "q"], "answer": "A"}'
OWN_CASES = {
    "id template with a format spec": (
        {"q.csv": Q + "a,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--id", "{row:>999999999}"],
        ("refused", "a template field is a plain {name}"),
    ),
    "id template reaching into attributes": (
        {"q.csv": Q + "a,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--id", "{id.__class__}"],
        ("refused", "a template field is a plain {name}"),
    ),
    "id template without a field": (
        {"q.csv": Q + "a,x,p,q,A\nb,y,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--id", "same"],
        ("refused", "names no field"),
    ),
    "id template with unbalanced braces": (
        {"q.csv": Q + "a,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--id", "{row"],
        ("refused", "unbalanced braces"),
    ),
    "--set of a reserved field": (
        {"q.csv": Q + "a,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--set", "_line=3"],
        ("refused", "'_line' is the importer's own bookkeeping"),
    ),
    "--set id gives every row the same id": (
        {"q.csv": "question,A,B,answer\nx,p,q,A\ny,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--set", "id=one"],
        ("refused", "duplicate question id 'one'"),
    ),
    "--set without '='": (
        {"q.csv": Q + "a,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--set", "language"],
        ("refused", "--set expects FIELD=VALUE"),
    ),
    "--key-base 2": (
        {"q.csv": Q + "a,x,p,q,1\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--key-base", "2"],
        ("refused", "--key-base is 0 or 1"),
    ),
    "--key-base -1": (
        {"q.csv": Q + "a,x,p,q,1\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--key-base", "-1"],
        ("refused", "--key-base is 0 or 1"),
    ),
    "an empty folder": (
        {"sub/.keep": ""},
        ["import", "questions", "{d}/sub", "-b", "b"],
        ("refused", "no question file"),
    ),
    "a folder holding a prediction file": (
        {"f/a.csv": Q + "a,x,p,q,A\n", "f/p.csv": "question_id,model,answer\na,m,A\n"},
        ["import", "questions", "{d}/f", "-b", "b"],
        ("refused", "missing required column(s): question (found: question_id, model, answer)"),
    ),
    "a folder: hidden files are not read": (
        {"f/a.csv": Q + "a,x,p,q,A\n", "f/.b.csv": "garbage\x00"},
        ["import", "questions", "{d}/f", "-b", "b"],
        ("ok", "SELECT question_id FROM questions", [("a",)]),
    ),
    "a folder whose name has glob characters": (
        {"d[1]/a.csv": Q + "a,x,p,q,A\n", "d1/a.csv": Q + "wrong,x,p,q,A\n"},
        ["import", "questions", "{d}/d[1]", "-b", "b"],
        ("ok", "SELECT question_id FROM questions", [("a",)]),
    ),
    "a file name with a quote": (
        {"it's.csv": Q + "a,x,p,q,B\n"},
        ["import", "questions", "{d}/it's.csv", "-b", "b"],
        ("ok", "SELECT answer_key FROM questions", [("B",)]),
    ),
    "a folder name starting with ~": (
        {"~x/a.csv": Q + "a,x,p,q,B\n"},
        ["import", "questions", "{d}/~x/a.csv", "-b", "b"],
        ("ok", "SELECT answer_key FROM questions", [("B",)]),
    ),
    "a TSV with glob characters": (
        {
            "t*.tsv": "id\tquestion\tA\tB\tanswer\na\tx\tp\tq\tB\n",
            "tt.tsv": "id\tquestion\tA\tB\tanswer\nw\tx\tp\tq\tA\n",
        },
        ["import", "questions", "{d}/t*.tsv", "-b", "b"],
        ("ok", "SELECT question_id FROM questions", [("a",)]),
    ),
    "ARC labels given twice": (
        {
            "q.jsonl": '{"id": "a", "question": "x", "options": [{"text": "p", "label": "1"}, {"text": "q", '
            '"label": "1"}], "answer": "1"}\n'
        },
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("refused", "a label is given to two options"),
    ),
    "ARC texts and labels of different lengths": (
        {"q.jsonl": '{"id": "a", "question": "x", "options": {"text": ["p", "q"], "label": ["1"]}, "answer": "1"}\n'},
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("refused", "2 texts but 1 labels"),
    ),
    "ARC: some options labelled, some not": (
        {
            "q.jsonl": '{"id": "a", "question": "x", "options": [{"text": "p", "label": "1"}, {"text": "q"}], '
            '"answer": "1"}\n'
        },
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("refused", "some options have a label and some do not"),
    ),
    "an answer that is an option's text": (
        {"q.jsonl": '{"id": "a", "question": "x", "options": ["Paris", "Rome"], "answer": " Rome "}\n'},
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("ok", "SELECT answer_key FROM questions", [("B",)]),
    ),
    "an answer that is the text of two options": (
        {"q.jsonl": '{"id": "a", "question": "x", "options": ["Rome", "Rome", "Oslo"], "answer": "Rome"}\n'},
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("ok", "SELECT answer_key, list_contains(flags, 'key_not_in_options') FROM questions", [("Rome", True)]),
    ),
    "an answer true": (
        {"q.jsonl": '{"id": "a", "question": "x", "options": ["p", "q"], "answer": true}\n'},
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("ok", "SELECT list_contains(flags, 'key_not_in_options') FROM questions", [(True,)]),
    ),
    "a letter out of range stays flagged, not shifted": (
        {"q.csv": Q + "a,x,p,q,C\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b"],
        ("ok", "SELECT answer_key, flags FROM questions", [("C", ["key_not_in_options"])]),
    ),
    "an option number beyond the options, from 1": (
        {"q.csv": "id,question,A,B,C,D,answer\na,x,p,q,r,s,4\nb,y,p,q,r,s,7\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b"],
        ("ok", "SELECT answer_key FROM questions ORDER BY seq", [("D",), ("7",)]),
    ),
    "an empty JSON array": (
        {"q.json": "[]\n"},
        ["import", "questions", "{d}/q.json", "-b", "b"],
        ("refused", "missing required column"),
    ),
    "a pretty-printed JSON object": (
        {"q.json": '{\n "id": "a"\n}\n'},
        ["import", "questions", "{d}/q.json", "-b", "b"],
        ("refused", "not valid JSON"),
    ),
    "a header and no rows": (
        {"q.csv": Q},
        ["import", "questions", "{d}/q.csv", "-b", "b"],
        ("refused", "a header but no rows"),
    ),
    "a stem of white space": (
        {"q.csv": Q + "a,   ,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b"],
        ("refused", "empty question text"),
    ),
    "an id of white space": (
        {"q.csv": Q + "  ,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b"],
        ("refused", "empty id"),
    ),
    "two-field stem naming a missing field": (
        {"q.csv": "id,ctx,A,B,answer\na,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--map", "ctx+nope=question"],
        ("refused", "mapped field 'nope' is not in the file"),
    ),
    "a map to an unknown column": (
        {"q.csv": "id,q,A,B,answer\na,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--map", "q=foo"],
        ("refused", "missing required column(s): question (found: id, A, B, answer, foo)"),
    ),
    "NFD and NFC spellings of one id are one item": (
        {
            "q.jsonl": '{"id": "e\\u0301", "question": "x", "options": ["p", "q"], "answer": "A"}\n'
            '{"id": "\\u00e9", "question": "y", "options": ["p", "q"], "answer": "A"}\n'
        },
        ["import", "questions", "{d}/q.jsonl", "-b", "b"],
        ("refused", "duplicate question id"),
    ),
    "a Parquet prediction file with a _line column": (
        {},
        ["import", "predictions", "{d}/p.parquet", "-b", "b"],
        ("refused", "reserved"),
    ),
    "outputs for a benchmark that does not exist": (
        {"o/m/s.json": '[{"question": "x", "choices": ["p", "q"], "output": "A"}]'},
        ["import", "outputs", "{d}/o", "-b", "nope"],
        ("refused", "no benchmark named 'nope'"),
    ),
    "outputs with eleven choices": (
        {
            "o/m/s.json": (
                '[{"question": "x", "choices": ["1","2","3","4","5","6","7","8","9","10","11"], "output": "A"}]'
            )
        },
        ["import", "outputs", "{d}/o", "-b", "b"],
        ("refused", "'choices' must be a list of 2–10 option texts"),
    ),
    "outputs whose output is a number": (
        {"o/m/s.json": '[{"question": "x", "choices": ["p", "q"], "output": 1}]'},
        ["import", "outputs", "{d}/o", "-b", "b"],
        ("refused", "'output' must be text"),
    ),
    "outputs with NaN": (
        {"o/m/s.json": '[{"question": "x", "choices": ["p", "q"], "output": NaN}]'},
        ["import", "outputs", "{d}/o", "-b", "b"],
        ("refused", "NaN is not a JSON value"),
    ),
    "outputs answering one item twice for one model": (
        {
            "o/m/s.json": '[{"question": "x", "choices": ["p", "q"], "output": "A"}, '
            '{"question": "x", "choices": ["q", "p"], "output": "B"}]'
        },
        ["import", "outputs", "{d}/o", "-b", "b"],
        ("refused", "both answer item 'a' for model 'm'"),
    ),
    "outputs whose choices differ from the item's": (
        {"o/m/s.json": '[{"question": "x", "choices": ["p", "z"], "output": "A"}]'},
        ["import", "outputs", "{d}/o", "-b", "b"],
        ("refused", "no item with this question and these options"),
    ),
    "outputs: a binary file": (
        {"o/m/s.json": "\udcff\udcfe"},
        ["import", "outputs", "{d}/o", "-b", "b"],
        ("refused", "not UTF-8 text"),
    ),
    "replace when nothing changed": (
        {"q.csv": Q + "a,x,p,q,A\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--replace"],
        ("ok", "SELECT count(*) FROM questions", [(1,)]),
    ),
    "changed subject only is a change": (
        {"q.csv": "id,question,A,B,answer,subject\na,x,p,q,A,physics\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b"],
        ("refused", "'a' (subject)"),
    ),
    "dry run of changed content": (
        {"q.csv": Q + "a,x,p,q,B\n"},
        ["import", "questions", "{d}/q.csv", "-b", "b", "--dry-run"],
        ("refused", "'a' (key)"),
    ),
}
SEEDED_CASES = {"replace when nothing changed", "changed subject only is a change", "dry run of changed content",
                "outputs answering one item twice for one model", "outputs whose choices differ from the item's",
                "outputs with eleven choices", "outputs whose output is a number", "outputs: a binary file",
                "outputs with NaN", "a Parquet prediction file with a _line column"}


@pytest.mark.parametrize("name", list(OWN_CASES))
def test_own_hostile_cases(tmp_path, db_path, capsys, name):
    files, args, expect = OWN_CASES[name]
    if name in SEEDED_CASES:
        (tmp_path / "seed.csv").write_text(Q + "a,x,p,q,A\n", encoding="utf-8")
        ok(capsys, db_path, "import", "questions", tmp_path / "seed.csv", "-b", "b")
    if name == "a Parquet prediction file with a _line column":
        import pandas as pd

        pd.DataFrame({"question_id": ["a"], "model": ["m"], "answer": ["A"], "_line": [5]}).to_parquet(
            tmp_path / "p.parquet")
    for rel, text in files.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(text.encode("utf-8", "surrogateescape"))
    argv = [a.replace("{d}", str(tmp_path)) for a in args]
    if expect[0] == "refused":
        refused(capsys, db_path, *argv, match=expect[1])
    else:
        ok(capsys, db_path, *argv)
        assert rows(db_path, expect[1]) == expect[2]


def test_a_folder_id_template_that_collides_across_files(tmp_path, db_path, capsys):
    d = tmp_path / "f"
    d.mkdir()
    (d / "a.csv").write_text(Q + "x,q1,p,q,A\n", encoding="utf-8")
    (d / "b.csv").write_text(Q + "y,q2,p,q,B\n", encoding="utf-8")
    refused(
        capsys,
        db_path,
        "import",
        "questions",
        d,
        "-b",
        "b",
        "--id",
        "{row}",
        match="the ids of a.csv and b.csv collide ('0'); nothing was written "
        "(add {file} or {path} to the --id template)",
    )


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_mutated_published_files_never_trace_back(tmp_path, db_path, seed):
    """Real published files cut and corrupted at random places: every import
    either succeeds or raises the one-line AuditError (never another exception)."""
    import random

    from audit.auto import detect_and_import
    from audit.errors import AuditError
    from tests.conftest import shared_path

    rnd = random.Random(seed)
    src = shared_path("real_formats")
    import csv
    import io

    with open(src / "uzlib_processed.csv", encoding="utf-8", newline="") as fh:
        all_recs = list(csv.reader(fh))
    # the header, 15 rows, and a row keyed 4 (so the 1-based keys can be told)
    recs = all_recs[:16] + [next(r for r in all_recs if r[6] == "4")]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(recs)
    heads = {   # valid heads of the real files, then corrupted
        "u.csv": buf.getvalue(),
        "h.json": json.dumps(json.loads((src / "tmbench_HellaSwag.json").read_text(encoding="utf-8"))[:12],
                             ensure_ascii=False, indent=1),
        "c.csv": "".join((src / "cmmlu_native" / "anatomy.csv").read_text(encoding="utf-8").splitlines(True)[:25]),
    }
    for name, text in heads.items():   # each head imports as it is
        (tmp_path / name).write_text(text, encoding="utf-8")
        detect_and_import(tmp_path / name, benchmark="b", dry_run=True, db=db_path)
    junk = ['"', ",", "\n", "[", "]", "{", "}", "\x00", "NaN", "\\", "\ufeff", "\udcff", "1e999", ":"]
    outcomes = {"ok": 0, "refused": 0}
    for name, text in heads.items():
        for k in range(12):
            t = list(text)
            for _ in range(rnd.randint(1, 3)):
                i = rnd.randrange(len(t))
                op = rnd.random()
                if op < 0.4:
                    t[i] = rnd.choice(junk)
                elif op < 0.7:
                    del t[i:i + rnd.randint(1, 50)]
                else:
                    t.insert(i, rnd.choice(junk))
            f = tmp_path / f"{k}_{name}"
            f.write_bytes("".join(t).encode("utf-8", "surrogateescape"))
            try:
                detect_and_import(f, benchmark="b", dry_run=True, db=db_path)
                outcomes["ok"] += 1
            except AuditError as exc:
                assert "\n" not in str(exc) and str(f) in str(exc), str(exc)
                outcomes["refused"] += 1
    assert sum(outcomes.values()) == 36, outcomes
    print(outcomes)
