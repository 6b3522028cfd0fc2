"""audit.ingest.extract._filters: the reasoning filter, the exclude list and
the free-standing letter search every extraction method shares — what counts
as an option letter in English, Chinese, Tibetan and Uyghur text, and what
never does."""
import time

import pytest

from audit.ingest.extract._filters import (
    _bounded,
    candidate_letters,
    check_n,
    find_letters,
    norm_option,
    prepare,
    scan_letters,
    strip_reasoning,
)

ABCD = ("A", "B", "C", "D")


@pytest.mark.parametrize("text,kept", [
    ("<think>A? B?</think>The answer is C", " The answer is C"),    # a block becomes one space
    ("<THINKING>A</THINKING> D", "  D"),
    ("let me see A ... </think> B", " B"),            # lone closing tag: everything before is reasoning
    ("B <think> maybe C", "B "),                      # unclosed: nothing after is an answer
    ("Reasoning about A and C. Reasoned for 12 seconds\nD", " \nD"),
    ("no tags, A", "no tags, A"),
])
def test_strip_reasoning(text, kept):
    assert strip_reasoning(text) == kept


def test_strip_reasoning_is_linear_on_many_unclosed_tags():
    text = "<think>" * 20000 + "A"
    t = time.perf_counter()
    strip_reasoning(text)
    assert time.perf_counter() - t < 0.5


@pytest.mark.parametrize("text,letters", [
    ("A plant is green, so B", ["B"]),                 # English article
    ("A is right", ["A"]),                             # 'A is' is the option letter
    ("Water boils at 100°C; the answer is D", ["D"]),
    ("In 300 B.C. the answer is A.", ["A"]),
    ("Vitamin C deficiency: answer B", ["B"]),
    ("hepatitis B, so C", ["C"]),
    ("C++ and C# are languages; D", ["D"]),
    ("E. coli: B", ["B"]),
    ("CaCO3 and C4 plants: A", ["A"]),
    ("B-cell or Type-A: D", ["D"]),
    ("**C**", ["C"]),
    ("(B)", ["B"]),
    ("答案：C", ["C"]),
    ("B型肝炎 答案是D", ["D"]),
    ("维生素C 答案A", ["A"]),
    ("J. B. Watson wrote it: C", ["C"]),
    ("ۋىتامىن C يوق، جاۋاب B", ["B"]),
    ("Ｃ", ["C"]),                                     # full-width
    ("the answer is E", []),                           # not an option of a 4-option item
    ("a b c d", []),                                   # lower case never counts
])
def test_candidate_letters(text, letters):
    assert candidate_letters(text, 4) == letters


def test_circled_letters_are_read_as_latin():
    assert candidate_letters("The answer is Ⓑ", 4) == ["B"]


def test_six_options_make_e_and_f_valid():
    assert candidate_letters("E or F", 6) == ["E", "F"]
    assert candidate_letters("E or F", 5) == ["E"]


@pytest.mark.parametrize("text,letters", [
    ("ལན་ནི་ཁ་རེད།", ["B"]),                              # free-standing ཁ followed by a copula
    ("ག།", ["C"]),
    ("བཀའ་ཤོག", []),                                    # ཀ inside a syllable
    ("ང་ཚོ་ཡིན།", []),                                   # the pronoun ང
    ("གདམ་ག་ཁ།", ["B"]),                                  # གདམ་ག "option" is not an answer
    ("ཁ། but Latin C wins", ["C"]),                      # Tibetan searched only without Latin letters
])
def test_tibetan_letters(text, letters):
    assert candidate_letters(text, 4) == letters


def test_tibetan_letters_beyond_the_item_are_dropped():
    assert candidate_letters("ང།", 3) == []


def test_find_letters_fast_path_and_empty():
    assert find_letters("(C)", ABCD) == ["C"]
    assert find_letters(" D\n", ABCD) == ["D"]
    assert find_letters("", ABCD) == [] and find_letters(None, ABCD) == []


def test_scan_letters_uses_the_valid_set():
    assert scan_letters("A B C", ("A", "B")) == ["A", "B"]


def test_prepare_blanks_phrases():
    assert "℃" not in prepare("36℃")
    assert prepare("Plan B then A").count("B") == 0
    assert prepare("36°C") == "36°C"        # the degree sign is a rule of the letter pattern, not a phrase
    assert candidate_letters("36°C", 4) == []


def test_bounded_keeps_head_and_tail_of_long_text():
    text = "A" + "x" * 100_000 + "the answer is D"
    out = _bounded(text)
    assert out.startswith("A") and out.endswith("the answer is D") and len(out) == 20_002
    assert _bounded("short  text") == "short  text"


@pytest.mark.parametrize("n", [2, 3, 6])
def test_check_n_accepts_2_to_6(n):
    assert check_n(n) == n


@pytest.mark.parametrize("n", [1, 7, 10, True, 4.0, "4", None])
def test_check_n_refuses_the_rest(n):
    with pytest.raises(ValueError, match="from 2 to 6"):
        check_n(n)


def test_ten_options_are_refused_by_the_letter_search():
    with pytest.raises(ValueError):
        candidate_letters("A", 10)


@pytest.mark.parametrize("a,b", [("**C) Paris.**", "c paris"), ("「北京」", "北京"), ("ཀ་ཁ།", "ཀ ཁ"),
                                 ("  Résumé!  ", "résumé")])
def test_norm_option(a, b):
    assert norm_option(a) == b
