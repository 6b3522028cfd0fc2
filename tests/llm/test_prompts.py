"""audit.llm.prompts: prompt text both LLM stages send.  Pins the prompt
version (``'p' + sha256[:12]`` of the template with line endings
normalised, checked against hashlib), placeholder checks (unknown, missing,
a stray ``$`` with its line; ``$$`` and JSON braces are fine), language
names from tags, and the rendering of options (ten options, Tibetan labels,
text with newlines) and of a parallel source."""
from __future__ import annotations

import hashlib
import string

import pytest

from audit.errors import InputError
from audit.llm.prompts import (
    LANGUAGES,
    check_template,
    language_name,
    prompt_version,
    render_options,
    render_source,
    template_names,
)


def test_prompt_version_against_hashlib():
    text = "Question: ${question}\n${options}\n"
    assert prompt_version(text) == "p" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    assert prompt_version(text.replace("\n", "\r\n")) == prompt_version(text)
    assert prompt_version(text.replace("\n", "\r")) == prompt_version(text)
    assert prompt_version(text + " ") != prompt_version(text)
    assert prompt_version("དྲི་བ། ${question}") == "p" + hashlib.sha256("དྲི་བ། ${question}".encode()).hexdigest()[:12]


def test_template_names():
    assert template_names("${question} $options {\"json\": 1} costs $$5") == {"question", "options"}
    assert template_names("") == set()


def test_a_stray_dollar_names_its_line():
    with pytest.raises(InputError, match="write '\\$\\$' for a literal dollar") as e:
        template_names("line one\nline two costs $ 5\n", path="p.txt")
    assert e.value.line == 2 and e.value.path == "p.txt"


def test_check_template():
    tpl, names = check_template("Q: ${question}\r\nO: ${options}\r\n", required=["question", "options"],
                                allowed={"question", "options", "language"})
    assert tpl == "Q: ${question}\nO: ${options}\n" and names == {"question", "options"}
    with pytest.raises(InputError, match=r"unknown placeholder\(s\) \['colour'\]"):
        check_template("${question} ${options} ${colour}", required=["question"], allowed={"question", "options"})
    with pytest.raises(InputError, match=r"lacks the placeholder\(s\) \['\$\{options\}'\]") as e:
        check_template("${question}", required=["question", "options"], allowed={"question", "options"},
                       path="mine.txt")
    assert str(e.value).startswith("mine.txt: ")


@pytest.mark.parametrize("tag, name", [
    ("bo", "Tibetan"), ("bo-CN", "Tibetan"), ("zh_Hans", "Chinese"), ("UG-Arab", "Uyghur"), ("mn-Mong", "Mongolian"),
    ("dz", "Dzongkha"), ("xx-YY", "xx-YY"), (" ", None), ("", None), (None, None),
])
def test_language_name(tag, name):
    assert language_name(tag) == name


def test_languages_table_keys_are_primary_subtags():
    assert all(k.isalpha() and k.islower() and len(k) == 2 for k in LANGUAGES)


def test_render_options():
    ten = [(chr(ord("A") + i), f"option {i}") for i in range(10)]
    lines = render_options(ten).split("\n")
    assert len(lines) == 10 and lines[0] == "A. option 0" and lines[9] == "J. option 9"
    assert render_options([{"label": "ཀ", "text": "ལྷ་ས"}, {"label": "ཁ", "text": "གཞིས་ཀ་རྩེ"}]) == "ཀ. ལྷ་ས\nཁ. གཞིས་ཀ་རྩེ"
    assert render_options([]) == ""


def test_render_source_without_language_or_key():
    text = render_source("tlue", None, "ལྷ་ས་གང་དུ་ཡོད།", [("A", "x")], None)
    assert text == "Original question (tlue):\nལྷ་ས་གང་དུ་ཡོད།\nA. x\nOriginal answer key: (none)"


def test_rendered_text_is_safe_in_a_template():
    """Option text holding ``$`` is inserted by substitution, never parsed as a placeholder."""
    filled = string.Template("${options}").substitute(options=render_options([("A", "$100 ${x}")]))
    assert filled == "A. $100 ${x}"
