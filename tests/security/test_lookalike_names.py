"""One identifier rule for every name that identifies someone or
something — accounts, models, families, judges, subjects and item ids:
NFC, no control or format characters, no variation selectors or other
invisibles, and no name that looks like an existing one (a UTS #39
skeleton, checked through an index).  A refused name is one line, exit 1,
the database unchanged.

Before: account names ending in U+FE0F, U+2800 or U+E0100 rendered exactly
like an existing one; family names had no look-alike check at all (a
Cyrillic look-alike family moved items from Tier 4 to Tier 3); ``models
set-family`` created a model from a typo and accepted U+200B and U+202E;
judge names from detector files kept U+202E and U+200B."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

import audit
from audit.accounts import add_account
from tests.conftest import db_snapshot
from tests.support.attack import cli
from tests.support.common import rows

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

MODELS = ["llama-3-8b", "llama-3-70b", "gpt-4o", "claude-3", "gemini-1"]


def file_hash(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def refused(r, db: Path, before: str, *, says: str | None = None) -> None:
    assert "Traceback" not in r.stderr, r.stderr.strip().splitlines()[-1:]
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    if says:
        assert re.search(says, lines[0]), lines[0]
    assert file_hash(db) == before, "the database changed"


@pytest.fixture(scope="module")
def five_template(tmp_path_factory):
    """Ten items (key A) and five models of four families; the two llama
    models (family meta) answer B on q0–q4: Tier 4 under the 'tlue4' rule.
    Imported once through the CLI; each test gets its own copy."""
    work = tmp_path_factory.mktemp("five")
    db = work / "test.duckdb"
    q = work / "q.csv"
    q.write_text("id,question,A,B,C,D,answer\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\n" for i in range(10)))
    p = work / "p.csv"
    p.write_text("question_id," + ",".join(MODELS) + "\n"
                 + "".join(f"q{i},{'B,B' if i < 5 else 'A,A'},A,A,A\n" for i in range(10)))
    assert cli(db, "import", "questions", str(q), "-b", "f").returncode == 0
    assert cli(db, "import", "predictions", str(p), "-b", "f", "--layout", "wide").returncode == 0
    return db


@pytest.fixture
def five(five_template, db_path):
    shutil.copyfile(five_template, db_path)
    return db_path


def tier_counts(db) -> dict:
    audit.analyze_benchmark("f", db=db, preset="tlue4")
    df = audit.tier_counts("f", db=db)
    return dict(zip(df["bucket"], df["n"]))


# ---------------------------------------------------------------- accounts (the three reported characters)

@pytest.fixture
def team(db_path):
    add_account("Root", "root-password", db=db_path)
    add_account("Pema", "pema-password", role="reviewer", actor="Root", db=db_path)
    return db_path


@pytest.mark.parametrize("name", ["Pema\ufe0f", "Pema\u2800", "Pema\U000e0100", "Pe\ufe0fma", "\u2800Pema"],
                         ids=["vs16", "braille-blank", "vs17", "vs16-inside", "braille-blank-first"])
def test_account_names_that_render_like_an_existing_one(team, name):
    before = db_snapshot(team)
    with pytest.raises(audit.InputError) as e:
        add_account(name, "some-password", actor="Root", db=team)
    assert "\n" not in str(e.value)
    assert db_snapshot(team) == before


# ---------------------------------------------------------------- families

def test_a_cyrillic_look_alike_family_is_refused_and_tiers_stay(five):
    assert tier_counts(five)["tier4"] == 5
    before = file_hash(five)
    r = cli(five, "models", "set-family", "llama-3-70b", "m\u0435ta")            # Cyrillic е
    refused(r, five, before, says="looks like")
    assert tier_counts(five)["tier4"] == 5


def test_a_family_differing_only_in_case_is_the_same_family(five):
    """Our own case: ``Meta`` beside ``meta`` made two families (Tier 4 → 3)."""
    before = file_hash(five)
    r = cli(five, "models", "set-family", "llama-3-70b", "Meta")
    if r.returncode:                               # refused as a look-alike: fine
        refused(r, five, before)
    counts = tier_counts(five)
    assert counts["tier4"] == 5 and counts["tier3"] == 0, counts


def test_a_look_alike_family_from_a_models_file_is_refused(five, tmp_path):
    f = tmp_path / "fam.csv"
    f.write_text("name,family\nllama-3-70b,m\u0435ta\n", encoding="utf-8")
    before = file_hash(five)
    refused(cli(five, "models", "import", str(f)), five, before, says="looks like")


@pytest.mark.parametrize("family", ["me\u200bta", "meta\u202e", "meta\ufe0f", "me\u00adta", "meta\u2800"],
                         ids=["zwsp", "rlo", "vs16", "soft-hyphen", "braille-blank"])
def test_a_family_with_an_invisible_character_is_refused(five, family):
    before = file_hash(five)
    refused(cli(five, "models", "set-family", "llama-3-70b", family), five, before, says=r"U\+")


# ---------------------------------------------------------------- models set-family

def test_set_family_never_creates_a_model_from_a_typo(five):
    before = file_hash(five)
    refused(cli(five, "models", "set-family", "llama-3-7b", "meta"), five, before, says="llama-3-7b")
    assert ("llama-3-7b",) not in rows(five, "SELECT name FROM models")


@pytest.mark.parametrize("name", ["llama\u200b-3-8b", "llama-3-8b\u202e", "llama-3-8b\ufe0f"],
                         ids=["zwsp", "rlo", "vs16"])
def test_set_family_refuses_invisible_characters_in_the_model_name(five, name):
    before = file_hash(five)
    refused(cli(five, "models", "set-family", name, "meta"), five, before)


def test_models_import_refuses_a_name_that_is_no_model(five, tmp_path):
    """Our own case: the file form of the typo."""
    f = tmp_path / "fam.csv"
    f.write_text("name,family\nllama-3-7b,meta\n")
    before = file_hash(five)
    refused(cli(five, "models", "import", str(f)), five, before, says="llama-3-7b")


# ---------------------------------------------------------------- model names (our own cases)

@pytest.mark.parametrize("suffix", ["\ufe0f", "\u2800", "\U000e0100", "\u115f", "\u3164\u3164"],
                         ids=["vs16", "braille-blank", "vs17", "hangul-filler", "hangul-fillers"])
def test_model_names_that_render_like_an_existing_one(five, tmp_path, suffix):
    p = tmp_path / "p2.csv"
    p.write_text("question_id,model,answer\n" + "".join(f"q{i},gpt-4o{suffix},B\n" for i in range(10)),
                 encoding="utf-8")
    before = file_hash(five)
    refused(cli(five, "import", "predictions", str(p), "-b", "f"), five, before)


# ---------------------------------------------------------------- judges

def _geo(db, tmp_path) -> None:
    q = tmp_path / "geo.csv"
    q.write_text("id,question,A,B,C,answer\nq1,Capital of France?,Rome,Paris,Oslo,B\n")
    assert cli(db, "import", "questions", str(q), "-b", "geo").returncode == 0


@pytest.mark.parametrize("model", ["gpt\u202e4", "gpt\u200b4"], ids=["rlo", "zwsp"])
def test_judge_names_from_detector_file_names_are_checked(db_path, tmp_path, model):
    _geo(db_path, tmp_path)
    f = tmp_path / f"binary_mini_mmlu_groundtruth_correctness_zeroshot_{model}_geo_enwiki-paragraphs.csv"
    f.write_text("question,choices,model_answer,predicted_error_type\n"
                 "Capital of France?,\"['Rome', 'Paris', 'Oslo']\",fine,ok\n", encoding="utf-8")
    before = file_hash(db_path)
    refused(cli(db_path, "import", "auto", str(f), "-b", "geo"), db_path, before, says=r"U\+")


def test_judge_names_in_a_verdict_table_are_checked(db_path, tmp_path):
    """Our own case: the ``judge`` column of a plain verdict table."""
    _geo(db_path, tmp_path)
    f = tmp_path / "v.csv"
    f.write_text("question_id,judge,key_correct\nq1,gpt\u202e4,true\n", encoding="utf-8")
    before = file_hash(db_path)
    refused(cli(db_path, "import", "auto", str(f), "-b", "geo"), db_path, before, says=r"U\+")


def test_the_judge_option_of_import_judge_is_checked(db_path, tmp_path):
    """Our own case: ``import judge --judge NAME``."""
    _geo(db_path, tmp_path)
    f = tmp_path / "j.jsonl"
    f.write_text(json.dumps({"loc": "q1", "llm_validation": {"answer_key_correct": True}}) + "\n")
    before = file_hash(db_path)
    refused(cli(db_path, "import", "judge", str(f), "--judge", "gemini\u202e", "-b", "geo"), db_path, before,
            says=r"U\+")


def test_a_look_alike_judge_name_is_refused(db_path, tmp_path):
    """Our own case: ``gрt4`` (Cyrillic р) beside an imported ``gpt4``."""
    _geo(db_path, tmp_path)
    f = tmp_path / "v.csv"
    f.write_text("question_id,judge,key_correct\nq1,gpt4,true\n")
    assert cli(db_path, "import", "auto", str(f), "-b", "geo").returncode == 0
    g = tmp_path / "v2.csv"
    g.write_text("question_id,judge,key_correct\nq1,g\u0440t4,false\n", encoding="utf-8")
    before = file_hash(db_path)
    refused(cli(db_path, "import", "auto", str(g), "-b", "geo"), db_path, before, says="looks like")


# ---------------------------------------------------------------- subjects and item ids (our own cases)

@pytest.mark.parametrize("field,value", [("subject", "hist\u202eory"), ("subject", "history\ufe0f"),
                                         ("id", "q\u200b1"), ("id", "q1\u202e"), ("id", "q\x1b[2J1"),
                                         ("id", "q1\ufe0f")],
                         ids=["subject-rlo", "subject-vs16", "id-zwsp", "id-rlo", "id-escape", "id-vs16"])
def test_subjects_and_ids_follow_the_rule(db_path, tmp_path, field, value):
    rec = {"id": "q1", "question": "What?", "A": "x", "B": "y", "answer": "A", "subject": "history"}
    rec[field] = value
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    before = file_hash(db_path)
    refused(cli(db_path, "import", "questions", str(f), "-b", "s"), db_path, before, says=r"U\+")


def test_a_look_alike_subject_is_refused(db_path, tmp_path):
    """``histоry`` (Cyrillic о) beside ``history`` splits a subject's
    statistics in two without anyone seeing it."""
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"id": "q1", "question": "What?", "A": "x", "B": "y", "answer": "A",
                             "subject": "history"}) + "\n"
                 + json.dumps({"id": "q2", "question": "Who?", "A": "x", "B": "y", "answer": "A",
                               "subject": "hist\u043ery"}) + "\n", encoding="utf-8")
    before = file_hash(db_path)
    refused(cli(db_path, "import", "questions", str(f), "-b", "s"), db_path, before, says="looks like")


# ---------------------------------------------------------------- names that are fine (correct results)

def test_names_in_other_scripts_stay_fine(five, tmp_path):
    for fam in ("བོད", "Цэрэн", "次仁"):
        r = cli(five, "models", "set-family", "gpt-4o", fam)
        assert r.returncode == 0, r.stderr
    add_account("Root", "root-password", db=five)
    assert add_account("བསོད་ནམས", "sonam-password", actor="Root", db=five).name == "བསོད་ནམས"
