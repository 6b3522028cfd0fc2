"""The interface catalogues: every key a page uses exists in English, the
Chinese and Tibetan catalogues cover every English key (a missing key fails
here), placeholders match, the drafts are marked as drafts, and a missing
string falls back to English."""
from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from audit import i18n

VIEWS = Path(__file__).resolve().parents[2] / "workbench" / "views"
_T_CALL = re.compile(r"""\bt\(\s*f?["']([a-z_]+\.[A-Za-z0-9_.\- ]+?)["']""")


def _placeholders(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_every_key_used_by_a_page_is_in_the_english_catalogue():
    used = set()
    for path in VIEWS.glob("*.py"):
        used |= set(_T_CALL.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 60, "the pages should go through t()"
    missing = sorted(k for k in used if k not in i18n.en.MESSAGES)
    assert missing == []


def test_english_holds_every_label_of_a_stored_code():
    from audit import vocab

    for kind, codes in (("verdict", vocab.VERDICTS), ("cause", vocab.CAUSES)):
        for code in codes:
            assert f"{kind}.{code}" in i18n.en.MESSAGES and f"choice.{kind}.{code}" in i18n.en.CHOICES
    assert i18n.translate("verdict.key_wrong", "en") == "Key wrong"


@pytest.mark.parametrize("lang", [l for l in i18n.LANGUAGES if l != "en"])
def test_translations_cover_every_key_with_the_same_placeholders(lang):
    en, other = i18n.en.MESSAGES, i18n.messages(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang} lacks keys"
    assert sorted(set(other) - set(en)) == [], f"{lang} has keys English does not"
    for key, text in en.items():
        assert _placeholders(other[key]) == _placeholders(text), key
        assert other[key].strip(), key
    assert {"zh-Hans": i18n.zh_Hans, "bo": i18n.bo}[lang].DRAFT is True, (
        "translations stay marked as drafts until a native speaker reviews them"
    )


def test_translations_are_in_their_script():
    assert re.search(r"[\u4e00-\u9fff]", i18n.translate("item.save", "zh-Hans"))
    assert re.search(r"[\u0f00-\u0fff]", i18n.translate("item.save", "bo"))


def test_missing_string_falls_back_to_english(monkeypatch):
    monkeypatch.delitem(i18n.bo.MESSAGES, "item.save")
    assert i18n.translate("item.save", "bo") == "Save verdict"
    assert i18n.translate("no.such.key", "bo") == "no.such.key"
    assert i18n.translate("queue.page", "zh-Hans", n=3) == "第 3 页"


def test_outcome_sentence_in_each_language():
    assert i18n.outcome("done", "key_wrong", "C", adjudicated=False, option_label="ག") == "Settled: key wrong → ག"
    zh = i18n.outcome("done", "key_wrong", "C", adjudicated=True, lang="zh-Hans")
    assert zh == "已由组长定论: 标准答案错误 → C"
    assert i18n.outcome("needs_second_review", None, None, adjudicated=False,
                        lang="bo") == i18n.translate("outcome.needs_second_review", "bo")


def test_every_verdict_has_a_button_and_help_text():
    from audit.vocab import VERDICTS

    for v in VERDICTS:
        for lang in i18n.LANGUAGES:
            assert f"btn.{v}" in i18n.messages(lang) and f"help.{v}" in i18n.messages(lang)
