"""Every defect found by attacking the workbench, as a table.

Each case runs the real ``audit`` entry point (in-process, or as a process
where permissions or signals matter) on a seeded database and expects either
the right result or exactly one line ``error: FILE[:LINE]: …``, exit 1, and
the database unchanged (``conftest.db_snapshot``).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import duckdb
import pytest

from audit.ingest import import_predictions, import_questions
from tests.conftest import REPO, db_snapshot
from tests.support.cli_process import run_audit
from tests.support.common import copy_db, run_cli

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

# Two spellings of one Tibetan id: U+0F73 (a composition exclusion) and its
# canonical decomposition U+0F71 U+0F72, which is what NFC gives.
OTHER_ID = "\u0F40\u0F73x"
NFC_ID = unicodedata.normalize("NFC", OTHER_ID)
assert NFC_ID == "\u0F40\u0F71\u0F72x" != OTHER_ID


def _seeded(db, folder):
    q = folder / "seed_q.csv"
    q.write_text("id,question,A,B,C,D,answer\nq1,x,a,b,c,d,A\nq2,y,a,b,c,d,B\n"
                 f"{NFC_ID},z,a,b,c,d,C\n", encoding="utf-8")
    import_questions(q, benchmark="b", db=db)
    p = folder / "seed_p.csv"
    p.write_text("question_id,m1,m2\nq1,A,B\nq2,B,B\n")
    import_predictions(p, benchmark="b", layout="wide", db=db)


@pytest.fixture
def seeded(db_path, db_template):
    return copy_db(db_template(_seeded), db_path)


def expect_error(capsys, db, *args, match: str) -> str:
    """exit 1, one line `error: …` matching *match*, the database unchanged."""
    before = db_snapshot(db)
    code, out, err = run_cli(capsys, *args, "--db", db)
    lines = err.strip().splitlines()
    assert code == 1, (code, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert re.search(match, lines[0]), lines[0]
    assert db_snapshot(db) == before
    return lines[0]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ table of files that must be refused

def _deep(n: int = 100_000) -> str:
    return "[" * n + "]" * n


BAD_FILES = [
    # (id, file name, content, command, message pattern)
    (
        "csv-extra-fields",
        "q.csv",
        "id,question,A,B,C,D,answer\nr1,x,a,b,c,d,A,EXTRA,MORE\n",
        ["import", "questions", "{f}", "--benchmark", "b"],
        r"q\.csv:2: the row has more fields than the header's 7",
    ),
    (
        "csv-ragged-short-questions",
        "q.csv",
        "id,question,A,B,C,D,answer\nr1,x,a,b,c,d,A\nr2,x,a\n",
        ["import", "questions", "{f}", "--benchmark", "b"],
        r"q\.csv:3: the row has 3 fields, the header has 7",
    ),
    (
        "wide-duplicate-model",
        "p.csv",
        "question_id,m1,m1\nq1,A,B\n",
        ["import", "predictions", "{f}", "--benchmark", "b", "--layout", "wide"],
        r"p\.csv:1: the header names column 'm1' twice",
    ),
    (
        "ragged-prediction-row",
        "p.csv",
        "question_id,model,answer\nq1,m3,A\nq2,m3\n",
        ["import", "predictions", "{f}", "--benchmark", "b"],
        r"p\.csv:3: the row has 2 fields, the header has 3",
    ),
    (
        "ragged-review-row",
        "r.csv",
        "question_id,reviewer,verdict\nq1,ann,key_correct\nq2,key_correct\n",
        ["review", "import", "{f}", "--benchmark", "b"],
        r"r\.csv:3: the row has 2 fields, the header has 3",
    ),
    (
        "deep-json-questions",
        "q.jsonl",
        '{"id": "q9", "question": "x", "answer": "A", "options": ' + _deep() + "}\n",
        ["import", "questions", "{f}", "--benchmark", "b"],
        r"q\.jsonl:1: JSON nested too deeply",
    ),
    (
        "deep-json-predictions",
        "p.jsonl",
        '{"question_id": "q1", "model": "m", "answer": ' + _deep() + "}\n",
        ["import", "predictions", "{f}", "--benchmark", "b"],
        r"p\.jsonl:1: JSON nested too deeply",
    ),
    (
        "deep-json-helm",
        "scenario.json",
        _deep(),
        ["import", "helm", "{f}", "--benchmark", "h"],
        r"scenario\.json:1: JSON nested too deeply",
    ),
    (
        "deep-json-review",
        "r.jsonl",
        '{"question_id": ' + _deep() + "}\n",
        ["review", "import", "{f}", "--benchmark", "b"],
        r"r\.jsonl:1: JSON nested too deeply",
    ),
    (
        "benchmark-name-traversal",
        "q.csv",
        "id,question,A,B,answer\nz1,x,a,b,A\n",
        ["import", "questions", "{f}", "--benchmark", "../../x"],
        r"invalid benchmark name '\.\./\.\./x'",
    ),
    (
        "benchmark-name-html",
        "q.csv",
        "id,question,A,B,answer\nz1,x,a,b,A\n",
        ["import", "questions", "{f}", "--benchmark", "<script>"],
        r"invalid benchmark name '<script>'",
    ),
    (
        "review-future-created-at",
        "r.csv",
        "question_id,reviewer,verdict,created_at\nq1,ann,key_correct,2099-01-01T00:00:00\n",
        ["review", "import", "{f}", "--benchmark", "b"],
        r"r\.csv:2: created_at 2099-01-01 00:00:00 lies in the future",
    ),
]


@pytest.mark.parametrize("case", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_file_is_refused(tmp_path, seeded, capsys, case):
    _, name, content, args, match = case
    f = write(tmp_path / name, content)
    expect_error(capsys, seeded, *[a.replace("{f}", str(f)) for a in args], match=match)


# ------------------------------------------------------------------ not regular files

def test_fifo_is_refused_without_blocking(tmp_path, seeded):
    fifo = tmp_path / "p.csv"
    os.mkfifo(fifo)
    before = db_snapshot(seeded)
    r = subprocess.run([sys.executable, "-m", "audit.cli", "import", "predictions", str(fifo), "--benchmark", "b",
                        "--db", str(seeded)], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    assert r.returncode == 1, r.stderr
    assert re.fullmatch(r"error: .*p\.csv: not a regular file \(a pipe, device or socket\).*\n", r.stderr), r.stderr
    assert db_snapshot(seeded) == before


@pytest.mark.parametrize("command", [["import", "questions"], ["import", "predictions"], ["review", "import"]])
def test_link_to_dev_zero_is_refused(tmp_path, seeded, capsys, command):
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    expect_error(capsys, seeded, *command, link, "--benchmark", "b", match=r"zero\.csv: not a regular file")


def test_input_size_is_checked_before_reading(tmp_path, seeded, capsys, monkeypatch):
    f = write(tmp_path / "q.csv", "id,question,A,B,answer\n" + "z,x,a,b,A\n" * 50)
    monkeypatch.setenv("AUDIT_MAX_INPUT_BYTES", "100")
    expect_error(capsys, seeded, "import", "questions", f, "--benchmark", "b",
                 match=r"q\.csv: the file has [\d,]+ bytes, more than the limit of 100")


# ------------------------------------------------------------------ right results instead of wrong ones

def test_cell_over_two_megabytes_imports(tmp_path, db_path, capsys):
    big = "ཀ" * 1_000_000   # 3 MB of UTF-8 in one cell
    f = write(tmp_path / "q.csv", f'id,question,A,B,answer\nq1,"{big}",a,b,A\n')
    code, out, err = run_cli(capsys, "import", "questions", f, "--benchmark", "b", "--db", db_path)
    assert code == 0, err
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        assert con.execute("SELECT length(stem) FROM questions").fetchone()[0] == 1_000_000
    finally:
        con.close()


@pytest.mark.slow
def test_output_into_missing_folder_or_onto_folder(tmp_path, seeded, capsys):
    code, _, err = run_cli(capsys, "analyze", "--benchmark", "b", "--db", seeded)
    assert code == 0, err
    for target, match in [(tmp_path / "missing" / "r.json", r"missing/r\.json: "),
                          (tmp_path, re.escape(str(tmp_path)) + r": is a folder")]:
        expect_error(capsys, seeded, "report", "--benchmark", "b", "--format", "json", "--output", target,
                     match=match)


def test_truncated_database_file(tmp_path, seeded, capsys):
    data = seeded.read_bytes()
    bad = tmp_path / "cut.duckdb"
    bad.write_bytes(data[: len(data) // 3])
    code, out, err = run_cli(capsys, "review", "list", "--benchmark", "b", "--db", bad)
    assert code == 1, (out, err)
    assert re.fullmatch(r"error: .*cut\.duckdb: cannot open the database: .*\n", err), err


# ------------------------------------------------------------------ ids are NFC everywhere

def _ids(db, sql):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_two_spellings_of_one_id_are_one_question(tmp_path, seeded, capsys):
    f = write(tmp_path / "q.csv", f"id,question,A,B,answer\n{NFC_ID},x,a,b,A\n{OTHER_ID},y,a,b,B\n")
    expect_error(capsys, seeded, "import", "questions", f, "--benchmark", "b",
                 match=r"q\.csv:3: duplicate question id .* \(first on line 2\)")


def test_other_spelling_finds_the_item_everywhere(tmp_path, seeded, capsys):
    p = write(tmp_path / "p.csv", f"question_id,model,answer\n{OTHER_ID},m3,C\n")
    assert run_cli(capsys, "import", "predictions", p, "--benchmark", "b", "--db", seeded)[0] == 0
    r = write(tmp_path / "r.csv", f"question_id,reviewer,verdict\n{OTHER_ID},ann,key_correct\n")
    assert run_cli(capsys, "review", "import", r, "--benchmark", "b", "--db", seeded)[0] == 0
    j = write(tmp_path / "j.jsonl", json.dumps({"loc": OTHER_ID, "llm_validation": {
        "answer_key_correct": True, "correct_answer": "C", "answer_explanation": "ok", "confidence": 0.9}}) + "\n")
    code, out, err = run_cli(capsys, "import", "judge", j, "--judge", "g", "--benchmark", "b", "--db", seeded)
    assert code == 0, err
    for table in ("predictions", "reviews", "judge_verdicts"):
        assert _ids(seeded, f"SELECT DISTINCT question_id FROM {table} WHERE question_id LIKE '%x'") == [(NFC_ID,)]
    code, out, err = run_cli(capsys, "review", "add", "--benchmark", "b", "--question", OTHER_ID, "--reviewer", "bo",
                             "--verdict", "ambiguous", "--db", seeded)
    assert code == 0, err


def test_migration_010_normalises_an_existing_database(tmp_path):
    from audit.store import connect
    from tests.conftest import database_before

    path = tmp_path / "old.duckdb"
    con = database_before(path, 10)
    con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'questions')")
    opts = "[{'label': 'A', 'text': 'a'}, {'label': 'B', 'text': 'b'}]"
    for i, qid in enumerate([OTHER_ID, NFC_ID + "2", "plain"]):
        con.execute(f"INSERT INTO questions (benchmark, question_id, seq, stem, options, answer_key) "
                    f"VALUES ('b', ?, ?, 's', {opts}, 'A')", [qid, i])
    con.execute("INSERT INTO predictions VALUES ('b', ?, 'm', 'default', NULL, 'A', 'given', true)", [OTHER_ID])
    con.execute("INSERT INTO reviews (benchmark, question_id, reviewer, created_at, verdict, source, app_version) "
                "VALUES ('b', ?, 'ann', '2026-01-01', 'key_correct', 'cli', 'x')", [OTHER_ID])
    con.close()
    with connect(path) as c:
        assert sorted(r[0] for r in c.execute("SELECT question_id FROM questions").fetchall()) == sorted(
            [NFC_ID, NFC_ID + "2", "plain"])
        assert c.execute("SELECT question_id FROM predictions").fetchall() == [(NFC_ID,)]
        assert c.execute("SELECT question_id, claimed_at FROM reviews").fetchall() == [(NFC_ID, None)]


# ------------------------------------------------------------------ export consistency

def _toy(db, tmp_path):
    from tests.export.test_create import _reviews, _write_predictions, _write_questions

    q = tmp_path / "toy_q.csv"
    _write_questions(q)
    import_questions(q, benchmark="toy", db=db)
    p = tmp_path / "toy_p.csv"
    _write_predictions(p)
    import_predictions(p, benchmark="toy", layout="wide", db=db)
    _reviews(db)


@pytest.mark.slow
def test_kill_between_rename_and_commit_is_recovered(tmp_path, db_path):
    """SIGKILL after the version folder is renamed into place and before the
    record commits: the next export moves the unrecorded folder aside, says
    so, and succeeds; list --verify then shows the versions intact."""
    _toy(db_path, tmp_path)
    out = tmp_path / "exports"
    env = {**os.environ, "PYTHONPATH": str(REPO), "AUDIT_EXPORTS": str(out), "AUDIT_EXPORT_CRASH_AFTER": "published"}
    before = db_snapshot(db_path)
    r = run_audit(["export", "create", "--benchmark", "toy", "--version",
                   "1.0", "--db", str(db_path)], env=env, timeout=300)
    assert r.returncode == -9, (r.returncode, r.stderr)
    assert (out / "toy" / "1.0" / "manifest.json").exists()   # visible but unrecorded
    assert db_snapshot(db_path) == before
    del env["AUDIT_EXPORT_CRASH_AFTER"]
    r = run_audit(["export", "create", "--benchmark", "toy", "--version",
                   "1.1", "--db", str(db_path)], env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert re.search(r"moved .*toy/1\.0 aside to \.1\.0\.unrecorded-\d+T\d+: an earlier export was interrupted",
                     r.stdout), r.stdout
    r = run_audit(["export", "list", "toy", "--verify", "--format", "csv",
                   "--db", str(db_path)], env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    import io

    import pandas as pd

    rows = pd.read_csv(io.StringIO(r.stdout), dtype=str)
    assert rows[["version", "intact"]].values.tolist() == [["1.0", "True"], ["1.1", "True"]]


@pytest.mark.slow
def test_corrected_key_outside_current_options_blocks_export(tmp_path, db_path, capsys):
    from audit.export import create_version

    _toy(db_path, tmp_path)
    out = tmp_path / "exports"
    create_version("toy", "1.0", db=db_path, exports_dir=out)
    # re-import q04 (verdict: key D) and q02 (verdict: B) with two options only
    f = write(tmp_path / "re.csv", "id,question,A,B,answer\nq04,x,a,b,A\nq02,y,a,b,A\n")
    import_questions(f, benchmark="toy", db=db_path, replace=True)
    line = expect_error(capsys, db_path, "export", "create", "--benchmark", "toy", "--version", "1.1",
                        "--exports-dir", out,
                        match=r"1 item\(s\) of 'toy' have a corrected key that is not one of their current options.*"
                              r"q04 \(verdict says D, options now A–B\)")
    assert "q02" not in line   # B is still an option of q02
    assert sorted(p.name for p in (out / "toy").iterdir()) == ["1.0"]


def test_exports_symlink_leaving_the_root_is_refused(tmp_path, db_path, capsys, monkeypatch):
    _toy(db_path, tmp_path)
    out = tmp_path / "exports"
    outside = tmp_path / "elsewhere"
    out.mkdir()
    outside.mkdir()
    (out / "toy").symlink_to(outside)
    monkeypatch.setenv("AUDIT_EXPORTS", str(out))
    expect_error(capsys, db_path, "export", "create", "--benchmark", "toy", "--version", "1.0",
                 match=r"exports/toy is a link to .*elsewhere, outside the exports folder")
    assert list(outside.iterdir()) == []


# ------------------------------------------------------------------ secrets in error paths


def _echo_server(status: int, as_json: bool):
    import http.server
    import threading

    class H(http.server.BaseHTTPRequestHandler):
        def _answer(self):
            # the credential first, as a short debug body would show it
            headers = "; ".join(f"{k}: {v}" for k, v in sorted(self.headers.items(),
                                                                key=lambda kv: kv[0].lower() != "authorization"))
            body = (json.dumps({"detail": f"upstream failed, request headers were {headers}"}) if as_json
                    else f"<html>Bad gateway. Headers: {headers}</html>").encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if as_json else "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = _answer

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return srv


@pytest.mark.parametrize("status,as_json", [(500, True), (502, False), (429, True)])
def test_label_studio_errors_never_show_the_token(tmp_path, seeded, capsys, status, as_json, monkeypatch):
    token = "tok-0123456789abcdef0123456789abcdef"
    srv = _echo_server(status, as_json)
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
        line = expect_error(capsys, seeded, "ls", "connect", "--url", url, "--api-key", token, "--benchmark", "b",
                            match=rf"Label Studio at {re.escape(url)} answered HTTP {status}")
        assert token not in line and token[:12] not in line, line
        # the library's own message (the workbench shows it) is redacted too, not only the CLI line
        from audit.sync import LabelStudioError
        from audit.sync._client import open_session

        with pytest.raises(LabelStudioError) as info:
            open_session(url, token)
        assert f"HTTP {status}" in str(info.value) and token not in str(info.value), str(info.value)
        # user:password@ in the URL is hidden too
        url2 = f"http://ann:s3cretpass@127.0.0.1:{srv.server_address[1]}"
        line = expect_error(capsys, seeded, "ls", "connect", "--url", url2, "--api-key", token, "--benchmark", "b",
                            match=r"\*\*\*")
        assert "s3cretpass" not in line and token not in line, line
    finally:
        srv.shutdown()
        srv.server_close()


# ------------------------------------------------------------------ unreadable files (permission denied)

UNREADABLE = [
    # (importer arguments, name of the unreadable file inside the folder)
    (["import", "tlue", "{d}", "--benchmark", "t"], "agronomy.jsonl"),
    (["import", "mmlu-redux", "{d}", "--benchmark", "m"], "anatomy.csv"),
    (["import", "helm", "{d}", "--benchmark", "h"], "scenario_state.json"),
    (["import", "parallel", "{d}", "--benchmark", "b"], "agronomy.csv"),
    (["import", "judge", "{d}", "--judge", "g", "--benchmark", "b"], "agronomy.jsonl"),
    (["import", "questions", "{f}", "--benchmark", "b"], "q.csv"),       # a top-level file: exit 1, not a usage box
]


@pytest.mark.parametrize("case", UNREADABLE, ids=[c[0][1] + ("-file" if "{f}" in c[0] else "") for c in UNREADABLE])
def test_unreadable_file_inside_a_folder(tmp_path, seeded, case):
    """Root reads everything, so the command runs without the capabilities
    that bypass file permissions (setpriv): a mode-000 file is then really
    unreadable."""
    import shutil

    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    args, name = case
    d = tmp_path / "in"
    d.mkdir()
    f = d / name
    f.write_text("{}\n", encoding="utf-8")
    f.chmod(0)
    drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
            "--inh-caps", "-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    before = db_snapshot(seeded)
    r = subprocess.run([*drop, sys.executable, "-m", "audit.cli",
                        *[a.replace("{d}", str(d)).replace("{f}", str(f)) for a in args], "--db", str(seeded)],
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr == f"error: {f}: cannot read the file: permission denied\n", r.stderr
    assert db_snapshot(seeded) == before


def test_empty_cmmlu_answer_is_not_a_key_mismatch(tmp_path, seeded, capsys):
    d = tmp_path / "cmmlu"
    d.mkdir()
    # seeded questions q1 (key A), q2 (key B): file "q.csv" rows 1 and 2 link to q1, q2
    write(d / "q.csv", ",Question,A,B,C,D,Answer\n1,x,a,b,c,d,\n2,y,a,b,c,d,C\n")
    code, out, err = run_cli(capsys, "import", "parallel", d, "--benchmark", "b", "--db", seeded)
    assert code == 0, err
    assert "linked 2 questions of 'b' to cmmlu: 1 key mismatch(es) (q2)" in out, out
    assert "1 counterpart(s) have no key (empty Answer) and were not compared" in out, out
    assert sorted(_ids(seeded, "SELECT question_id, key_match FROM parallel_links")) == [("q1", None), ("q2", False)]
