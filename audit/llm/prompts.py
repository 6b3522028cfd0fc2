"""Prompt text shared by the predict stage (models answering) and the judge
stage: template validation and versioning, option lists, language names,
the question with the passage it refers to, and the rendering of an item's
parallel source.  Stage-neutral (imports no
stage), so both stages use one implementation.

Templates use ``string.Template`` placeholders (``${name}``), so literal
braces (JSON examples) need no escaping and ``$$`` is a literal dollar.  The
*prompt version* is ``'p' + sha256(template)[:12]`` (line endings normalised
to ``\\n``): editing one character gives a new version, so results obtained
with different wordings are never mixed.
"""
from __future__ import annotations

import hashlib
import os
import string
from typing import Any, Iterable, Sequence

from audit.errors import InputError

# BCP-47 primary subtags of the benchmark languages, named in English (prompts
# name the language so that the model knows what it reads).
LANGUAGES: dict[str, str] = {
    "bo": "Tibetan", "zh": "Chinese", "ug": "Uyghur", "kk": "Kazakh", "mn": "Mongolian", "uz": "Uzbek",
    "ky": "Kyrgyz", "tt": "Tatar", "az": "Azerbaijani", "tr": "Turkish", "tk": "Turkmen", "ru": "Russian",
    "en": "English", "ja": "Japanese", "ko": "Korean", "ar": "Arabic", "fa": "Persian", "hi": "Hindi",
    "ne": "Nepali", "dz": "Dzongkha", "ii": "Yi", "za": "Zhuang", "fr": "French", "de": "German",
    "es": "Spanish",
}


def prompt_version(template: str) -> str:
    """``'p' + sha256(template)[:12]``.

    >>> prompt_version("a\\r\\nb") == prompt_version("a\\nb")
    True
    """
    norm = template.replace("\r\n", "\n").replace("\r", "\n")
    return "p" + hashlib.sha256(norm.encode("utf-8")).hexdigest()[:12]


def _where(path: str | os.PathLike | None) -> str | None:
    return None if path is None else str(path)


def template_names(template: str, *, path: str | os.PathLike | None = None) -> set[str]:
    """The placeholder names of a template; a stray ``$`` is an error."""
    names: set[str] = set()
    for m in string.Template.pattern.finditer(template):
        if m.group("invalid") is not None:
            line = template[: m.start()].count("\n") + 1
            raise InputError("a '$' that is not a placeholder; write '$$' for a literal dollar sign", path=_where(path),
                             line=line)
        name = m.group("named") or m.group("braced")
        if name:
            names.add(name)
    return names


def check_template(template: str, *, required: Sequence[str], allowed: Iterable[str],
                   path: str | os.PathLike | None = None) -> tuple[str, set[str]]:
    """Normalise line endings and check the placeholders; returns the
    template and its placeholder names."""
    template = template.replace("\r\n", "\n").replace("\r", "\n")
    names = template_names(template, path=path)
    allowed = set(allowed)
    unknown = names - allowed
    if unknown:
        raise InputError(f"unknown placeholder(s) {sorted(unknown)}; allowed: {sorted(allowed)}", path=_where(path))
    missing = [n for n in required if n not in names]
    if missing:
        raise InputError(f"the prompt template lacks the placeholder(s) {['${' + n + '}' for n in missing]}",
                         path=_where(path))
    return template, names


def language_name(code: str | None) -> str | None:
    """An English name for a language tag ('bo' → 'Tibetan', 'kk-Arab' →
    'Kazakh'); the tag itself when unknown; None when there is none.

    >>> language_name("bo"), language_name("kk-Arab"), language_name("xx"), language_name(None)
    ('Tibetan', 'Kazakh', 'xx', None)
    """
    if not code or not str(code).strip():
        return None
    primary = str(code).strip().replace("_", "-").split("-")[0].lower()
    return LANGUAGES.get(primary, str(code).strip())


def _pairs(options: Sequence[Any]) -> list[tuple[str, str]]:
    return [(o["label"], o["text"]) if isinstance(o, dict) else (o[0], o[1]) for o in options]


def render_options(options: Sequence[Any]) -> str:
    """One line per option, ``A. text`` (``options``: {label, text} dicts or pairs).

    >>> print(render_options([("A", "3"), ("B", "4")]))
    A. 3
    B. 4
    """
    return "\n".join(f"{label}. {text}" for label, text in _pairs(options))


def render_question(stem: str, context: str | None = None) -> str:
    """The question as a prompt gives it: the passage it refers to (the
    item's ``context``), a blank line, then the stem; the stem alone when
    the item has none.

    >>> print(render_question("Which is true?", "All cats are grey."))
    All cats are grey.
    <BLANKLINE>
    Which is true?
    >>> render_question("2+2?")
    '2+2?'
    """
    return f"{context.strip()}\n\n{stem}" if isinstance(context, str) and context.strip() else stem


def render_source(source: str | None, language: str | None, stem: str, options: Sequence[Any],
                  key: str | None) -> str:
    """The linked original of an item, for a prompt: where it comes from, its
    text, options and key.

    >>> print(render_source("cmmlu", "zh", "1+1=?", [("A", "2"), ("B", "3")], "A"))
    Original question (cmmlu, Chinese):
    1+1=?
    A. 2
    B. 3
    Original answer key: A
    """
    lang = language_name(language)
    head = f"Original question ({source}{', ' + lang if lang else ''}):"
    return f"{head}\n{stem}\n{render_options(options)}\nOriginal answer key: {key if key else '(none)'}"


__all__ = ["check_template", "language_name", "prompt_version", "render_options", "render_question", "render_source",
           "template_names"]
