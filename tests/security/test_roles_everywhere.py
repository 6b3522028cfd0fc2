"""Every act on a database that has accounts needs a proven account
(``--as NAME`` with its password), imports and model runs included.
Without one, the ``audit`` command refuses: exit 1, one line on stderr
naming ``--as``, the database file byte-identical, and for a run no request
sent to the provider.

Before: ``import questions --replace`` (it changes answer keys), ``import
judge`` and ``models set-family`` ran for anyone with the file, and
``predict run`` and ``judge run`` had no ``--as`` at all."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support.attack import cli, fresh_copy

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

PW = {"Root": "root-password", "Pema": "pema-password"}
KEY = "sk-test-roles-0123456789"


@pytest.fixture(scope="module")
def _template(tmp_path_factory):
    from audit.accounts import add_account
    from audit.review import add_review
    from tests.support.judge_server import make_benchmark

    d = tmp_path_factory.mktemp("roles-everywhere")
    db = d / "t.duckdb"
    make_benchmark(db, "jb", n=4)
    from audit.ingest import import_predictions

    p = d / "p.csv"                      # three models with raw responses (analyze and reextract need them)
    p.write_text("question_id,model,response\n" + "".join(f"q{i:03d},m{j},Answer: {'AB'[(i + j) % 2]}\n"
                                                          for i in range(4) for j in range(3)))
    import_predictions(p, benchmark="jb", db=db)
    add_account("Root", PW["Root"], db=db)
    add_account("Pema", PW["Pema"], role="reviewer", actor="Root", db=db)
    add_review("jb", "q000", "Pema", "key_correct", db=db)
    return db


@pytest.fixture
def team(_template, tmp_path, monkeypatch):
    """A database with benchmark jb (q000..q003, key A), an admin and a reviewer."""
    monkeypatch.delenv("WORKBENCH_SECRET", raising=False)
    return fresh_copy(_template, tmp_path, monkeypatch)


def file_state(db: Path) -> tuple[str, bool]:
    """The database file's sha256, and whether a write-ahead log is left."""
    return hashlib.sha256(db.read_bytes()).hexdigest(), Path(str(db) + ".wal").exists()


def refused_without_account(r, db: Path, before) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "--as" in lines[0], lines[0]
    assert file_state(db) == before, "the database changed"


def _questions_file(tmp_path: Path, key: str = "B") -> Path:
    """jb's four items with another key for q001 (what --replace would store)."""
    f = tmp_path / "q.jsonl"
    f.write_text("".join(json.dumps({"id": f"q{i:03d}", "question": f"Question QID=q{i:03d}: what is {i}?",
                                     "A": f"option A of {i}", "B": f"option B of {i}", "C": f"option C of {i}",
                                     "D": f"option D of {i}", "answer": key if i == 1 else "A",
                                     "subject": "s1" if i % 2 == 0 else "s2"}) + "\n" for i in range(4)),
                 encoding="utf-8")
    return f


# ---------------------------------------------------------------- the reported cases

def test_import_questions_replace_needs_an_account(team, tmp_path):
    before = file_state(team)
    r = cli(team, "import", "questions", str(_questions_file(tmp_path)), "-b", "jb", "--replace")
    refused_without_account(r, team, before)


def test_import_judge_needs_an_account(team, tmp_path):
    f = tmp_path / "j.jsonl"
    f.write_text(json.dumps({"loc": "q001", "llm_validation": {"answer_key_correct": False, "correct_answer": "C",
                                                               "answer_explanation": "x", "confidence": 0.9}}) + "\n")
    before = file_state(team)
    r = cli(team, "import", "judge", str(f), "--judge", "j1", "-b", "jb")
    refused_without_account(r, team, before)


def test_models_set_family_needs_an_account(team):
    before = file_state(team)
    r = cli(team, "models", "set-family", "some-model", "some-family")
    refused_without_account(r, team, before)


@pytest.fixture
def provider(monkeypatch):
    from tests.support.judge_server import JudgeServer

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with JudgeServer(default_reply=lambda qid: ("text", "Answer: A")) as s:
        yield s


def test_predict_run_needs_an_account(team, provider):
    before = file_state(team)
    r = cli(team, "predict", "run", "--model", "openai/test-model", "-b", "jb", "--api-base", provider.base,
            "--max-retries", "0", "--no-progress", "--input-cost-per-token", "1e-6", "--output-cost-per-token", "1e-6",
            env={"OPENAI_API_KEY": KEY})
    assert provider.total == 0, "a request was sent before anyone signed in"
    refused_without_account(r, team, before)


def test_judge_run_needs_an_account(team, provider):
    before = file_state(team)
    r = cli(team, "judge", "run", "--model", "openai/test-judge", "-b", "jb", "--api-base", provider.base,
            "--max-retries", "0", "--no-progress", "--input-cost-per-token", "1e-6", "--output-cost-per-token", "1e-6",
            env={"OPENAI_API_KEY": KEY})
    assert provider.total == 0, "a request was sent before anyone signed in"
    refused_without_account(r, team, before)


def test_predict_run_takes_an_account(team, provider):
    """The option exists: ``--as`` with the password on stdin is accepted
    (the run then goes ahead)."""
    r = cli(team, "predict", "run", "--model", "openai/test-model", "-b", "jb", "--api-base", provider.base,
            "--max-retries", "0", "--no-progress", "--input-cost-per-token", "1e-6", "--output-cost-per-token", "1e-6",
            "--as", "Root", "--password-stdin", stdin=PW["Root"] + "\n", env={"OPENAI_API_KEY": KEY})
    assert "No such option" not in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr


def test_judge_run_takes_an_account(team, provider):
    r = cli(team, "judge", "run", "--model", "openai/test-judge", "-b", "jb", "--api-base", provider.base,
            "--max-retries", "0", "--no-progress", "--input-cost-per-token", "1e-6", "--output-cost-per-token", "1e-6",
            "--as", "Root", "--password-stdin", stdin=PW["Root"] + "\n", env={"OPENAI_API_KEY": KEY})
    assert "No such option" not in r.stderr, r.stderr
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr


# ---------------------------------------------------------------- further cases of our own: every other act

def test_import_questions_into_a_new_benchmark_needs_an_account(team, tmp_path):
    before = file_state(team)
    r = cli(team, "import", "questions", str(_questions_file(tmp_path)), "-b", "other")
    refused_without_account(r, team, before)


def test_import_predictions_needs_an_account(team, tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("question_id,model,answer\n" + "".join(f"q{i:03d},m1,B\n" for i in range(4)))
    before = file_state(team)
    r = cli(team, "import", "predictions", str(f), "-b", "jb")
    refused_without_account(r, team, before)


def test_import_predictions_in_place_needs_an_account(team, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = tmp_path / "p.parquet"
    pq.write_table(pa.table({"question_id": [f"q{i:03d}" for i in range(4)], "model": ["m1"] * 4,
                             "answer": ["B"] * 4}), f)
    before = file_state(team)
    r = cli(team, "import", "predictions", "--in-place", str(f), "-b", "jb")
    refused_without_account(r, team, before)


def test_import_auto_needs_an_account(team, tmp_path):
    before = file_state(team)
    r = cli(team, "import", "auto", str(_questions_file(tmp_path)), "-b", "other2")
    refused_without_account(r, team, before)


def test_models_import_needs_an_account(team, tmp_path):
    f = tmp_path / "fam.csv"
    f.write_text("name,family\nm1,fa\n")
    before = file_state(team)
    r = cli(team, "models", "import", str(f))
    refused_without_account(r, team, before)


def test_import_judge_verdict_table_needs_an_account(team, tmp_path):
    """The other judge import (detector CSVs, verdict tables): ``judge import-detectors``
    or ``import auto``."""
    f = tmp_path / "verdicts.csv"
    f.write_text("question_id,judge,key_correct\nq001,j2,false\n")
    before = file_state(team)
    r = cli(team, "import", "auto", str(f), "-b", "jb")
    refused_without_account(r, team, before)


def test_analyze_needs_an_account(team):
    """A run that rewrites the tiers the review queue is built from."""
    before = file_state(team)
    r = cli(team, "analyze", "-b", "jb")
    refused_without_account(r, team, before)


def test_predictions_reextract_needs_an_account(team):
    before = file_state(team)
    r = cli(team, "predictions", "reextract", "--method", "caa", "-b", "jb")
    refused_without_account(r, team, before)


def test_a_wrong_password_on_an_import_is_refused(team, tmp_path):
    """Once imports take --as, a wrong password is one line and nothing changes
    (beyond the counted failure, which the lock needs)."""
    r = cli(team, "import", "questions", str(_questions_file(tmp_path)), "-b", "jb", "--replace",
            "--as", "Root", "--password-stdin", stdin="wrong-password\n")
    assert r.returncode == 1 and "No such option" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines() == ["error: the name or the password is not right"], r.stderr
    from tests.support.common import rows

    assert rows(team, "SELECT answer_key FROM questions WHERE question_id = 'q001'") == [("A",)]


def test_read_only_commands_still_work_without_an_account(team):
    """The correct result beside the refusals: listing and reporting read
    only, and stay open to anyone who can read the file."""
    before = file_state(team)
    r = cli(team, "models", "list")
    assert r.returncode == 0, r.stderr
    r = cli(team, "review", "list", "-b", "jb")
    assert r.returncode == 0, r.stderr
    assert file_state(team) == before
