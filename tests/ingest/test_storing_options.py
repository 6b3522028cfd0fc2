"""The duplicate-option lint's first pass is stored with each question
(``questions.options_may_repeat``, migration 041): computed where
questions are written, backfilled for questions imported before, and read
by the lint.  Checked against an independent Python rule."""
from __future__ import annotations

import re

import duckdb

from audit.analyze import analyze_benchmark, audit_lint
from audit.ingest.storing import store_questions
from audit.store import connect
from audit.store.records import Option, Question
from tests.conftest import database_before
from tests.support.analyze_data import make_benchmark

TEXTS = {
    "q0": ["a b", "a\tb", "c", "d"],          # equal once whitespace is deleted
    "q1": ["x y", "xy", "z", "w"],            # also (the exact rule then tells them apart)
    "q2": ["m\vn", "m n", "o", "s"],          # a vertical tab is not whitespace here
    "q3": ["one", "two", "three", "four"],
    "q4": ["ཀ ཁ", "ཀཁ", "ག", "ང"],            # Tibetan, equal once spaces are deleted (not the same text)
    "q5": ["ཀ  ཁ", "ཀ ཁ", "ག", "ང"],           # Tibetan, the same text once whitespace is collapsed
}


def _first_pass(texts: list[str]) -> bool:
    """The rule, independently: two texts equal once space, tab, newline,
    carriage return and form feed are deleted."""
    squeezed = [re.sub(r"[ \t\n\r\f]", "", t) for t in texts]
    return len(set(squeezed)) < len(squeezed)


def _questions() -> list[Question]:
    return [Question("b", qid, "stem", [Option(l, t) for l, t in zip("ABCD", texts)], "A")
            for qid, texts in TEXTS.items()]


def test_import_stores_the_flag(tmp_path):
    db = tmp_path / "i.duckdb"
    with connect(db) as con:
        store_questions(con, "b", "test", _questions())
        got = dict(con.execute("SELECT question_id, options_may_repeat FROM questions").fetchall())
    assert got == {qid: _first_pass(texts) for qid, texts in TEXTS.items()}
    assert got["q0"] and got["q1"] and got["q4"] and got["q5"] and not got["q2"] and not got["q3"]


def test_migration_backfills_questions_stored_before(tmp_path):
    db = tmp_path / "m.duckdb"
    con = database_before(db, 41)
    con.execute("INSERT INTO benchmarks (name, source, created_at) VALUES ('b', 'old', now())")
    for seq, (qid, texts) in enumerate(TEXTS.items()):
        con.execute(
            "INSERT INTO questions (benchmark, question_id, seq, stem, options, answer_key) VALUES (?,?,?,?,?,?)",
            ["b", qid, seq, "stem", [{"label": l, "text": t} for l, t in zip("ABCD", texts)], "A"],
        )
    con.close()
    with connect(db) as con:      # migrates
        got = dict(con.execute("SELECT question_id, options_may_repeat FROM questions").fetchall())
    assert got == {qid: _first_pass(texts) for qid, texts in TEXTS.items()}


def test_lint_reads_the_stored_flag_and_falls_back_to_the_rule(tmp_path):
    db = tmp_path / "l.duckdb"
    preds = {(q, m): "A" for q in TEXTS for m in ("m1", "m2")}
    # analyze_data writes questions with plain SQL: the flag is NULL, the lint computes it
    make_benchmark(db, "b", [(q, 4, "A") for q in TEXTS], {"m1": "f1", "m2": "f2"}, preds, option_texts=TEXTS)
    with duckdb.connect(str(db)) as con:
        assert con.execute("SELECT count(options_may_repeat) FROM questions").fetchall()[0][0] == 0
    analyze_benchmark("b", db=db)
    lint = audit_lint("b", db=db)
    assert sorted(lint.loc[lint["kind"] == "duplicate_options", "question_id"]) == ["q0", "q5"]
    # stored flags are what the lint reads: a question flagged false is not compared again
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE questions SET options_may_repeat = (question_id <> 'q5')")
    analyze_benchmark("b", db=db)
    lint = audit_lint("b", db=db)
    assert sorted(lint.loc[lint["kind"] == "duplicate_options", "question_id"]) == ["q0"]
