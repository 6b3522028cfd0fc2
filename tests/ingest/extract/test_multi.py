"""audit.ingest.extract._multi: answer sets of multi-answer items — sorted,
deduplicated letters; a response naming every option is no answer under caa;
each single-answer method maps to one of the two set rules."""
import pytest

from audit.ingest.extract._multi import extract_answer_set, extract_answer_sets


@pytest.mark.parametrize("text,n,expected", [
    ("D and A", 4, "AD"),
    ("A, A and C", 4, "AC"),
    ("B", 4, "B"),
    ("", 4, None),
    (None, 4, None),
    ("nothing here", 4, None),
    ("E and F", 6, "EF"),
    ("A B", 2, None),                     # every option of a two-option item
    ("A plant is B", 4, "B"),             # the article is not an option
    ("<think>A B C</think> D", 4, "D"),
    ("ཀ། ག།", 4, "AC"),
])
def test_sets_under_caa(text, n, expected):
    assert extract_answer_set(text, n) == expected


def test_every_option_is_kept_under_da():
    assert extract_answer_set("A, B, C and D", 4, "da") == "ABCD"
    assert extract_answer_set("A, B, C and D", 4, "caa") is None


@pytest.mark.parametrize("method,rule", [("final", "caa"), ("tlue-caa", "caa"), ("tlue-da", "da")])
def test_methods_map_onto_the_set_rules(method, rule):
    text = "A B C D"
    assert extract_answer_set(text, 4, method) == extract_answer_set(text, 4, rule)


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown extraction method 'llm'"):
        extract_answer_set("A", 4, "llm")


def test_batch_matches_one_by_one():
    rs = ["A and C", None, "B, D", "A B C D"]
    assert extract_answer_sets(rs, 4) == [extract_answer_set(r, 4) for r in rs] == ["AC", None, "BD", None]
    assert extract_answer_sets([], 4) == []
