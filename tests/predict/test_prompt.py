"""audit.predict._prompt: the prompt a model answers an item with.  Pins
every shipped template (it validates, names the language where it has
instructions, and its version is the hash of its text), the direct
template being TLUE's bare format, rendering (Tibetan labels, ten options,
no language, a ``$`` in an option kept), and the refusals for custom
template files (unknown style or instructions, an empty or non-UTF-8 file,
a missing or unknown placeholder), each naming the file."""
from __future__ import annotations

from importlib import resources

import pytest

from audit.errors import InputError
from audit.llm.prompts import prompt_version
from audit.predict._prompt import (
    INSTRUCTIONS,
    STYLES,
    PredictPrompt,
    load_predict_prompt,
    make_predict_prompt,
    shipped_template,
)

OPTIONS = [("A", "3"), ("B", "4")]


@pytest.mark.parametrize("style, instructions", [(s, i) for s in STYLES for i in (None, *INSTRUCTIONS)])
def test_every_shipped_template(style, instructions):
    p = load_predict_prompt(style=style, instructions=instructions)
    name = style if (instructions is None and style == "direct") else f"{style}_{instructions or 'en'}"
    text = resources.files("audit.predict").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")
    assert p.name == name and p.template == text.replace("\r\n", "\n")
    assert p.version == prompt_version(text) and p.version.startswith("p") and len(p.version) == 13
    out = p.render(stem="QSTEM", options=OPTIONS, language="bo", subject="x")
    assert "QSTEM\nA. 3\nB. 4" in out and "$" not in out
    if name != "direct":
        assert "${language}" in p.template and "${labels}" in p.template


def test_the_default_is_the_bare_tlue_format():
    assert load_predict_prompt().render(stem="ལྷ་ས།", options=[("ཀ", "ཅ"), ("ཁ", "ཆ")]) == "ལྷ་ས།\nཀ. ཅ\nཁ. ཆ\n"


def test_instructions_name_the_language_and_labels():
    text = load_predict_prompt(style="direct", instructions="zh").render(
        stem="s", options=[(chr(65 + i), str(i)) for i in range(10)], language="bo")
    assert "Tibetan" in text and "A, B, C, D, E, F, G, H, I, J" in text
    en = load_predict_prompt(style="reasoning").render(stem="s", options=OPTIONS)
    assert "its original language" in en


def test_render_keeps_dollars_and_takes_dicts():
    p = make_predict_prompt("${question}|${options}|${subject}")
    out = p.render(stem="costs $5", options=[{"label": "A", "text": "${x} $$"}], subject=None)
    assert out == "costs $5|A. ${x} $$|"


@pytest.mark.parametrize("style, instructions, says", [
    ("chain", None, "unknown prompt style 'chain'"),
    ("direct", "fr", "no shipped instructions in 'fr'"),
    ("reasoning", "ug", "no shipped instructions in 'ug'"),
])
def test_shipped_refusals(style, instructions, says):
    with pytest.raises(InputError, match=says):
        shipped_template(style, instructions)


def test_custom_template_file(tmp_path):
    f = tmp_path / "mine.txt"
    f.write_text("\ufeffདྲི་བ། ${question}\r\n${options}\r\nSubject: ${subject}\r\n", encoding="utf-8")
    p = load_predict_prompt(f)
    assert isinstance(p, PredictPrompt) and p.name == "mine.txt"
    assert p.template == "དྲི་བ། ${question}\n${options}\nSubject: ${subject}\n"
    assert p.version == prompt_version(p.template)


@pytest.mark.parametrize("content, says", [
    (b"", "the prompt file is empty"),
    (b"  \n ", "the prompt file is empty"),
    (b"${question}\n", "lacks the placeholder(s) ['${options}']"),
    (b"${question} ${options} ${answer_key}", "unknown placeholder(s) ['answer_key']"),
    (b"${question} ${options} costs $ 5", "a '$' that is not a placeholder"),
    (b"${question} ${options} \xff", "not UTF-8"),
])
def test_custom_template_refusals(tmp_path, content, says):
    f = tmp_path / "bad.txt"
    f.write_bytes(content)
    with pytest.raises(InputError) as e:
        load_predict_prompt(f)
    assert says in str(e.value) and str(f) in str(e.value)
