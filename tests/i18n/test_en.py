"""audit.i18n.en: the English source catalogue.  Pins how MESSAGES is made
(every block merged with no key defined twice: a later block would silently
replace an earlier text), the label blocks' keys (``kind.code``), the
glossary's ``term.``/``glossary.`` pairs, that texts are trimmed and
non-empty, that every placeholder is a plain name (``{n}``, never ``{}``
or ``{0}``; a spec is a number format such as ``{pct:.1f}``), and that English
holds no letters of another script.  Coverage of the other catalogues is
tests/i18n/test_catalogue.py."""
from __future__ import annotations

import re
import string
import unicodedata

from audit.i18n import en


def _blocks():
    labels = [{f"{kind}.{code}": t for code, t in table.items()} for kind, table in en.LABEL_KINDS.items()]
    return labels + [{f"glossary.{k}": v for k, v in en.GLOSSARY.items()}, {f"term.{k}": k for k in en.GLOSSARY},
                     en.OUTCOME, en.EVIDENCE, en.READING, en.UI]


def test_messages_are_the_blocks_with_no_key_twice():
    blocks = _blocks()
    assert sum(len(b) for b in blocks) == len(en.MESSAGES)
    merged: dict[str, str] = {}
    for b in blocks:
        merged.update(b)
    assert merged == en.MESSAGES
    assert en.DRAFT is False


def test_label_kinds():
    assert set(en.LABEL_KINDS) == {"verdict", "cause", "status", "flag", "scenario", "column"}
    assert en.MESSAGES["verdict.key_wrong"] == en.VERDICT_LABELS["key_wrong"] == "Key wrong"
    assert en.MESSAGES["status.done"] == "Settled"


def test_glossary_terms_name_themselves():
    for name, meaning in en.GLOSSARY.items():
        assert en.MESSAGES[f"term.{name}"] == name
        assert en.MESSAGES[f"glossary.{name}"] == meaning and meaning.endswith(".")


def test_choices_cover_verdicts_and_causes():
    from audit.vocab import CAUSES, VERDICTS

    assert set(en.CHOICES) == {f"choice.verdict.{v}" for v in VERDICTS} | {f"choice.cause.{c}" for c in CAUSES}
    assert all(t.strip() == t and t for t in en.CHOICES.values())


def test_texts_are_trimmed_and_not_empty():
    loose = {k: v for k, v in en.MESSAGES.items() if not v or v != v.strip() or "  " in v}
    assert loose == {"queue.progress_sep": "; "}      # a separator, spaces on purpose


def test_placeholders_are_plain_names():
    for key, text in en.MESSAGES.items():
        for _, field, spec, conv in string.Formatter().parse(text):
            if field is None:
                continue
            assert re.fullmatch(r"[a-z_][a-z0-9_]*", field), (key, field)
            assert not conv and re.fullmatch(r"[,.0-9]*[df%]?", spec or ""), (key, field, spec)
        text.format(**{f: 1234.5 for _, f, _, _ in string.Formatter().parse(text) if f})


def test_keys_are_dotted_lowercase_prefixes():
    for key in en.MESSAGES:
        prefix, _, rest = key.partition(".")
        assert re.fullmatch(r"[a-z_0-9]+", prefix) and rest, key


def test_english_holds_no_letters_of_another_script():
    others = {ch for text in en.MESSAGES.values() for ch in text
              if not ch.isascii() and unicodedata.category(ch).startswith("L")}
    assert others == set()
    symbols = {ch for text in en.MESSAGES.values() for ch in text if not ch.isascii()}
    assert symbols <= set("·–—…→↔×≤≥±≈")
