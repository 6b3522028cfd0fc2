"""Issue 22, the import side of the attack as a suite, plus hostile cases of
our own on the import surface (issue 20's new paths: ids, key bases, folders,
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

from conftest import REPO, db_snapshot
from tests_ingest_util import rows, run_cli


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


@pytest.fixture
def seeded(tmp_path, db_path, capsys):
    f = tmp_path / "seed.csv"
    f.write_text("id,question,A,B,C,D,answer\nq1,2+2?,3,4,5,6,B\nq2,1+1?,1,2,3,4,B\n", encoding="utf-8")
    ok(capsys, db_path, "import", "questions", f, "-b", "b")
    return db_path


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
    # what the user wanted: a file without ids gets the row number
    ok(capsys, db_path, "import", "questions", f, "-b", "b")
    assert keys(db_path) == {"0": "A"}


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
                                 "arguments": [[f"2+2?", f" {c}"] for c in doc["choices"]],
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
