"""audit.ingest.extract._tlue_script: TLUE's own evaluator, character for
character — every A–D character counts (also inside words), the Tibetan
letters only without Latin ones, closed reasoning blocks only, and the
sliding-buffer removal of ABCD groups; checked against a plain transcription
of TLUE's regex-based script."""
import re
import time

import pytest

from audit.ingest.extract._tlue_script import _tlue_cot, tlue_evaluator

_REF_COT = re.compile("<think>.*?</think>|<reasoning>.*?</reasoning>|<thought>.*?</thought>|"
                      "<analysis>.*?</analysis>|<step>.*?</step>", re.S)


@pytest.mark.parametrize("text", [
    "<think>A</think>B", "a<step>x</step>b<think>y", "<thought>1</analysis>2</thought>3",
    "<think><reasoning>q</think>r</reasoning>s", "<step>no close", "plain", "<analysis>a</analysis><step>b</step>c",
])
def test_cot_removal_matches_tlues_regex(text):
    assert _tlue_cot(text) == _REF_COT.sub("", text)


def test_cot_removal_is_linear():
    text = "<think>" * 30000 + "<step>" * 30000 + "A"
    t = time.perf_counter()
    assert _tlue_cot(text) == text
    assert time.perf_counter() - t < 0.5


@pytest.mark.parametrize("text,method,answer", [
    ("B", "da", "B"),
    ("Dakan: the answer is A", "da", None),        # the D of Dakan counts
    ("The answer is B", "da", "B"),               # no capital A-D besides B
    ("CaCO3", "da", "C"),
    ("ཁ", "da", "B"),
    ("བཀའ", "da", "A"),                           # ཀ inside a word counts too
    ("ཀ ཁ", "da", None),
    ("E", "da", None),                            # only A-D, whatever the option count
    ("A B C D, so B", "caa", "B"),
    ("A B C D", "caa", None),
    ("D C B A A", "caa", "A"),
    ("<think>A C D</think> B", "caa", "B"),
    ("<think>A C D B", "caa", None),              # unclosed: not removed
    ("ག ག", "caa", "C"),
    ("", "caa", None),
    (None, "da", None),
])
def test_evaluator(text, method, answer):
    assert tlue_evaluator(text, method) == answer


def test_exclude_list_is_deleted_first():
    assert tlue_evaluator("Answer: C", "da") is None         # the A of "Answer" counts
    assert tlue_evaluator("Dakan says C", "da") is None
    assert tlue_evaluator("Dakan says C", "da", exclude=["Dakan"]) == "C"


def test_buffer_rule_is_tlues_not_a_window_scan():
    # TLUE's buffer: letters enter a buffer of 4; a buffer holding all four is emptied; on a fifth
    # letter the oldest goes to the output.  "A A B C D" → A pushed out, then B C D … never completes.
    assert tlue_evaluator("A A B C D", "caa") is None
    assert tlue_evaluator("A B C D A B C D C", "caa") == "C"
