"""audit.sync._config: the labeling config (every verdict and cause offered
by its vocabulary key, 2–6 answer labels), text direction per script and
language, the task's escaped HTML and plain text, the task data and its
content hash, and the verdict ↔ annotation result round trip."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from audit.i18n import en
from audit.sync._config import (
    ANSWER,
    CAUSE,
    FIX,
    RATIONALE,
    VERDICT,
    content_hash,
    external_id,
    item_html,
    labeling_config,
    parse_result,
    plain_text,
    task_data,
    text_direction,
    verdict_hash,
    verdict_result,
)
from audit.vocab import CAUSES, VERDICTS

HOSTILE = "<script>alert('x')</script>"


@pytest.mark.parametrize("script, language, want", [
    ("Arab", "ug", "rtl"), (None, "fa", "rtl"), ("Hebr", None, "rtl"), ("Latn", "ar", "rtl"),
    (None, "KK-Arab", "rtl"), ("Tibt", "bo", "ltr"), (None, None, "ltr"), ("Cyrl", "kk", "ltr"),
])
def test_text_direction(script, language, want):
    assert text_direction(script, language)[0] == want


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_config_is_xml_with_every_vocabulary_key(n):
    root = ET.fromstring(labeling_config(n))
    choices = {c.get("name"): c for c in root.iter("Choices")}
    assert set(choices) == {VERDICT, ANSWER, CAUSE}
    assert [c.get("alias") for c in choices[VERDICT]] == list(VERDICTS)
    assert [c.get("value") for c in choices[VERDICT]] == [en.CHOICES[f"choice.verdict.{k}"] for k in VERDICTS]
    assert [c.get("alias") for c in choices[CAUSE]] == list(CAUSES)
    assert [c.get("value") for c in choices[ANSWER]] == list("ABCDEF"[:n])
    assert {t.get("name") for t in root.iter("TextArea")} == {RATIONALE, FIX}


@pytest.mark.parametrize("n", [0, 1, 7])
def test_option_counts_outside_2_to_6_are_refused(n):
    with pytest.raises(ValueError, match="2–6 options"):
        labeling_config(n)


def _item(**kw):
    base = {"benchmark": "b", "question_id": "q1", "subject": "s", "language": "ug", "script": "Arab",
            "stem": HOSTILE, "options": [{"label": "A", "text": "<b>a</b>"}, {"label": "B", "text": "ب"}],
            "answer_key": "B", "tier": 1,
            "families": [{"family": "<fam>", "answers": [{"answer": "A", "n": 2, "models": ["m<1>", "m2"]},
                                                        {"answer": None, "n": 1, "models": ["m3"]}]}],
            "parallels": [{"source": "cmmlu<x>", "id": "id&1", "language": "zh", "stem": "中文<i>",
                           "options": [{"label": "A", "text": "甲"}], "key": "A", "key_match": False}],
            "evidence": ["<u>because</u>"], "evidence_heading": "Why <here>"}
    base.update(kw)
    return base


def test_item_html_escapes_every_untrusted_piece():
    h = item_html(_item())
    for raw in (HOSTILE, "<b>a</b>", "<fam>", "m<1>", "cmmlu<x>", "中文<i>", "<u>because</u>", "Why <here>"):
        assert raw not in h
    for escaped in ("&lt;script&gt;", "&lt;b&gt;a&lt;/b&gt;", "&lt;fam&gt;", "m&lt;1&gt;", "cmmlu&lt;x&gt;",
                    "&lt;u&gt;because&lt;/u&gt;", "id&amp;1"):
        assert escaped in h
    assert 'dir="rtl" lang="ug"' in h and "← current key" in h and "Tier: <b>1</b>" in h
    assert "<b>invalid</b>×1" in h and "(differs from the current key)" in h


def test_item_html_vertical_mongolian_and_no_key():
    h = item_html({"stem": "ᠮᠣᠩᠭᠣᠯ", "options": [], "answer_key": None, "script": "Mong", "language": "mn"})
    assert "writing-mode: vertical-lr" in h and "Current key: <b>none</b>" in h and "Tier: <b>–</b>" in h


def test_plain_text_and_external_id():
    assert plain_text({"stem": "  two\n words ", "options": [{"label": "A", "text": None}]}) == "two words — A. "
    assert plain_text({}) == ""
    assert external_id("tlue", "a::b") == "tlue::a::b"


def test_task_data_fields_and_hash():
    d = task_data(_item())
    assert d["audit_id"] == "b::q1" and d["header"] == "b · q1 · s · Tier 1"
    assert d["options"] == ["A", "B"] and d["text"] == f"{HOSTILE} — A. <b>a</b> · B. ب"
    assert d["evidence"] == "<u>because</u>" and d["source_name"] == "cmmlu<x>"
    assert d["source_options"] == ["A. 甲"] and d["source_key"] == "A"
    rest = {k: v for k, v in d.items() if k != "audit_hash"}
    assert d["audit_hash"] == content_hash(rest) and len(d["audit_hash"]) == 20
    assert task_data(_item())["audit_hash"] == d["audit_hash"]
    assert task_data(_item(answer_key="A"))["audit_hash"] != d["audit_hash"]
    plain = task_data(_item(tier=None, subject=None, parallels=[], evidence=None))
    assert plain["header"] == "b · q1" and "source_name" not in plain and "evidence" not in plain


def test_content_hash_is_order_free_and_unicode_safe():
    assert content_hash({"a": 1, "b": "ཀ"}) == content_hash({"b": "ཀ", "a": 1})
    assert content_hash([1, 2]) != content_hash([2, 1])


def test_verdict_round_trip():
    result = verdict_result("key_wrong", "C", "translation", "why\n", "fix it")
    assert [r["from_name"] for r in result] == [VERDICT, ANSWER, CAUSE, RATIONALE, FIX]
    assert parse_result(result) == {"verdict": "key_wrong", "corrected_answer": "C", "cause": "translation",
                                    "rationale": "why", "proposed_fix": "fix it"}
    assert [r["from_name"] for r in verdict_result("key_correct")] == [VERDICT]


def test_parse_result_maps_display_texts_and_tolerates_odd_shapes():
    by_text = [{"from_name": VERDICT, "value": {"choices": [en.CHOICES["choice.verdict.ambiguous"]]}},
               {"from_name": CAUSE, "value": {"choices": [en.CHOICES["choice.cause.translation"]]}},
               {"from_name": RATIONALE, "value": {"text": "a string, not a list"}},
               {"from_name": ANSWER, "value": {"choices": []}},
               "not a dict", {"from_name": "other", "value": {"choices": ["x"]}},
               {"from_name": FIX, "value": {"text": ["  "]}}]
    assert parse_result(by_text) == {"verdict": "ambiguous", "corrected_answer": None, "cause": "translation",
                                     "rationale": "a string, not a list", "proposed_fix": None}
    assert parse_result(None) == {k: None for k in ("verdict", "corrected_answer", "cause", "rationale",
                                                     "proposed_fix")}
    assert parse_result([{"from_name": VERDICT, "value": {"choices": ["unknown"]}}])["verdict"] == "unknown"


def test_verdict_hash_normalises_blank_fields():
    assert verdict_hash("key_wrong", "B", None, " why ", "") == verdict_hash("key_wrong", "B", "", "why", None)
    assert verdict_hash("key_wrong", "B") != verdict_hash("key_wrong", "C")
    assert verdict_hash("skip") != verdict_hash("key_correct")
