"""The interface uses one word per concept in each language
(:mod:`audit.i18n.terms`): no catalogue entry uses a forbidden word,
none names a concept of the table without the table's word, the Chinese
catalogue uses one of 审核/审阅, 科目/学科 and 家族/系列, and the Tibetan
interface writes Latin digits only.  The readings a Tibetan review team
reported as misleading are caught by the check."""
from __future__ import annotations

import re

import pytest

from audit import i18n
from audit.i18n import terms


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_every_catalogue_entry_uses_the_table(lang):
    found = terms.violations(i18n.messages(lang), lang, i18n.en.MESSAGES)
    assert found == [], "\n".join(f"{v.key}: {v.concept}: {v.problem}" for v in found)


@pytest.mark.parametrize("text, concept", [
    ("ལན་ཐ་མ་ཡང་དག", "answer_key"),          # "the final answer is correct"
    ("ཡང་དག་ལན་ནོར", "answer_key"),           # "the correct answer is wrong"
    ("ཞིབ་བཤེར་འགོ་འཛིན", "lead"),            # the second word for "lead"
    ("LLM དཔྱད་གཞི", "judge"),                # "object of analysis"
    ("རང་མགོ་རང་འཛིན་གྱི་དཔེ་དབྱིབས", "independent"),   # "self-governing"
    ("རེ་ཞིག་མཆོང", "skip"),                  # "jump"
    ("དཔེ་དབྱིབས་རིགས", "family"),
    ("རིམ་པ ༡–༢", "digits"),
])
def test_the_misleading_tibetan_words_are_caught(text, concept):
    assert concept in {v.concept for v in terms.violations({"x": text}, "bo")}


@pytest.mark.parametrize("text, concept", [
    ("审阅人", "reviewer"), ("审阅组长", "lead"), ("按学科", "subject"), ("1 个系列", "family"),
    ("评审模型 {name}", "judge"), ("判断", "verdict"), ("答案错误分数", "score"), ("层级", "tier"),
])
def test_the_mixed_chinese_words_are_caught(text, concept):
    assert concept in {v.concept for v in terms.violations({"x": text}, "zh-Hans")}


def test_an_english_concept_without_the_table_word_is_caught():
    found = terms.violations({"queue.key_only": "答案 {key}"}, "zh-Hans", {"queue.key_only": "key {key}"})
    assert [v.concept for v in found] == ["answer_key"]
    # the keyboard's keys are not the answer key
    assert terms.violations({"item.err_no_verdict": "请先选择一个判定（按键 1–5）。"}, "zh-Hans",
                            {"item.err_no_verdict": "Choose a verdict first (keys 1–5)."}) == []


@pytest.mark.parametrize("pair", [("审核", "审阅"), ("科目", "学科"), ("家族", "系列")])
def test_the_chinese_catalogue_uses_one_word_of_each_pair(pair):
    text = "\n".join(i18n.messages("zh-Hans").values())
    used = [w for w in pair if w in text]
    assert len(used) == 1, f"the Chinese catalogue uses {used} for one concept"


def test_each_term_is_not_forbidden_by_its_own_table():
    for t in terms.TERMS:
        for lang in ("en", "zh-Hans", "bo"):
            assert t.word(lang).strip(), (t.concept, lang)
            for pattern in t.forbidden.get(lang, ()):
                assert not re.search(pattern, t.word(lang)), (t.concept, lang, pattern)
        assert not terms.violations({"w": t.bo}, "bo"), t.concept
        assert not terms.violations({"w": t.zh}, "zh-Hans"), t.concept
    assert len({t.concept for t in terms.TERMS}) == len(terms.TERMS)


@pytest.mark.parametrize("lang", ["zh-Hans", "bo"])
def test_the_glossary_and_the_roles_name_the_table_words(lang):
    m = i18n.messages(lang)
    for glossary_term, concept in (("Key", "answer_key"), ("Tier", "tier"), ("Family", "family"),
                                   ("Version", "version"), ("Settled", "settled"), ("Disputed", "disputed")):
        assert terms.term(concept).word(lang) in m[f"term.{glossary_term}"], (glossary_term, m[f"term.{glossary_term}"])
    assert terms.term("lead").word(lang) in m["role.lead"]
    assert terms.term("judge").word(lang) in m["nav.judges"] and terms.term("judge").word(lang) in m["judges.title"]
    assert terms.term("skip").word(lang) in m["btn.skip"] and terms.term("skip").word(lang) in m["verdict.skip"]


def test_unchecked_tibetan_stays_marked_as_a_draft():
    if not all(t.bo_checked for t in terms.TERMS):
        assert i18n.bo.DRAFT is True
    if not all(t.zh_checked for t in terms.TERMS):
        assert i18n.zh_Hans.DRAFT is True


def test_one_digit_rule_for_the_tibetan_interface():
    assert terms.DIGITS["bo"] == "latin"
    assert not re.search("[\u0f20-\u0f29]", "".join(i18n.messages("bo").values()))


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_the_glossary_is_a_table_of_the_table_words(lang):
    table = i18n.glossary_table(lang, headers=(i18n.translate("common.glossary_term", lang),
                                               i18n.translate("common.glossary_meaning", lang)))
    lines = table.splitlines()
    assert lines[1] == "|---|---|" and len(lines) == 2 + len(i18n.en.GLOSSARY)
    assert all(line.startswith("| ") and line.endswith(" |") and line.count(" | ") == 1 for line in lines[2:])
    assert f"**{terms.term('answer_key').word(lang) if lang != 'en' else 'Key'}**" in table


def test_tlue_subjects_read_in_tibetan_in_the_tibetan_interface():
    from audit.i18n.subjects import CMMLU_BO, CMMLU_BO_DRAFT, CMMLU_ZH, subject_name
    from tests.conftest import SHARED_DATA

    assert set(CMMLU_BO) == set(CMMLU_ZH) and len(CMMLU_BO) == 67 and CMMLU_BO_DRAFT is True
    tlue = SHARED_DATA / "tlue_subset670"
    codes = sorted(p.stem for p in tlue.glob("*.jsonl")) if tlue.exists() else sorted(CMMLU_BO)
    for code in codes:
        name = subject_name(code, "bo")
        assert re.fullmatch(r"[\u0f00-\u0fff]+", name), (code, name)     # Tibetan only: no 农学, no code
        assert subject_name(code, "zh-Hans") == CMMLU_ZH[code]
    assert len(set(CMMLU_BO.values())) == len(CMMLU_BO), "two subjects with one Tibetan name"
