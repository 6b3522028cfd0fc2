"""Answer extraction: TLUE's Direct Answer (DA) and Concern All Answer (CAA).

Each row: a raw response, the item's option count, the expected DA result and
the expected CAA result (None = invalid).  The expectations follow from the
two rules, not from running the code: DA wants exactly one distinct valid
letter after the exclude list; CAA first removes every complete run of all
option letters, then wants exactly one distinct letter.
"""
from __future__ import annotations

import pytest

from audit.ingest.extract import candidate_letters, extract_answer, extract_answers, strip_reasoning

ECHO4 = "A. 36°C\nB. 37.8°C\nC. 36.5°C\nD. 37°C\n"

CASES = [
    # id, response, n_options, DA, CAA
    ("bare letter", "C", 4, "C", "C"),
    ("bare letter with newline", " B\n", 4, "B", "B"),
    ("english sentence", "The answer is B.", 4, "B", "B"),
    ("answer in parentheses", "Answer: (C)", 4, "C", "C"),
    ("markdown bold", "**C**", 4, "C", "C"),
    ("markdown bold label", "**Answer: D**\n\nThe other options are wrong.", 4, "D", "D"),
    ("boxed", "Therefore the final answer is $\\boxed{D}$.", 4, "D", "D"),
    ("chinese colon", "答案：C", 4, "C", "C"),
    ("chinese sentence", "正确答案是B。", 4, "B", "B"),
    ("full-width letter", "答案：Ｃ", 4, "C", "C"),
    ("article A is not a letter", "A plant cell has a cell wall, so the answer is D.", 4, "D", "D"),
    ("article alone", "A cell wall.", 4, None, None),
    ("letter A before a verb", "A is correct.", 4, "A", "A"),
    ("answer A then article A", "Answer: A\nExplanation: A cell wall is rigid.", 4, "A", "A"),
    ("two letters named", "A and B are both wrong; the answer is C.", 4, None, None),
    ("letter then reason", "C, because A is wrong.", 4, None, None),
    ("option echo then answer", ECHO4 + "The answer is B.", 4, None, "B"),
    ("ABCD run only", "ABCD", 4, None, None),
    ("comma list then answer", "Options: A, B, C, D. Answer: D", 4, None, "D"),
    ("reversed run then answer", "D C B A — on reflection the answer is A", 4, None, "A"),
    ("incomplete run is not removed", "A B C, so C", 4, None, None),
    ("think block", "<think>It could be A or B. B fits the stem.</think>\nThe answer is B", 4, "B", "B"),
    ("unclosed think", "<think>A? C? I am not sure", 4, None, None),
    ("closing tag only", "A or C ... </think> D", 4, "D", "D"),
    ("o1 reasoning trace", "Reasoning\nMaybe A, maybe C.\nReasoned for 9 seconds\n\nD", 4, "D", "D"),
    ("tibetan text latin letter", "ལན་ཡང་དག་པ་ནི་ C ཡིན།", 4, "C", "C"),
    ("tibetan text glued latin letter", "ལན་ནི་C་རེད།", 4, "C", "C"),
    ("tibetan letter answer", "ལན་ནི་ག་རེད།", 4, "C", "C"),
    ("tibetan letter in parentheses", "ལན་ཡང་དག་པ་ནི་(ཁ)", 4, "B", "B"),
    ("tibetan letters inside words do not count", "ང་ཚོས་བསམ་བློ་བཏང་ན། འདི་ནི་བཀའ་ཡིན།", 4, None, None),
    ("tibetan word for option is not a letter", "གདམ་ག་ཁ་རེད།", 4, "B", "B"),
    ("tibetan option spelling with kha", "གདམ་ཁ་ཀ་ནི་ཡང་དག་ཡིན།", 4, "A", "A"),
    ("tibetan pronoun nga with topic marker", "ང་ནི་ལན་ག་ནི་ཡང་དག་པར་བསམ།", 4, "C", "C"),
    ("latin wins over tibetan", "ཀ་ཁ་ག་ང་ལས་ལན་ནི་ D", 4, "D", "D"),
    ("tibetan run then answer", "ཀ། ཁ། ག། ང། ལན་ནི་ཁ།", 4, None, "B"),
    ("letters inside words", "CaCO3 reacts with HCl and DNA is unaffected.", 4, None, None),
    ("acronyms around the answer", "The correct choice is option B, not the DNA option.", 4, "B", "B"),
    ("degree celsius", "25°C is optimal, so C", 4, "C", "C"),
    ("degree sign character", "At 37℃ the rate peaks: B", 4, "B", "B"),
    ("era abbreviation", "In 221 B.C. the Qin unified China; answer: A", 4, "A", "A"),
    ("vitamin", "Vitamin C deficiency causes scurvy. Answer: D", 4, "D", "D"),
    ("hyphenated word", "B-cell lymphoma fits option A", 4, "A", "A"),
    ("programming language", "Written in C++, the answer is B", 4, "B", "B"),
    ("lower case is not a letter", "I think the answer is (b).", 4, None, None),
    ("two options", "B", 2, "B", "B"),
    ("two options: C is not valid", "C", 2, None, None),
    ("two options run then answer", "A or B? I'd say A", 2, None, "A"),
    ("five options: E valid", "E. None of the above", 5, "E", "E"),
    ("four options: E ignored", "E. None of the above", 4, None, None),
    ("six options: F", "The answer is F.", 6, "F", "F"),
    ("six options run then answer", "A B C D E F — the answer is F", 6, None, "F"),
    ("tibetan letter beyond two options", "ང", 2, None, None),
    ("repeated same letter", "B. Yes, B is right.", 4, "B", "B"),
    ("empty response", "", 4, None, None),
    ("none response", None, 4, None, None),
]


@pytest.mark.parametrize("response,n,da,caa", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_direct_answer(response, n, da, caa):
    assert extract_answer(response, n, method="da") == da


@pytest.mark.parametrize("response,n,da,caa", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_concern_all_answer(response, n, da, caa):
    assert extract_answer(response, n, method="caa") == caa
    assert extract_answers([response], n, "caa") == [caa]


def test_bulk_matches_single_with_per_response_option_counts():
    responses = [c[1] for c in CASES]
    ns = [c[2] for c in CASES]
    for method, col in (("da", 3), ("caa", 4)):
        assert extract_answers(responses, ns, method) == [c[col] for c in CASES]


def test_bulk_with_one_option_count_and_iterables():
    assert extract_answers(iter(["A", "ཁ།", None]), 4, "da") == ["A", "B", None]
    assert extract_answers((r for r in ["E"]), 5, "caa") == ["E"]


def test_candidate_letters_in_reading_order():
    assert candidate_letters("A plant is B or D, not E", 4) == ["B", "D"]
    assert candidate_letters("ཀ། ཁ། ག། ང།", 4) == ["A", "B", "C", "D"]


def test_strip_reasoning():
    assert strip_reasoning("<think>A</think>B").strip() == "B"
    assert strip_reasoning("<THINKING>A</THINKING>C").strip() == "C"
    assert "A" not in strip_reasoning("Reasoning\nA\nReasoned about it for 3 seconds\nB")


@pytest.mark.parametrize("bad", [1, 7, 0, "4", 2.5, True])
def test_option_count_out_of_range(bad):
    with pytest.raises(ValueError):
        extract_answer("A", bad)


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown extraction method"):
        extract_answer("A", 4, method="regex")
    with pytest.raises(ValueError):
        extract_answers(["A"], 4, method="xx")


def test_length_mismatch():
    with pytest.raises(ValueError, match="2 responses but 1"):
        extract_answers(["A", "B"], [4], "caa")


def test_large_response_is_handled():
    big = ("ཞིང་ལས་ཐོན་སྐྱེད། " * 300_000) + "\nAnswer: C"  # ~5 M characters
    assert extract_answer(big, 4, "da") == "C"
