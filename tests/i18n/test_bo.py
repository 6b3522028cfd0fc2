"""audit.i18n.bo: the Tibetan draft catalogue.  Beyond tests/i18n/test_catalogue.py
(same keys and placeholders) and tests/i18n/test_terms.py (forbidden words,
digits), pins that every entry is written in Tibetan script (the few that
are names or code are listed), with no Chinese characters, in NFC; that
commands in code spans and Markdown emphasis are kept exactly as in
English; that no Latin word appears that the English does not have; that
number formats (``{pct:.1f}``) are kept and each entry can be filled; and that the
labels of stored codes use the words of audit/i18n/terms.py."""
from __future__ import annotations

import re
import string
import unicodedata

import pytest

from audit.i18n import bo, en
from audit.i18n.terms import term

_CODE = re.compile(r"`[^`]*`")
_PLACEHOLDER_OR_CODE = re.compile(r"\{[^{}]*\}|`[^`]*`|\*\*")
#: Entries that are names or code in every language.
NOT_TIBETAN = {"term.Kappa", "app.version", "nav.label_studio", "ls.url"}


def test_every_entry_is_tibetan_except_names():
    plain = {k: _PLACEHOLDER_OR_CODE.sub("", v) for k, v in bo.MESSAGES.items()}
    assert {k for k, v in plain.items() if not re.search("[\u0f00-\u0fff]", v)} == NOT_TIBETAN


def test_no_chinese_and_nfc():
    text = "".join(bo.MESSAGES.values())
    assert not re.search("[\u3400-\u9fff]", text)
    assert all(unicodedata.normalize("NFC", v) == v for v in bo.MESSAGES.values())


def test_code_spans_and_emphasis_are_kept():
    for key, text in en.MESSAGES.items():
        assert sorted(_CODE.findall(bo.MESSAGES[key])) == sorted(_CODE.findall(text)), key
        assert bo.MESSAGES[key].count("**") == text.count("**"), key


def _latin_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", _PLACEHOLDER_OR_CODE.sub(" ", text))}


def test_no_untranslated_english_words():
    extra = {k: _latin_words(v) - _latin_words(en.MESSAGES[k]) for k, v in bo.MESSAGES.items()}
    assert {k: w for k, w in extra.items() if w} == {"signin.sso": {"sso"}}     # the abbreviation, explained


def _fields(text: str) -> set[tuple[str, str]]:
    return {(f, spec or "") for _, f, spec, _ in string.Formatter().parse(text) if f}


def test_number_formats_are_kept_and_each_entry_fills():
    for key, text in en.MESSAGES.items():
        assert _fields(bo.MESSAGES[key]) == _fields(text), key      # {pct:.1f} stays {pct:.1f}
        bo.MESSAGES[key].format(**{f: 1234.5 for f, _ in _fields(text)})


@pytest.mark.parametrize("key, concept", [
    ("verdict.key_wrong", "key_wrong"), ("verdict.key_correct", "key_correct"), ("verdict.ambiguous", "ambiguous"),
    ("verdict.defective", "defective"), ("status.disputed", "disputed"), ("status.done", "settled"),
    ("role.reviewer", "reviewer"), ("column.model", "model"), ("column.subject", "subject"),
    ("column.tier", "tier"), ("column.family", "family"), ("column.benchmark", "benchmark"),
])
def test_stored_code_labels_use_the_terms(key, concept):
    assert term(concept).bo in bo.MESSAGES[key]
