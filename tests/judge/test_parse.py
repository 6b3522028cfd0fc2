"""audit.judge._parse: the strict reading of a judge's reply — one JSON object
(bare, fenced or alone in prose), the booleans it accepts, labels of this item
only (Latin and Tibetan), percentages as confidence, causes from the
vocabulary, and every kind of self-contradiction refused with its reason."""
import json
import time

import pytest

from audit.judge._parse import (
    MAX_PROSE,
    MAX_STARTS,
    ParsedVerdict,
    ReplyError,
    _confidence,
    extract_json_object,
    parse_reply,
    verdict_from_object,
)

ABCD = "ABCD"


def _reply(**fields):
    return json.dumps(fields, ensure_ascii=False)


@pytest.mark.parametrize("text", [
    '{"a": 1}',
    '  \n{"a": 1}\n ',
    '```json\n{"a": 1}\n```',
    '```\n{"a": 1}```',
    'Here is my verdict: {"a": 1}. Thanks!',
    'I think {1, 2} is a set; verdict: {"a": 1}',      # braces that do not decode are ignored
])
def test_one_object_is_found(text):
    assert extract_json_object(text) == {"a": 1}


@pytest.mark.parametrize("text,reason", [
    ("", "empty reply"),
    ("   ", "empty reply"),
    (None, "empty reply"),
    ("[1, 2]", "not an object (list)"),
    ('"yes"', "not an object (str)"),
    ("The key is right.", "no JSON object"),
    ('{"a": 1} then {"a": 1}', "ambiguous: the reply contains 2 JSON objects"),
    ('{"a": 1, "a": 2}', "contradictory: the field a is given twice"),
])
def test_what_is_not_one_object(text, reason):
    with pytest.raises(ReplyError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        extract_json_object(text)


def test_nested_objects_belong_to_the_outer_one():
    assert extract_json_object('ok {"x": {"y": {"z": 1}}} ok') == {"x": {"y": {"z": 1}}}


def test_hostile_replies_cost_linear_time():
    t = time.perf_counter()
    with pytest.raises(ReplyError, match=f"more than {MAX_STARTS} places"):
        extract_json_object("x " + '{"' * 50_000)
    with pytest.raises(ReplyError, match="too long"):
        extract_json_object("x" * (MAX_PROSE + 1) + '{"a": 1}')
    with pytest.raises(ReplyError, match="nested too deeply"):
        extract_json_object("[" * 100_000 + "]" * 100_000)
    assert time.perf_counter() - t < 2.0


@pytest.mark.parametrize("value,ok", [(True, True), (False, False), ("TRUE", True), (" no ", False), ("Yes", True)])
def test_booleans(value, ok):
    v = parse_reply(_reply(answer_key_correct=value, correct_answer=None if ok else "B"), labels=ABCD, answer_key="A")
    assert v.parse_ok and v.answer_key_correct is ok


@pytest.mark.parametrize("value", [1, "maybe", None, [True]])
def test_other_booleans_fail(value):
    v = parse_reply(_reply(answer_key_correct=value), labels=ABCD, answer_key="A")
    assert not v.parse_ok and v.parse_error.startswith("answer_key_correct must be true or false")
    assert v.answer_key_correct is None and v.correct_answer is None


def test_missing_field():
    v = parse_reply('{"correct_answer": "B"}', labels=ABCD, answer_key="A")
    assert v == ParsedVerdict(parse_ok=False, parse_error="the field answer_key_correct is missing")


@pytest.mark.parametrize("label,stored", [("C", "C"), (" (C) ", "C"), ("C.", "C"), ("C)", "C"), ("ག", "C"),
                                          ("c", "C"), ("", None), (None, None)])
def test_labels_of_a_wrong_key(label, stored):
    v = parse_reply(_reply(answer_key_correct=False, correct_answer=label), labels=ABCD, answer_key="A")
    assert v.parse_ok, v.parse_error
    assert v.correct_answer == stored


@pytest.mark.parametrize("label", ["E", "AB", 3, "option C"])
def test_labels_outside_the_item_fail(label):
    v = parse_reply(_reply(answer_key_correct=False, correct_answer=label), labels=ABCD, answer_key="A")
    assert not v.parse_ok and "correct_answer" in v.parse_error


def test_ten_option_items_are_not_supported_past_f():
    v = parse_reply(_reply(answer_key_correct=False, correct_answer="F"), labels="ABCDEF", answer_key="A")
    assert v.correct_answer == "F"
    assert not parse_reply(_reply(answer_key_correct=False, correct_answer="E"), labels="ABC", answer_key="A").parse_ok


def test_key_correct_with_the_key_as_answer_is_stored_as_null():
    v = parse_reply(_reply(answer_key_correct=True, correct_answer="A"), labels=ABCD, answer_key="A")
    assert v.parse_ok and v.answer_key_correct and v.correct_answer is None


@pytest.mark.parametrize("fields,start", [
    (dict(answer_key_correct=True, correct_answer="B"), "contradictory: says the key A is correct but gives"),
    (dict(answer_key_correct=True, cause="translation"), "contradictory: says the key is correct but names a cause"),
    (dict(answer_key_correct=False, correct_answer="A"), "contradictory: says the key is wrong but gives the key A"),
])
def test_contradictions(fields, start):
    v = parse_reply(_reply(**fields), labels=ABCD, answer_key="A")
    assert not v.parse_ok and v.parse_error.startswith(start)


def test_key_correct_with_an_unknown_cause_is_fine():
    v = parse_reply(_reply(answer_key_correct=True, cause="who knows"), labels=ABCD, answer_key="A")
    assert v.parse_ok and v.cause is None


@pytest.mark.parametrize("raw,cause", [("Source error", "source_error"), ("key-slip", "key_slip"),
                                       ("TRANSLATION", "translation"), ("bad luck", None), (3, None)])
def test_causes_of_a_wrong_key(raw, cause):
    v = parse_reply(_reply(answer_key_correct=False, correct_answer="B", cause=raw), labels=ABCD, answer_key="A")
    assert v.parse_ok and v.cause == cause


@pytest.mark.parametrize("raw,conf", [(0.8, 0.8), ("0.5", 0.5), (0, 0.0), (1, 1.0), (85, 0.85), ("100", 1.0),
                                      (101, None), (-0.1, None), (True, None), ("high", None), (None, None),
                                      (float("nan"), None)])
def test_confidence(raw, conf):
    assert _confidence(raw) == (pytest.approx(conf) if conf is not None else None)


def test_explanation_keeps_text_and_serialises_the_rest():
    v = parse_reply(_reply(answer_key_correct=False, correct_answer="B", explanation="ཁ་ནི་ཡང་དག་རེད། <b>x</b>"),
                    labels=ABCD, answer_key="A")
    assert v.explanation == "ཁ་ནི་ཡང་དག་རེད། <b>x</b>"
    v = verdict_from_object({"answer_key_correct": False, "correct_answer": "B", "why": ["a", "b"]},
                            labels=list(ABCD), answer_key="A", explanation_field="why")
    assert v.explanation == '["a", "b"]'


def test_wrong_key_without_a_correct_option():
    v = parse_reply('```json\n{"answer_key_correct": false, "correct_answer": null, "confidence": 70}\n```',
                    labels=ABCD, answer_key="A")
    assert v == ParsedVerdict(True, False, None, None, 0.7)


def test_other_keys_are_ignored_and_tibetan_labels_work():
    v = parse_reply(_reply(answer_key_correct="false", correct_answer="ཁ", extra={"x": 1}),
                    labels=["A", "B", "C", "D"], answer_key="A")
    assert v.parse_ok and v.correct_answer == "B"
