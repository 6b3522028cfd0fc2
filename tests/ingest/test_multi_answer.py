"""audit.ingest.multi_answer: the spellings of a set key accepted on import
(separated letters, runs, lists, JSON text, Tibetan), what is *not* a set
(words, unordered runs, repeated letters, labels past the item), the stored
form, its display, and the SQL that canonicalises an answer cell."""
import duckdb
import numpy as np
import pytest

from audit.ingest.multi_answer import MULTI_FLAG, display_key, is_set_key, key_set_sql, parse_key


@pytest.mark.parametrize("raw,n,expected", [
    ("A B D", None, ("ABD", True)),
    ("D, A", None, ("AD", True)),
    ("A、D", None, ("AD", True)),
    ("A+D", None, ("AD", True)),
    ("A;C", None, ("AC", True)),
    ("a and c", None, ("AC", True)),
    ("A, B and D", None, ("ABD", True)),
    ("ཀ ང", None, ("AD", True)),
    (["D", "B"], None, ("BD", True)),
    (("a", "c"), None, ("AC", True)),
    (np.array(["C", "A"]), None, ("AC", True)),
    ('["A", "D"]', None, ("AD", True)),
    ("ABD", 4, ("ABD", True)),
    ("abd", 4, ("ABD", True)),
    ("ABCDEF", 6, ("ABCDEF", True)),
])
def test_sets(raw, n, expected):
    assert parse_key(raw, n) == expected


@pytest.mark.parametrize("raw,n", [
    ("A", None), ("bad", 4), ("DA", 4), ("AbD", 4), ("AAB", None), ("A A", None), ("ABE", 4), ("A E", 4),
    (["A", "A"], None), (["A", 1], None), ([], None), ('["A"', None), ('{"a": 1}', None), (3, None), (None, None),
    ("the answer", None), ('["A", "Z"]', None),
])
def test_not_sets(raw, n):
    key, is_set = parse_key(raw, n)
    assert is_set is False and key is None


def test_a_one_element_list_is_a_single_key():
    assert parse_key(["c"]) == ("C", False)


def test_is_set_key():
    assert is_set_key("ABD") and not is_set_key("B") and not is_set_key("BA") and not is_set_key("AAB")
    assert not is_set_key(None) and not is_set_key("")
    assert is_set_key("B", [MULTI_FLAG]) and not is_set_key("ABD", [])     # the flag decides when given


def test_display_key():
    assert display_key("ABD") == "{A, B, D}"
    assert display_key("AD", ["multi_answer"]) == "{A, D}"
    assert display_key("C", ["key_not_in_options"]) == "C"
    assert display_key(None) == "—"


def test_sql_matches_parse_key():
    cells = ["A B D", "D,A", '["A","D"]', "abd", "ཀ"]
    con = duckdb.connect()
    got = [con.execute(f"SELECT {key_set_sql('c')} FROM (SELECT ? AS c)", [c]).fetchone()[0] for c in cells]
    assert got == ["ABD", "AD", "AD", "ABD", ""]
    assert got[:4] == [parse_key(c)[0] for c in cells[:4]]
