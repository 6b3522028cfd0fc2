"""The "Bad input" cases.  Each asserts a clear message (file and,
where there is one, line + what is wrong), a non-zero exit of the real
``audit`` entry point, and an unchanged database (``db_snapshot``)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import unicodedata

import pandas as pd
import pytest

from tests.conftest import db_snapshot
from tests.support.common import copy_db, rows, run_cli


def _seeded(db, folder):
    q = folder / "seed_q.csv"
    q.write_text("id,question,A,B,C,D,answer\nq1,x,a,b,c,d,A\nq2,y,a,b,c,d,B\n")
    import_questions(q, benchmark="b", db=db)
    p = folder / "seed_p.csv"
    p.write_text("question_id,m1,m2\nq1,A,B\nq2,B,B\n")
    import_predictions(p, benchmark="b", layout="wide", db=db)

from audit.errors import InputError
from audit.ingest import import_predictions, import_questions


@pytest.fixture
def seeded(db_path, db_template):
    """A database that already holds questions and predictions, so 'unchanged'
    is a real check (a failed import must not touch them)."""
    return copy_db(db_template(_seeded), db_path)


def fails(capsys, db, before, *args, match: str):
    """Run the CLI, expect exit 1 with `error: <match>` on one stderr line and the DB unchanged."""
    code, out, err = run_cli(capsys, *args, "--db", db)
    assert code == 1, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert re.search(match, lines[0]), lines[0]
    assert db_snapshot(db) == before
    return lines[0]


# --- missing required column -------------------------------------------------

def test_missing_required_column(tmp_path, seeded, capsys):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B\nq9,x,a,b\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.csv: missing required column\(s\): answer")


def test_missing_required_column_predictions(tmp_path, seeded, capsys):
    f = tmp_path / "p.csv"
    f.write_text("question_id,answer\nq1,A\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b",
          match=r"p\.csv: missing required column\(s\): model \(or pass --model\)")


# --- unknown column names ----------------------------------------------------

def test_unknown_column_names(tmp_path, seeded, capsys):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer,explaination,notes\nq9,x,a,b,A,,\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.csv: unknown column\(s\): explaination, notes")


# --- empty file --------------------------------------------------------------

@pytest.mark.parametrize("name,content", [("q.csv", ""), ("q.jsonl", "\n\n"), ("q.csv", "id,question,A,B,answer\n")])
def test_empty_question_file(tmp_path, seeded, capsys, name, content):
    f = tmp_path / name
    f.write_text(content)
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=rf"{name.replace('.', '[.]')}: the file (is empty|has a header but no rows)")


@pytest.mark.parametrize("content", ["", "\ufeff\n", "question_id,model,answer\n"])
def test_empty_prediction_file(tmp_path, seeded, capsys, content):
    f = tmp_path / "p.csv"
    f.write_text(content, encoding="utf-8")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b",
          match=r"p\.csv: the file (is empty|has no rows)")


# --- a line that is not JSON -------------------------------------------------

def test_line_not_json_questions(tmp_path, seeded, capsys):
    f = tmp_path / "q.jsonl"
    good = json.dumps({"id": "q9", "question": "x", "options": ["a", "b"], "answer": "A"})
    f.write_text(good + "\n\n" + '{"id": "q10", "question": "x",\n')
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.jsonl:3: not valid JSON")


def test_line_not_json_predictions_and_seed(tmp_path, seeded, capsys):
    f = tmp_path / "m_combined_results.jsonl"
    f.write_text(json.dumps({"loc": "q1", "extracted_answer": ["A"]}) + "\nnot json\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b", "--layout", "seed",
          match=r"m_combined_results\.jsonl:2: not valid JSON")
    fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b", "--model", "m",
          match=r"m_combined_results\.jsonl:2: not valid JSON")


# --- duplicate question ids --------------------------------------------------

def test_duplicate_question_ids(tmp_path, seeded, capsys):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer\nq7,x,a,b,A\nq8,y,a,b,A\nq7,z,a,b,B\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.csv:4: duplicate question id 'q7' \(first on line 2\)")


# --- predictions for unknown questions ---------------------------------------

def test_predictions_for_unknown_questions(tmp_path, seeded, capsys):
    f = tmp_path / "p.parquet"
    pd.DataFrame({"question_id": ["q1", "zz1", "q2", "zz2", "zz1"], "model": ["m3", "m3", "m3", "m3", "m4"],
                  "answer": ["A", "B", "C", "D", "A"]}).to_parquet(f)
    before = db_snapshot(seeded)
    line = fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b",
                 match=r"p\.parquet: 3 prediction\(s\) for 2 question id\(s\) that benchmark 'b' does not have")
    assert "'zz1' (line 2)" in line and "'zz2' (line 4)" in line and "nothing was imported" in line
    # all-or-nothing: not even the rows for known questions, and no new model rows
    assert rows(seeded, "SELECT count(*) FROM predictions WHERE model = 'm3'") == [(0,)]


# --- key outside the options: imported and flagged (not an error) -------------

def test_key_outside_options_is_imported_and_flagged(tmp_path, db_path, capsys):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,C,answer\nk1,x,a,b,c,D\nk2,x,a,b,c,\nk3,x,a,b,c,5\nk4,x,a,b,c,2\n")
    # option numbers 2 and 5 on 3-option items: from 0 or from 1 cannot be told, the flag decides
    code, out, err = run_cli(capsys, "import", "questions", f, "--benchmark", "b", "--db", db_path)
    assert code == 1 and "pass --key-base 0 or --key-base 1" in err
    code, out, err = run_cli(capsys, "import", "questions", f, "--benchmark", "b", "--key-base", "0", "--db", db_path)
    assert code == 0, err
    assert "3 with a key not among the options" in out
    got = rows(db_path, "SELECT question_id, answer_key, flags FROM questions ORDER BY question_id")
    assert got == [("k1", "D", ["key_not_in_options"]), ("k2", None, ["key_not_in_options"]),
                   ("k3", "5", ["key_not_in_options"]), ("k4", "C", [])]


# --- 7 options ---------------------------------------------------------------

def test_eleven_options_list(tmp_path, seeded, capsys):
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"id": "q9", "question": "x", "options": list("abcdefghijk"), "answer": "A"}) + "\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.jsonl:1: 11 options; an item has 2–10 \(id 'q9'\)")


def test_eleven_option_columns(tmp_path, seeded, capsys):
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,C,D,E,F,G,H,I,J,K,answer\nq9,x,a,b,c,d,e,f,g,h,i,j,k,A\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.csv: option column\(s\) K: at most 10 options")


# --- non-UTF-8 bytes ---------------------------------------------------------

def test_non_utf8_questions(tmp_path, seeded, capsys):
    f = tmp_path / "q.csv"
    f.write_bytes("id,question,A,B,answer\nq9,ok,a,b,A\nq10,caf".encode() + b"\xe9" + b",a,b,A\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "questions", f, "--benchmark", "b",
          match=r"q\.csv:3: not UTF-8 text \(byte 0xe9")


def test_non_utf8_predictions(tmp_path, seeded, capsys):
    f = tmp_path / "p.csv"
    # GB18030-encoded Chinese, a realistic mistake
    f.write_bytes(b"question_id,model,response\nq1,m,A\nq2,m," + "答案是B".encode("gb18030") + b"\n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b",
          match=r"p\.csv:3: not UTF-8 text")


# --- a UTF-8 BOM (accepted) --------------------------------------------------

def test_utf8_bom_accepted(tmp_path, db_path, capsys):
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\nq1,བོད།,ཀ,ཁ,ཁ\n", encoding="utf-8-sig")
    assert q.read_bytes().startswith(b"\xef\xbb\xbf")
    code, out, err = run_cli(capsys, "import", "questions", q, "--benchmark", "b", "--db", db_path)
    assert code == 0, err
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer\nq1,m,B\n", encoding="utf-8-sig")
    code, out, err = run_cli(capsys, "import", "predictions", p, "--benchmark", "b", "--db", db_path)
    assert code == 0, err
    assert rows(db_path, "SELECT question_id, answer_key, script FROM questions") == [("q1", "B", "Tibt")]
    assert rows(db_path, "SELECT question_id, answer, valid FROM predictions") == [("q1", "B", True)]


# --- Tibetan NFD vs NFC --------------------------------------------------------

def test_tibetan_nfd_vs_nfc(tmp_path, db_path):
    canonical = "\u0f42\u0fb7\u0f71\u0f72\u0f0b\u0f66\u0f90\u0f51\u0f0d"
    typed = "\u0f43\u0f72\u0f71\u0f0b\u0f66\u0f90\u0f51\u0f0d"  # precomposed letter, marks out of order
    assert unicodedata.normalize("NFC", typed) == canonical != typed
    f = tmp_path / "q.csv"
    pd.DataFrame({"id": ["a", "b"], "question": [typed, canonical], "A": [typed, "x"], "B": ["y", "z"],
                  "answer": ["A", "B"]}).to_csv(f, index=False)
    import_questions(f, benchmark="b", db=db_path)
    got = rows(db_path, "SELECT question_id, stem, raw_text, options[1].text FROM questions ORDER BY 1")
    assert got == [("a", canonical, typed, canonical), ("b", canonical, canonical, "x")]


# --- a 10 MB response string ---------------------------------------------------

@pytest.mark.slow
def test_ten_megabyte_response(tmp_path, seeded, capsys):
    big = ("བོད་ཀྱི་སྐད་ཡིག་ནི་ " * 600_000)[:10_000_000] + "\nAnswer: (C)"
    assert len(big.encode()) > 10_000_000
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps({"question_id": "q1", "model": "big", "response": big}, ensure_ascii=False) + "\n"
                 + json.dumps({"question_id": "q2", "model": "big", "response": "B"}) + "\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "import", "predictions", f, "--benchmark", "b", "--db", seeded,
                             "--method", "caa")
    assert code == 0, err
    got = rows(seeded, "SELECT question_id, length(response), answer, method, valid FROM predictions "
                       "WHERE model = 'big' ORDER BY 1")
    assert got == [("q1", len(big), "C", "caa", True), ("q2", 1, "B", "caa", True)]


# --- a model column that is entirely empty --------------------------------------

def test_model_column_entirely_empty(tmp_path, seeded, capsys):
    f = tmp_path / "w.csv"
    f.write_text("question_id,m5,m6\nq1,A,\nq2,B,  \n")
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "predictions", f, "--benchmark", "b", "--layout", "wide",
          match=r"w\.csv: model column\(s\) 'm6' entirely empty \(no answer in any of 2 rows\)")


def test_model_entirely_empty_long(tmp_path, seeded):
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,response,answer\nq1,m5,A,\nq1,m6,,\nq2,m6,,\n")
    before = db_snapshot(seeded)
    with pytest.raises(InputError, match=r"p\.csv: model\(s\) 'm6' entirely empty"):
        import_predictions(f, benchmark="b", db=seeded)
    assert db_snapshot(seeded) == before


# --- the installed console script, end to end ---------------------------------

def test_console_script_exit_code_and_one_line(tmp_path, seeded):
    f = tmp_path / "q.csv"
    f.write_text("id,question,answer\nq1,x,A\n")
    before = db_snapshot(seeded)
    audit_cmd = [shutil.which("audit")] if shutil.which("audit") else [
        sys.executable, "-c", "from audit.cli import main; main()"]
    proc = subprocess.run([*audit_cmd, "import", "questions", str(f), "--benchmark", "b", "--db", str(seeded)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: {f}:2: no options: the file has no options field (columns A–J or 'options') and none were "
        "found in the question text (id 'q1'"), lines
    assert db_snapshot(seeded) == before


def test_utf8_check_across_chunk_boundaries(tmp_path):
    """The streaming UTF-8 check: multi-byte characters cut by a chunk boundary
    are fine; a bad byte is reported on its own line whatever the chunking."""
    from audit._util.files import check_utf8

    good = ("question_id,model,response\n" + "".join(f"q{i},m,བོད་ཡིག {i}\n" for i in range(50))).encode()
    f = tmp_path / "p.csv"
    f.write_bytes(good)
    for size in (1, 2, 3, 5, 7, 64, 1 << 20):
        check_utf8(f, chunk_size=size)
    bad = good + b"q50,m,caf\xe9\n"
    f.write_bytes(bad)
    for size in (1, 3, 7, 64, 1 << 20):
        with pytest.raises(InputError, match=r"p\.csv:52: not UTF-8 text \(byte 0xe9"):
            check_utf8(f, chunk_size=size)


def test_helm_file_that_is_not_json_or_not_helm(tmp_path, seeded, capsys):
    f = tmp_path / "global_facts.json"
    f.write_text('{"adapter_spec": {"model": "x/y"},\n "request_states": [\n  {"instance": }\n]}\n')
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "helm", f, match=r"global_facts\.json:3: not valid JSON")
    f.write_text(json.dumps({"rows": []}))
    fails(capsys, seeded, before, "import", "helm", f,
          match=r"global_facts\.json: not a HELM scenario_state file \(needs 'adapter_spec' and 'request_states'\)")


def test_mmlu_redux_bad_choices_literal(tmp_path, seeded, capsys):
    (tmp_path / "redux").mkdir()
    f = tmp_path / "redux" / "anatomy.csv"
    f.write_text('question,choices,groundtruth_answer,error_type,m1\nq?,"[\'a\', \'b\'",0,ok,A\n')
    before = db_snapshot(seeded)
    fails(capsys, seeded, before, "import", "mmlu-redux", tmp_path / "redux", "--benchmark", "b",
          match=r"anatomy\.csv:2: 'choices' is not a list literal")
