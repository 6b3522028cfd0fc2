"""audit.i18n.subjects: subject names for the interface.  Pins that a
code never shows raw (unknown codes become words in every language), that
CMMLU codes match in any case, that names already in words are kept, that
the Chinese names are Chinese and distinct, and the Tibetan table's draft
status.  (TLUE's codes reading in Tibetan is tests/i18n/test_terms.py.)"""
from __future__ import annotations

import re

import pytest

from audit.i18n.subjects import CMMLU_BO, CMMLU_BO_DRAFT, CMMLU_ZH, subject_name


@pytest.mark.parametrize("code, lang, name", [
    ("high_school_chemistry", "en", "High school chemistry"),
    ("HIGH_SCHOOL_CHEMISTRY", "zh-Hans", "高中化学"),
    (" agronomy ", "bo", "ཞིང་ལས་རིག་པ"),
    ("tibetan_medicine", "zh-Hans", "Tibetan medicine"),      # not a CMMLU code: words
    ("tibetan_medicine", "bo", "Tibetan medicine"),
    ("Tibetan grammar", "en", "Tibetan grammar"),             # already words
    ("history of_art", "en", "history of_art"),               # has a space: shown as given
    ("virology", "en", "virology"),                           # one word, no underscore: as given
    ("བོད་ཀྱི་ལོ་རྒྱུས", "bo", "བོད་ཀྱི་ལོ་རྒྱུས"),
    ("agronomy", "xx", "agronomy"),
    ("_leading", "en", "Leading"),
    (None, "bo", ""), ("", "zh-Hans", ""),
])
def test_subject_name(code, lang, name):
    assert subject_name(code, lang) == name


def test_chinese_names_are_chinese_and_distinct():
    assert len(CMMLU_ZH) == 67
    assert all(re.fullmatch(r"[\u4e00-\u9fff]+", v) for v in CMMLU_ZH.values())
    assert len(set(CMMLU_ZH.values())) == len(CMMLU_ZH)
    assert all(re.fullmatch(r"[a-z_]+", k) for k in CMMLU_ZH)


def test_tibetan_names_are_a_draft_in_tibetan_script():
    assert CMMLU_BO_DRAFT is True
    assert all(re.fullmatch(r"[\u0f00-\u0fff]+", v) and not v.endswith("་") for v in CMMLU_BO.values())


def test_every_code_reads_differently_from_the_code_in_each_language():
    for code in (c for c in CMMLU_ZH if "_" in c):
        for lang in ("en", "zh-Hans", "bo"):
            assert subject_name(code, lang) != code, (code, lang)
    for code in CMMLU_ZH:
        assert subject_name(code, "zh-Hans") != code and subject_name(code, "bo") != code
