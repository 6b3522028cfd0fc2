"""audit.options: the option-label rule, in Python and as SQL.  Pins the
2–6 option range, the Tibetan ཀ ཁ ག ང mapping, what is not a label
(lower-case is, other scripts and 'G' are not), and that the SQL check
agrees with the Python rule for every letter and every item size
(checked against DuckDB)."""
from __future__ import annotations

import duckdb
import pytest

from audit.options import (
    LABEL_STRING,
    LATIN_LABELS,
    LATIN_TO_TIBETAN,
    MAX_OPTIONS,
    MIN_OPTIONS,
    SQL_LABELS,
    TIBETAN_LABELS,
    TIBETAN_TO_LATIN,
    label_at,
    labels_for,
    normalize_label,
    sql_is_label,
)


def test_labels_for_every_size():
    assert labels_for(2) == ("A", "B")
    assert labels_for(6) == LATIN_LABELS == tuple("ABCDEF")
    for n in range(MIN_OPTIONS, MAX_OPTIONS + 1):
        assert len(labels_for(n)) == n
    for n in (0, 1, 7, 10, -1):
        with pytest.raises(ValueError, match="2–6 options"):
            labels_for(n)


def test_label_at_and_label_string():
    assert [label_at(i) for i in range(1, 7)] == list(LABEL_STRING) == list("ABCDEF")
    for n in (0, 7):
        with pytest.raises(ValueError):
            label_at(n)


def test_tibetan_mapping_is_a_bijection_on_four_labels():
    assert TIBETAN_LABELS == ("ཀ", "ཁ", "ག", "ང")
    assert TIBETAN_TO_LATIN == {"ཀ": "A", "ཁ": "B", "ག": "C", "ང": "D"}
    assert {v: k for k, v in LATIN_TO_TIBETAN.items()} == TIBETAN_TO_LATIN


@pytest.mark.parametrize("raw, expected", [
    ("A", "A"), ("f", "F"), ("  b\n", "B"), ("ཀ", "A"), (" ང ", "D"), ("ཅ", None), ("G", None), ("AB", None),
    ("", None), ("1", None), ("А", None),       # Cyrillic А is not Latin A
    ("Ａ", None),                                # nor is a full-width A
])
def test_normalize_label(raw, expected):
    assert normalize_label(raw) == expected


def test_sql_labels_literal():
    assert duckdb.connect().execute(f"SELECT {SQL_LABELS}").fetchone()[0] == list("ABCDEF")


def test_sql_is_label_agrees_with_python_for_every_letter_and_size():
    letters = list("ABCDEFG") + ["a", "", "AB", "ཀ"]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (letter VARCHAR, n INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [[x, n] for x in letters for n in range(2, 7)])
    rows = con.execute(f"SELECT letter, n, {sql_is_label('letter', 'n')} FROM t").fetchall()
    assert len(rows) == len(letters) * 5
    for letter, n, ok in rows:
        assert ok == (letter in labels_for(n)), (letter, n)


def test_sql_is_label_is_null_for_null():
    assert duckdb.connect().execute(f"SELECT {sql_is_label('NULL', '4')}").fetchone()[0] is None
