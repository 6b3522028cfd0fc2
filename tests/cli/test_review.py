"""``audit review …``: the same code path as the API; bad input prints one
line, exits 1 and leaves the database unchanged."""
from __future__ import annotations

import sys

import pytest

from audit.review import list_reviews
from tests.conftest import db_snapshot
from tests.support.cli_process import run_audit
from tests.support.review_bench import bench_copy


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    return bench_copy(tmp_path)


def cli(capsys, monkeypatch, *args):
    """Run ``audit …`` in-process; (exit code, stdout, stderr)."""
    from audit.cli import main

    monkeypatch.setattr(sys, "argv", ["audit", *map(str, args)])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_add_list_status_leads_required(db, capsys, monkeypatch):
    code, out, err = cli(capsys, monkeypatch, "review", "add", "--benchmark", "bench", "--question", "q01",
                         "--reviewer", "Dolma", "--verdict", "key_wrong", "--answer", "ཁ", "--cause", "translation",
                         "--rationale", "the CMMLU source says B", "--db", db)
    assert code == 0, err
    assert out.startswith("review 1 saved: bench/q01 key_wrong → B by Dolma")
    row = list_reviews("bench", "q01", db=db).iloc[0]
    assert (row["source"], row["cause"], row["rationale"]) == ("cli", "translation", "the CMMLU source says B")

    code, out, _ = cli(capsys, monkeypatch, "review", "list", "--question", "q01", "--db", db)  # one benchmark: implied
    assert code == 0 and "Dolma" in out and "key_wrong" in out and "the CMMLU source says B" in out

    code, out, _ = cli(capsys, monkeypatch, "review", "status", "-b", "bench", "--db", db)
    assert code == 0 and "1 of 6 reviewed" in out and "Needs a second review" in out

    code, out, _ = cli(capsys, monkeypatch, "review", "leads", "--set", "Pema,Karma", "--db", db)
    assert code == 0 and "lead reviewers: Karma, Pema" in out
    code, out, err = cli(capsys, monkeypatch, "review", "add", "-q", "q01", "-r", "Dolma", "-v", "key_correct",
                         "--adjudicate", "--db", db)
    assert code == 1 and "not a lead reviewer" in err
    code, out, _ = cli(capsys, monkeypatch, "review", "add", "-q", "q01", "-r", "Pema", "-v", "key_correct",
                       "--adjudicate", "--db", db)
    assert code == 0 and "(adjudication)" in out

    code, out, _ = cli(capsys, monkeypatch, "review", "required", "--flagged", "3", "--db", db)
    assert code == 0 and "Tier 1–2: 3, other items: 1" in out
    code, out, _ = cli(capsys, monkeypatch, "review", "queue", "--db", db)
    assert code == 0 and out.splitlines()[1].split()[:2] == ["1", "q01"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--question", "q99", "--verdict", "key_correct"], "error: unknown question 'q99' in benchmark 'bench'"),
        (["--question", "q01", "--verdict", "key_wrong", "--answer", "Z"], "error: corrected answer 'Z' is not one"),
        (["--question", "q01", "--verdict", "key_wrong"], "error: verdict key_wrong needs the corrected answer"),
        (["--question", "q01", "--verdict", "nah"], "error: unknown verdict 'nah'"),
        (["--question", "q01", "--verdict", "key_correct", "--cause", "bad"], "error: unknown cause 'bad'"),
    ],
)
def test_bad_add_is_one_line_exit_1_nothing_appended(db, capsys, monkeypatch, args, message):
    before = db_snapshot(db)
    code, out, err = cli(capsys, monkeypatch, "review", "add", "-b", "bench", "-r", "Dolma", *args, "--db", db)
    assert code == 1 and out == ""
    assert err.startswith(message) and err.count("\n") == 1
    assert db_snapshot(db) == before


def test_import_command_all_or_nothing(db, tmp_path, capsys, monkeypatch):
    bad = tmp_path / "r.csv"
    bad.write_text("question_id,reviewer,verdict,corrected_answer,cause,rationale\n"
                   "q01,Dolma,key_correct,,,\nq02,Dolma,key_wrong,A,,\n", encoding="utf-8")
    before = db_snapshot(db)
    code, out, err = cli(capsys, monkeypatch, "review", "import", bad, "--benchmark", "bench", "--db", db)
    assert code == 1 and err == f"error: {bad}:3: corrected answer A is the current key of question 'q02'; " \
                                "use verdict key_correct if the key is right\n"
    assert db_snapshot(db) == before
    bad.write_text("question_id,reviewer,verdict,corrected_answer,cause,rationale\n"
                   "q01,Dolma,key_correct,,,\nq02,Dolma,key_wrong,D,formatting,\n", encoding="utf-8")
    code, out, err = cli(capsys, monkeypatch, "review", "import", bad, "--benchmark", "bench", "--db", db)
    assert code == 0 and out.startswith("2 review(s) imported into bench")
    assert list_reviews("bench", db=db)["verdict"].tolist() == ["key_correct", "key_wrong"]


@pytest.mark.slow
def test_real_process_prints_one_line_and_exits_1(db):
    r = run_audit(["review", "add", "-b", "bench", "-q", "q01", "-r", "",
                   "-v", "key_correct", "--db", str(db)], timeout=120, module="audit")
    assert r.returncode == 1, r.stderr
    assert r.stderr == "error: reviewer name is empty; every verdict is attributed\n" and r.stdout == ""
