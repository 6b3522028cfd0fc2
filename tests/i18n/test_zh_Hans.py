"""audit.i18n.zh_Hans: the simplified-Chinese draft catalogue.  Beyond
tests/i18n/test_catalogue.py (same keys and placeholders) and
tests/i18n/test_terms.py (forbidden words, one word per pair), pins that
every entry is Chinese (the few names and separators are listed), in
simplified characters (hanzidentifier finds no traditional-only one), with
no Tibetan, Chinese punctuation between Chinese words, commands in code
spans and Markdown emphasis kept exactly, no Latin word the English lacks, number formats kept,
and the labels of stored codes in the words of audit/i18n/terms.py."""
from __future__ import annotations

import re
import string
import unicodedata

import hanzidentifier
import pytest

from audit.i18n import en, zh_Hans
from audit.i18n.terms import term

_CODE = re.compile(r"`[^`]*`")
_PLACEHOLDER_OR_CODE = re.compile(r"\{[^{}]*\}|`[^`]*`|\*\*")
NOT_CHINESE = {"term.Kappa", "app.version", "nav.label_studio", "queue.progress_sep"}


def test_every_entry_is_chinese_except_names():
    plain = {k: _PLACEHOLDER_OR_CODE.sub("", v) for k, v in zh_Hans.MESSAGES.items()}
    assert {k for k, v in plain.items() if not re.search("[\u4e00-\u9fff]", v)} == NOT_CHINESE


def test_simplified_only_no_tibetan_nfc():
    text = "".join(zh_Hans.MESSAGES.values())
    han = set(re.findall("[\u3400-\u9fff]", text))
    traditional_only = sorted(c for c in han
                              if hanzidentifier.is_traditional(c) and not hanzidentifier.is_simplified(c))
    assert traditional_only == []
    assert not re.search("[\u0f00-\u0fff]", text)
    assert all(unicodedata.normalize("NFC", v) == v for v in zh_Hans.MESSAGES.values())


def test_chinese_punctuation_between_chinese_words():
    ascii_between = {k for k, v in zh_Hans.MESSAGES.items()
                     if re.search(r"[\u4e00-\u9fff][,;:?!()][\u4e00-\u9fff]", _PLACEHOLDER_OR_CODE.sub(" ", v))}
    assert ascii_between == set()


def test_code_spans_and_emphasis_are_kept():
    for key, text in en.MESSAGES.items():
        assert sorted(_CODE.findall(zh_Hans.MESSAGES[key])) == sorted(_CODE.findall(text)), key
        assert zh_Hans.MESSAGES[key].count("**") == text.count("**"), key


def _latin_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", _PLACEHOLDER_OR_CODE.sub(" ", text))}


def test_no_untranslated_english_words():
    extra = {k: _latin_words(v) - _latin_words(en.MESSAGES[k]) for k, v in zh_Hans.MESSAGES.items()}
    assert {k: w for k, w in extra.items() if w} == {}


def _fields(text: str) -> set[tuple[str, str]]:
    return {(f, spec or "") for _, f, spec, _ in string.Formatter().parse(text) if f}


def test_number_formats_are_kept_and_each_entry_fills():
    for key, text in en.MESSAGES.items():
        assert _fields(zh_Hans.MESSAGES[key]) == _fields(text), key      # {pct:.1f} stays {pct:.1f}
        zh_Hans.MESSAGES[key].format(**{f: 1234.5 for f, _ in _fields(text)})


@pytest.mark.parametrize("key, concept", [
    ("verdict.key_wrong", "key_wrong"), ("verdict.key_correct", "key_correct"), ("verdict.ambiguous", "ambiguous"),
    ("verdict.defective", "defective"), ("status.disputed", "disputed"), ("status.done", "settled"),
    ("role.reviewer", "reviewer"), ("column.model", "model"), ("column.subject", "subject"),
    ("column.tier", "tier"), ("column.family", "family"), ("column.benchmark", "benchmark"),
])
def test_stored_code_labels_use_the_terms(key, concept):
    assert term(concept).zh in zh_Hans.MESSAGES[key]
