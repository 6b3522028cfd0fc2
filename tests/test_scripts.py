"""audit.scripts: which script a text is written in.  Pins the order of
the rules (an explicit script subtag wins; then the letters; the language
tag only when the text has none of a known script, and always for
ja/ko), mixed text going to the script with the most letters, the
simplified/traditional decision and its tie-break, the 4000-character cap,
and ``has_letters`` on digits and punctuation."""
from __future__ import annotations

import pytest

from audit.scripts import LANGUAGE_SCRIPT, has_letters, script_of


@pytest.mark.parametrize("text, language, expected", [
    ("བོད་ཡིག", None, "Tibt"),
    ("འབྲུག་ཡིག", "dz", "Tibt"),
    ("ئۇيغۇرچە", "ug", "Arab"),
    ("ئۇيغۇرچە", "ug-Latn", "Latn"),          # the explicit subtag wins over the letters
    ("Монгол хэл", "mn", "Cyrl"),
    ("ᠮᠣᠩᠭᠣᠯ", "mn", "Mong"),
    ("Qazaqsha", "kk", "Latn"),
    ("漢字", "ja", "Jpan"),                    # Han letters in Japanese are not Chinese
    ("한국어", "ko", "Kore"),
    ("12 + 7 = ?", "bo", "Tibt"),              # no letters: the tag decides
    ("12 + 7 = ?", None, None),
    (None, "zh_TW", "Hant"),                   # an underscore tag is read too
    ("", "xx", None),
])
def test_script_of(text, language, expected):
    assert script_of(text, language) == expected


def test_most_letters_win_in_mixed_text():
    assert script_of("ཀ་ཁ་ག་ང་ཅ་ཆ་ཇ DNA") == "Tibt"
    assert script_of("The word བོད means Tibet in English") == "Latn"


def test_han_text_simplified_traditional_and_undecided():
    assert script_of("这个问题的答案是什么") == "Hans"
    assert script_of("這個問題的答案是什麼") == "Hant"
    assert script_of("中文", None) == "Hans"                 # valid in both: Hans by default
    assert script_of("中文", "zh-HK") == "Hant"
    assert script_of("中文", "bo") == "Hans"                 # a non-Chinese tag does not decide Han


def test_only_the_first_4000_characters_are_read():
    text = "x" * 4000 + "བོད" * 3000
    assert script_of(text) == "Latn"


def test_every_tag_of_the_table_maps_to_a_known_code():
    assert set(LANGUAGE_SCRIPT.values()) <= {"Tibt", "Hans", "Hant", "Arab", "Mong", "Cyrl", "Latn", "Jpan", "Kore"}
    for tag, code in LANGUAGE_SCRIPT.items():
        assert script_of(None, tag) == code


@pytest.mark.parametrize("text, expected", [
    ("", False), ("2 + 2 = ?", False), ("…—!?", False), ("༡༢༣", True),   # Tibetan digits are in the Tibetan block
    ("ཀ", True), ("é", True), ("ж", True), ("中", True),
])
def test_has_letters(text, expected):
    assert has_letters(text) is expected


def test_has_letters_limit():
    assert not has_letters("1" * 10 + "a", limit=10)
    assert has_letters("1" * 10 + "a", limit=11)
