"""``questions_table`` computes QUESTIONS_SQL's rows with a plain
scan, its ordering (seq, question_id) and its "labels are A, B, C, …" check
in NumPy.  Both must give the same table: ties in seq, non-standard and
Tibetan labels, odd label lists, and an empty benchmark."""
from __future__ import annotations

import random

import pytest

from audit.analyze.inputs import QUESTIONS_SQL, questions_table
from audit.store import connect

LABEL_LISTS = [
    ["A", "B", "C", "D"], ["A", "B"], ["A", "B", "C", "D", "E", "F"],
    ["B", "A", "C", "D"],                 # out of order
    ["ཀ", "ཁ", "ག", "ང"],                 # Tibetan
    ["A", "B", "D", "E"],                 # a gap
    ["a", "b", "c"],                      # lower case
    ["AB", "C"], [""], ["A", ""],         # not one letter each
    ["A", "B", "C", "D", "E", "F", "G"],  # beyond F
    ["A"], [],
]


def _insert(con, benchmark: str, rows) -> None:
    con.execute("INSERT INTO benchmarks (name, source) VALUES (?, 'test') ON CONFLICT DO NOTHING", [benchmark])
    for qid, seq, labels, key, subject in rows:
        con.execute("INSERT INTO questions (benchmark, question_id, seq, subject, stem, options, answer_key) "
                    "VALUES (?, ?, ?, ?, 'stem', ?, ?)",
                    [benchmark, qid, seq, subject, [{"label": l, "text": f"t{l}"} for l in labels], key])


def _same(con, benchmark: str) -> None:
    want = con.sql(QUESTIONS_SQL, params={"benchmark": benchmark}).to_arrow_table()
    got = questions_table(con, benchmark)
    assert got.schema == want.schema
    assert got.to_pylist() == want.to_pylist()


def test_same_rows_as_questions_sql(tmp_path):
    rng = random.Random(3)
    rows = []
    for i in range(300):
        labels = rng.choice(LABEL_LISTS)
        # seq ties (several questions share a seq: question_id decides) and ids not in seq order
        rows.append((f"q{rng.randrange(10**6):06d}-{i}", rng.randrange(60), labels,
                     rng.choice(labels + [None, "Z"]) if labels else None, rng.choice(["s1", "s2", None])))
    with connect(tmp_path / "q.duckdb") as con:
        _insert(con, "b", rows)
        _insert(con, "other", [("x", 0, ["A", "B"], "A", None)])
        _same(con, "b")
        _same(con, "other")
        _same(con, "missing")            # no questions: an empty table of the same columns
        got = questions_table(con, "b").to_pylist()
    assert [r["qn"] for r in got] == list(range(1, 301))
    assert any(r["standard_labels"] for r in got) and not all(r["standard_labels"] for r in got)


@pytest.mark.parametrize("ordered", [True, False])
def test_unique_seq_in_or_out_of_storage_order(tmp_path, ordered):
    seqs = list(range(50)) if ordered else list(range(49, -1, -1))
    rows = [(f"q{i:02d}", s, ["A", "B", "C"], "A", None) for i, s in enumerate(seqs)]
    with connect(tmp_path / "o.duckdb") as con:
        _insert(con, "b", rows)
        _same(con, "b")
