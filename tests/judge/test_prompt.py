"""audit.judge._prompt: the shipped templates (each valid, each with its
language and a version that is the hash of its text), rendering (options,
rationale, labels, language, source; ``$`` and braces in item text left
alone), custom templates checked for their placeholders, and loading by path
or shipped name."""
import hashlib

import pytest

from audit.errors import InputError
from audit.judge._prompt import (
    ALLOWED,
    DEFAULT_TEMPLATE,
    REQUIRED,
    SHIPPED,
    SHIPPED_LANGUAGES,
    JudgePrompt,
    default_prompt,
    load_prompt,
    make_prompt,
    shipped_language,
    source_prompt,
)

MINIMAL = "Q: ${question}\n${options}\nKey: ${answer_key}\n"


def test_every_shipped_template_is_valid_and_has_a_language():
    assert set(SHIPPED) == set(SHIPPED_LANGUAGES)
    versions = set()
    for name, template in SHIPPED.items():
        p = make_prompt(template)
        assert p.names >= set(REQUIRED) and p.names <= ALLOWED
        assert shipped_language(p.version) == SHIPPED_LANGUAGES[name]
        versions.add(p.version)
    assert len(versions) == len(SHIPPED)          # no two shipped prompts share a version
    assert shipped_language("p000000000000") is None


def test_version_is_the_hash_of_the_normalised_text():
    p = make_prompt(MINIMAL.replace("\n", "\r\n"))
    assert p.template == MINIMAL
    assert p.version == "p" + hashlib.sha256(MINIMAL.encode()).hexdigest()[:12]
    assert make_prompt(MINIMAL + " ").version != p.version


def test_render_default():
    text = default_prompt().render(stem="ཀ་ཁ་ག?", options=[{"label": "A", "text": "ཀ"}, {"label": "B", "text": "ཁ"}],
                                   answer_key="B", explanation="  because ཁ  ", language="Tibetan")
    assert "written in Tibetan." in text
    assert "A. ཀ\nB. ཁ" in text
    assert "Provided answer key: B" in text
    assert "Rationale given with the key: because ཁ\n\n" in text
    assert "one of A, B" in text


def test_render_without_rationale_or_language():
    text = default_prompt().render(stem="2+2?", options=[("A", "3"), ("B", "4")], answer_key="B", explanation="  ")
    assert "Rationale" not in text and "the original language" in text


def test_item_text_with_dollars_and_braces_is_not_a_placeholder():
    text = make_prompt(MINIMAL).render(stem="Costs ${price} or $5 {x}", options=[("A", "$$")], answer_key="A")
    assert "Costs ${price} or $5 {x}" in text and "A. $$" in text


def test_source_prompt_shows_the_original_or_says_there_is_none():
    p = source_prompt()
    assert p.needs_context and not make_prompt(MINIMAL).needs_context
    text = p.render(stem="s", options=[("A", "x")], answer_key="A")
    assert "(no linked original)" in text
    text = p.render(stem="s", options=[("A", "x")], answer_key="A", source="Original question (cmmlu): …")
    assert "Original question (cmmlu): …" in text


@pytest.mark.parametrize("template,message", [
    ("${question} ${options}", "lacks the placeholder"),
    (MINIMAL + "${secret}", "unknown placeholder"),
    (MINIMAL + "costs $ 5", r"write '\$\$'"),
])
def test_bad_templates(template, message):
    with pytest.raises(InputError, match=message):
        make_prompt(template)


def test_load_by_path_name_or_default(tmp_path):
    f = tmp_path / "mine.txt"
    f.write_text(MINIMAL, encoding="utf-8")
    assert load_prompt(f) == make_prompt(MINIMAL)
    assert load_prompt(None) == default_prompt()
    assert load_prompt("tlue-bo").version == make_prompt(SHIPPED["tlue-bo"]).version
    assert isinstance(load_prompt("methodology"), JudgePrompt)
    assert load_prompt(None).template == DEFAULT_TEMPLATE


def test_a_file_named_like_a_shipped_prompt_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "default").write_text(MINIMAL, encoding="utf-8")
    assert load_prompt("default").template == MINIMAL


def test_empty_or_missing_file(tmp_path):
    (tmp_path / "empty.txt").write_text(" \n", encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        load_prompt(tmp_path / "empty.txt")
    with pytest.raises(InputError, match="missing.txt: file not found"):
        load_prompt(tmp_path / "missing.txt")
