"""More hostile cases on the surfaces the guards touch, written with the
guards: each gives the correct result or one correct refusal (one line,
exit 1 or one AuditError, the database as it was).

Kinds, as counted in the closing note: CR = correct result, RF = correct
refusal.  Every case names its kind in its docstring's first word."""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import duckdb
import pytest

import audit
from tests.conftest import db_snapshot
from tests.support.attack import REPO, cli, fresh_copy
from tests.support.cli_process import run_audit
from tests.support.common import rows

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

PW = {"Root": "root-password", "Lead": "lead-password"}
KEY = "sk-test-guards-0123456789"


def file_hash(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def one_line(r, db: Path | None = None, before: str | None = None, *, says: str | None = None) -> None:
    assert "Traceback" not in r.stderr, r.stderr[-500:]
    assert r.returncode == 1, (r.returncode, r.stdout[-300:], r.stderr[-300:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    if says:
        assert says in lines[0], lines[0]
    if db is not None:
        assert file_hash(db) == before, "the database changed"


def controls(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t"})


def refused(call, db, *, says: str | None = None) -> str:
    before = db_snapshot(db)
    with pytest.raises(audit.AuditError) as e:
        call()
    assert "\n" not in str(e.value), str(e.value)
    if says:
        assert says in str(e.value), str(e.value)
    assert db_snapshot(db) == before
    return str(e.value)


@pytest.fixture
def geo(db_path, tmp_path):
    q = tmp_path / "q.csv"
    q.write_text("id,subject,question,A,B,C,D,answer\n"
                 + "".join(f"q{i},s{i % 2},Question {i}?,a{i},b{i},c{i},d{i},A\n" for i in range(4)))
    audit.import_questions(q, benchmark="geo", db=db_path)
    return db_path


@pytest.fixture(scope="module")
def _team_template(tmp_path_factory):
    from audit.accounts import add_account
    from tests.support.judge_server import make_benchmark

    d = tmp_path_factory.mktemp("guards-team")
    db = d / "t.duckdb"
    make_benchmark(db, "jb", n=4)
    p = d / "p.csv"
    p.write_text("question_id,model,answer\n" + "".join(f"q{i:03d},m{j},{'AB'[(i + j) % 2]}\n"
                                                       for i in range(4) for j in range(3)))
    audit.import_predictions(p, benchmark="jb", db=db)
    audit.analyze_benchmark("jb", db=db)
    add_account("Root", PW["Root"], db=db)
    add_account("Lead", PW["Lead"], role="lead", actor="Root", db=db)
    return db


@pytest.fixture
def team(_team_template, tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_SECRET", raising=False)
    return fresh_copy(_team_template, tmp_path, monkeypatch)


# ---------------------------------------------------------------- sessions, in the library

def _session(db, name: str):
    from audit.accounts import issue_session, verify_session

    return verify_session(issue_session(name, db=db), db=db)


def test_a_stale_session_records_no_verdict_in_the_library(team):
    """RF: the account a session proved, passed as ``actor``, acts no more
    once an admin reset its password (the library checks the epoch)."""
    from audit.accounts import reset_password

    lead = _session(team, "Lead")
    reset_password("Lead", "another-password-1", actor="Root", db=team)
    refused(lambda: audit.add_review("jb", "q001", "Lead", "key_correct", actor=lead, db=team), team, says="ended")


def test_a_stale_session_creates_no_version(team, tmp_path):
    """RF: a lead's session that signed out elsewhere cannot publish."""
    from audit.accounts import end_sessions

    lead = _session(team, "Lead")
    end_sessions("Lead", db=team)
    refused(lambda: audit.create_version("jb", "1.1", actor=lead, db=team, exports_dir=tmp_path / "ex"), team)
    assert not (tmp_path / "ex" / "jb" / "1.1").exists()


def test_a_live_session_acts(team):
    """CR: the same call with a session that is still alive records the verdict."""
    lead = _session(team, "Lead")
    audit.add_review("jb", "q001", "Lead", "key_correct", actor=lead, db=team)
    assert ("q001", "Lead") in rows(team, "SELECT question_id, reviewer FROM reviews")


def test_a_stale_session_cannot_reset_its_own_password(team):
    """RF: disabled and enabled again, the old session is still over."""
    from audit.accounts import reset_password, set_disabled

    lead = _session(team, "Lead")
    set_disabled("Lead", actor="Root", db=team)
    set_disabled("Lead", False, actor="Root", db=team)
    refused(lambda: reset_password("Lead", "fresh-password-9", actor=lead, db=team), team, says="ended")


# ---------------------------------------------------------------- every act needs an account (more acts)

def test_judge_panel_save_needs_an_account(team):
    """RF: storing panel verdicts writes judge rows."""
    before = file_hash(team)
    r = cli(team, "judge", "panel", "-b", "jb", "--save-as", "panel1")
    one_line(r, team, before, says="--as")


def test_rescore_needs_an_account(team):
    """RF: a refit rewrites the scores the queue is ordered by."""
    before = file_hash(team)
    one_line(cli(team, "rescore", "-b", "jb"), team, before, says="--as")


def test_a_dry_run_import_needs_no_account(team, tmp_path):
    """CR: ``--dry-run`` writes nothing, so it asks for nobody."""
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer\nz1,New?,a,b,A\n")
    before = file_hash(team)
    r = cli(team, "import", "questions", str(f), "-b", "other", "--dry-run")
    assert r.returncode == 0 and "dry run" in r.stdout, r.stderr
    assert file_hash(team) == before


def test_the_library_refuses_an_import_without_an_actor(team, tmp_path):
    """RF: the library itself, not only the command, asks for the account."""
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer\nz1,New?,a,b,A\n")
    refused(lambda: audit.import_questions(f, benchmark="other", db=team), team, says="lead")


def test_an_import_by_a_lead_goes_ahead(team, tmp_path):
    """CR: with ``--as`` a lead imports."""
    f = tmp_path / "q.csv"
    f.write_text("id,question,A,B,answer\nz1,New?,a,b,A\n")
    r = cli(team, "import", "questions", str(f), "-b", "other", "--as", "Lead", "--password-stdin",
            stdin=PW["Lead"] + "\n")
    assert r.returncode == 0, r.stderr
    assert rows(team, "SELECT question_id FROM questions WHERE benchmark = 'other'") == [("z1",)]


def test_a_judge_run_named_with_an_invisible_character_sends_nothing(db_path, monkeypatch):
    """RF: the judge's name is refused before any request (not after paying)."""
    from tests.support.judge_server import JudgeServer, make_benchmark

    make_benchmark(db_path, "jb", n=2)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer() as s:
        r = cli(db_path, "judge", "run", "--model", "openai/test-judge", "--judge-name", "judge\u202e1", "-b", "jb",
                "--api-base", s.base, "--max-retries", "0", "--no-progress", "--input-cost-per-token", "1e-6",
                "--output-cost-per-token", "1e-6", env={"OPENAI_API_KEY": KEY})
        assert s.total == 0
    one_line(r, says="U+202E")


# ---------------------------------------------------------------- names

def test_two_look_alike_new_models_in_one_file(geo, tmp_path):
    """RF: no known model, but the file itself holds ``gpt4`` and ``gрt4``."""
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,answer\nq0,gpt4,A\nq0,g\u0440t4,B\n", encoding="utf-8")
    refused(lambda: audit.import_predictions(f, benchmark="geo", db=geo), geo, says="looks like")


def test_a_full_width_subject_beside_its_ascii_twin(geo, tmp_path):
    """RF: ``ｓ0`` (full-width) prints like the stored subject ``s0``."""
    f = tmp_path / "q2.jsonl"
    f.write_text(json.dumps({"id": "q9", "question": "Nine?", "A": "x", "B": "y", "answer": "A",
                             "subject": "\uff530"}, ensure_ascii=False) + "\n", encoding="utf-8")
    refused(lambda: audit.import_questions(f, benchmark="geo", db=geo), geo, says="looks like")


@pytest.mark.parametrize("name", ["gpt\ufeff4", "gpt\u11604", "gpt\u180e4"], ids=["bom", "hangul-jungseong-filler",
                                                                                 "mongolian-vowel-separator"])
def test_more_invisible_characters_in_model_names(geo, tmp_path, name):
    """RF: a byte-order mark, a Hangul filler, a Mongolian separator."""
    f = tmp_path / "p.csv"
    f.write_text(f"question_id,model,answer\nq0,{name},A\n", encoding="utf-8")
    refused(lambda: audit.import_predictions(f, benchmark="geo", db=geo), geo, says="U+")


def test_a_subject_and_an_id_in_tibetan_stay_fine(db_path, tmp_path):
    """CR: Tibetan vowel signs (combining marks) are letters, not invisibles."""
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"id": "ཀ་༡", "question": "དྲི་བ།", "A": "ཀ", "B": "ཁ", "answer": "A",
                             "subject": "བོད་ཀྱི་ལོ་རྒྱུས"}, ensure_ascii=False) + "\n", encoding="utf-8")
    audit.import_questions(f, benchmark="bo", db=db_path)
    assert rows(db_path, "SELECT question_id, subject FROM questions") == [("ཀ་༡", "བོད་ཀྱི་ལོ་རྒྱུས")]


# ---------------------------------------------------------------- literals and cells

@pytest.mark.parametrize("choices", ["['a'] + ['b']", "[f'a', 'b']", "[b'a', b'b']", "[" * 17 + "'a'" + "]" * 17,
                                     "__import__('os')"],
                         ids=["expression", "f-string", "bytes", "depth-17", "call"])
def test_choices_that_are_not_a_plain_list(db_path, tmp_path, choices):
    """RF: a literal is a list of values, nothing Python could evaluate."""
    f = tmp_path / "s.csv"
    f.write_text("question,choices,groundtruth_answer,error_type,m1\n"
                 f'What?,"{choices}",0,ok,A\n', encoding="utf-8")
    before = file_hash(db_path) if db_path.exists() else None
    r = cli(db_path, "import", "mmlu-redux", str(f), "-b", "rx")
    one_line(r, says="choices")
    assert (file_hash(db_path) if db_path.exists() else None) == before


@pytest.mark.parametrize("gt", ["-1", "1.5", "0x1"], ids=["negative", "fraction", "hex"])
def test_option_numbers_that_are_no_option_number(db_path, tmp_path, gt):
    """RF: ``groundtruth_answer`` is a whole number from 0 in ASCII digits."""
    f = tmp_path / "s.csv"
    f.write_text(f"question,choices,groundtruth_answer,error_type,m1\nWhat?,\"['a', 'b']\",{gt},ok,A\n")
    one_line(cli(db_path, "import", "mmlu-redux", str(f), "-b", "rx"), says="groundtruth_answer")


def test_an_option_number_with_spaces_is_read(db_path, tmp_path):
    """CR: `` 1 `` is option B."""
    f = tmp_path / "s.csv"
    f.write_text("question,choices,groundtruth_answer,error_type,m1\nWhat?,\"['a', 'b']\", 1 ,ok,A\n")
    audit.ingest.import_mmlu_redux(f, benchmark="rx", db=db_path)
    assert rows(db_path, "SELECT answer_key FROM questions") == [("B",)]


def test_a_detector_invalidprediction_is_stored_unparsed(db_path, tmp_path):
    """CR: the published files' third word, ``invalidprediction``, is no
    verdict: stored with parse_ok false, never read as "key wrong"."""
    from audit.judge import import_detectors

    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,C,answer\ng1,Capital of France?,Rome,Paris,Oslo,B\n")
    audit.import_questions(q, benchmark="g", db=db_path)
    f = tmp_path / "binary_mini_mmlu_groundtruth_correctness_zeroshot_gpt4_geo_enwiki-paragraphs.csv"
    f.write_text("question,choices,model_answer,predicted_error_type\n"
                 "Capital of France?,\"['Rome', 'Paris', 'Oslo']\",garbled,invalidprediction\n")
    import_detectors(f, benchmark="g", db=db_path)
    assert rows(db_path, "SELECT answer_key_correct, parse_ok FROM judge_verdicts") == [(None, False)]


# ---------------------------------------------------------------- JSON

def test_a_duplicated_key_in_a_json_array_file(db_path, tmp_path):
    """RF: the array form of a JSON file is read by the same strict decoder."""
    f = tmp_path / "q.json"
    f.write_text('[{"id": "a1", "question": "Q?", "A": "x", "B": "y", "answer": "A", "answer": "B"}]')
    refused(lambda: audit.import_questions(f, benchmark="arr", db=db_path), db_path, says="twice")


def test_a_lone_low_surrogate_in_a_json_array_file(db_path, tmp_path):
    """RF: ``\\udc00`` alone is no character, in an array file too."""
    f = tmp_path / "q.json"
    f.write_text('[{"id": "a1", "question": "Bad \\udc00", "A": "x", "B": "y", "answer": "A"}]')
    refused(lambda: audit.import_questions(f, benchmark="arr", db=db_path), db_path, says="surrogate")


def test_a_surrogate_pair_is_a_character(db_path, tmp_path):
    """CR: ``\\ud83d\\ude00`` (one emoji, escaped) is text."""
    f = tmp_path / "q.jsonl"
    f.write_text('{"id": "e1", "question": "Smile \\ud83d\\ude00?", "A": "x", "B": "y", "answer": "A"}\n')
    audit.import_questions(f, benchmark="em", db=db_path)
    assert rows(db_path, "SELECT stem FROM questions") == [("Smile \U0001F600?",)]


# ---------------------------------------------------------------- the terminal

@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("guards-terminal")
    db = d / "t.duckdb"
    q = d / "q.csv"
    q.write_text("id,subject,question,A,B,C,D,answer\n" + "".join(f"q{i},s,Q{i}?,a,b,c,d,A\n" for i in range(6)))
    p = d / "p.csv"
    p.write_text("question_id,m1,m2,m3\n" + "".join(f"q{i},B,B,{'AB'[i % 2]}\n" for i in range(6)))
    audit.import_questions(q, benchmark="b", db=db)
    audit.import_predictions(p, benchmark="b", db=db, layout="wide")
    audit.analyze_benchmark("b", db=db)
    f = d / "v.csv"
    f.write_text("question_id,judge,key_correct\nq0,j1,true\nq1,j1,false\nq0,j2,true\nq1,j2,true\n")
    audit.judge.import_detectors(f, benchmark="b", db=db)
    con = duckdb.connect(str(db))
    try:
        con.execute("UPDATE questions SET subject = ?", ["s\x1b]0;pwned\x07\x9b2J\u2028x"])
        con.execute("UPDATE judge_verdicts SET judge = ? WHERE judge = 'j1'", ["j\x1b[31m1"])
        con.execute("UPDATE judge_runs SET judge = ? WHERE judge = 'j1'", ["j\x1b[31m1"])
    finally:
        con.close()
    return db


@pytest.mark.parametrize("args", [("review", "queue", "-b", "b", "--all-tiers"), ("judge", "agreement", "-b", "b"),
                                  ("judge", "list", "-b", "b"), ("predictions", "methods", "-b", "b")],
                         ids=["review-queue", "judge-agreement", "judge-list", "predictions-methods"])
def test_more_printers_hold_no_escape_sequence(hostile, args):
    """CR: every table printer goes through the one terminal writer."""
    r = cli(hostile, *args)
    assert r.returncode == 0, r.stderr
    assert not controls(r.stdout), controls(r.stdout)


def test_json_report_escapes_the_line_separator(hostile):
    """CR: U+2028 in JSON is written ``\\u2028`` (a line break to some readers)."""
    r = cli(hostile, "report", "-b", "b", "-f", "json")
    assert r.returncode == 0, r.stderr
    assert "\u2028" not in r.stdout and "\\u2028" in r.stdout
    assert json.loads(r.stdout)["benchmark"] == "b"


def test_an_error_naming_a_file_with_an_escape_in_its_name(db_path, tmp_path):
    """RF: the error line quotes the path, never its escape sequence."""
    f = tmp_path / "q\x1b]0;x\x07.csv"
    f.write_text("nothing useful\n")
    r = cli(db_path, "import", "questions", str(f), "-b", "b")
    assert r.returncode == 1 and not controls(r.stderr), r.stderr


# ---------------------------------------------------------------- secrets

def test_the_wait_line_hides_the_equals_form_too(tmp_path, db_path):
    """CR: ``--api-key=VALUE`` of the holder never reaches the notice or the lock file."""
    secret = "Zq81xTT4vbn2LmQpWw7e3Rk"
    script = tmp_path / "holder.py"
    script.write_text("import sys, time\nfrom audit.store import connect\nwith connect(sys.argv[-1]):\n"
                      "    print('ready', flush=True)\n    time.sleep(6)\n")
    p = subprocess.Popen([sys.executable, str(script), f"--api-key={secret}", str(db_path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert p.stdout.readline().strip() == "ready"
        lock = Path(str(db_path) + ".lock").read_text(errors="replace")
        r = run_audit(["models", "list", "--db", str(db_path)],
                      env={**os.environ, "PYTHONPATH": str(REPO), "AUDIT_DB_TIMEOUT": "3"}, timeout=120)
    finally:
        p.kill()
        p.wait()
    assert secret not in lock and secret not in r.stderr and secret not in r.stdout, (lock, r.stderr)


def test_a_detector_reply_quoting_the_key_is_stored_redacted(db_path, tmp_path, monkeypatch):
    """CR: the raw ``model_answer`` of a detector file is free text like an explanation."""
    from audit.judge import import_detectors

    monkeypatch.setenv("HF_TOKEN", "hf_guardsSecret0123456789")
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,C,answer\ng1,Capital of France?,Rome,Paris,Oslo,B\n")
    audit.import_questions(q, benchmark="g", db=db_path)
    f = tmp_path / "binary_mini_mmlu_groundtruth_correctness_zeroshot_gpt4_geo_enwiki-paragraphs.csv"
    f.write_text("question,choices,model_answer,predicted_error_type\n"
                 "Capital of France?,\"['Rome', 'Paris', 'Oslo']\",my token is hf_guardsSecret0123456789,ok\n")
    import_detectors(f, benchmark="g", db=db_path)
    stored = " ".join(map(str, rows(db_path, "SELECT raw_reply FROM judge_verdicts")))
    assert "my token is" in stored and "hf_guardsSecret0123456789" not in stored


# ---------------------------------------------------------------- the database file

@pytest.mark.parametrize("kind", ["empty", "damaged", "sqlite"])
def test_files_that_are_not_a_duckdb_database(tmp_path, kind):
    """RF: a zero-byte file, a DuckDB file whose header was overwritten, a
    SQLite file: one line each, the file untouched."""
    f = tmp_path / "x.duckdb"
    if kind == "empty":
        f.write_bytes(b"")
    elif kind == "damaged":
        audit.init_db(f)
        data = bytearray(f.read_bytes())
        data[8:12] = b"XXXX"
        f.write_bytes(bytes(data))
    else:
        c = sqlite3.connect(f)
        c.execute("CREATE TABLE t (a)")
        c.commit()
        c.close()
    before = file_hash(f)
    one_line(cli(f, "models", "list"), f, before, says="not a DuckDB database")


def test_a_memory_limit_in_an_unknown_unit_names_the_variable(db_path):
    """RF: the setting is named, not the database."""
    audit.init_db(db_path)
    before = file_hash(db_path)
    one_line(cli(db_path, "models", "list", env={"AUDIT_DB_MEMORY_LIMIT": "12 parsecs"}), db_path, before,
             says="AUDIT_DB_MEMORY_LIMIT")


# ---------------------------------------------------------------- in-place content fingerprints

def _in_place(geo, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from audit.ingest import register_predictions_in_place

    f = tmp_path / "p.parquet"
    pq.write_table(pa.table({"question_id": [f"q{i}" for i in range(4)], "model": ["ip"] * 4,
                             "answer": ["A", "B", "A", "B"]}), f)
    register_predictions_in_place(f, benchmark="geo", db=geo)
    return f


def _read_in_child(db) -> subprocess.CompletedProcess:
    code = ("import sys; from audit.store import connect\nwith connect(sys.argv[1], read_only=True) as con:\n"
            "    print(con.execute(\"SELECT answer FROM all_predictions WHERE model = 'ip' ORDER BY question_id\")"
            ".fetchall())\n")
    return subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)


def test_a_touched_but_unchanged_file_is_still_read(geo, tmp_path):
    """CR: a new modification time with the same bytes is not a change."""
    f = _in_place(geo, tmp_path)
    time.sleep(0.01)
    os.utime(f)
    r = _read_in_child(geo)
    assert r.returncode == 0 and "[('A',), ('B',), ('A',), ('B',)]" in r.stdout, r.stderr[-300:]


def test_a_file_changed_then_restored_is_read_again(geo, tmp_path):
    """CR: the content decides: restored bytes are the registered file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = _in_place(geo, tmp_path)
    good = f.read_bytes()
    pq.write_table(pa.table({"question_id": [f"q{i}" for i in range(4)], "model": ["ip"] * 4,
                             "answer": ["B", "A", "B", "A"]}), f)
    assert _read_in_child(geo).returncode != 0
    f.write_bytes(good)
    r = _read_in_child(geo)
    assert r.returncode == 0 and "[('A',), ('B',), ('A',), ('B',)]" in r.stdout, r.stderr[-300:]


# ---------------------------------------------------------------- detection, report

def test_a_review_spreadsheet_is_named_as_one(geo, tmp_path):
    """RF: ``import auto`` says what the file is and which command reads it."""
    f = tmp_path / "reviews.csv"
    f.write_text("question_id,reviewer,verdict\nq0,Pema,key_correct\n")
    before = file_hash(geo)
    one_line(cli(geo, "import", "auto", str(f), "-b", "geo"), geo, before, says="audit review import")


def test_a_report_past_the_pairwise_cap_says_why(db_path, tmp_path):
    """CR: 51 models: no pairwise table, one sentence saying why, every model listed."""
    from audit.analyze.reporting import MAX_PAIRWISE_MODELS
    from audit.report import benchmark_report, build_report

    n = MAX_PAIRWISE_MODELS + 1
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,C,D,answer\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\n" for i in range(6)))
    p = tmp_path / "p.csv"
    p.write_text("question_id," + ",".join(f"m{j:03d}" for j in range(n)) + "\n"
                 + "".join(f"q{i}," + ",".join("AB"[(i + j) % 2] for j in range(n)) + "\n" for i in range(6)))
    audit.import_questions(q, benchmark="b", db=db_path)
    audit.import_predictions(p, benchmark="b", db=db_path, layout="wide")
    audit.analyze_benchmark("b", db=db_path)
    rep = build_report("b", db=db_path)
    assert rep["comparisons"] == [] and "left out" in rep["comparisons_note"]
    text = benchmark_report("b", db=db_path)
    assert "left out" in text and all(f"m{j:03d}" in text for j in range(n))
