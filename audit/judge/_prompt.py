"""The judge prompt: template, version, rendering.

The default template is the methodology's: it shows the question, its
options, the provided answer key and (when the benchmark has one) the key's
rationale, and asks whether the key is correct, if not which option is, and
why — as one JSON object ``{answer_key_correct, correct_answer, explanation,
confidence}``.

Templates use ``string.Template`` placeholders so literal braces (the JSON
example) need no escaping:

* ``${question}`` — the question stem (required)
* ``${options}`` — one line per option, ``A. text`` (required)
* ``${answer_key}`` — the provided key's label (required)
* ``${rationale}`` — "Rationale given with the key: …" plus a blank line, or
  nothing when the item has no explanation (optional)
* ``${labels}`` — the valid labels, e.g. ``A, B, C, D`` (optional)
* ``${language}`` — the benchmark's language, named ("Tibetan"; "the
  original language" when the item has none) (optional)
* ``${source}`` — the linked original of the item (``audit import
  parallel``): its source, language, text, options and key; "(no linked
  original)" when the item has none (optional)

Shipped templates (``audit/judge/prompts/``; ``--prompt NAME`` picks one):
``methodology`` (the methodology's prompt, word for word), ``default`` (the
same, naming the benchmark's language), ``with-source`` (also shows the
linked original and asks for the cause of a wrong key), and for TLUE the same
question asked in Tibetan only (``tlue-bo``), in Chinese only (``tlue-zh``)
and in both (``tlue-bilingual``), to compare one judge across prompt
languages.  Without
``--prompt`` a run uses ``with-source`` when a selected item has a linked
original, else ``default``.

The *prompt version* is ``'p' + sha256(template)[:12]`` (line endings
normalised to ``\\n``): editing one character of the template gives a new
version, so verdicts obtained with different wordings are never mixed.
"""
from __future__ import annotations

import os
import string
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError
from audit.llm.prompts import check_template, prompt_version, render_options, render_question


def _shipped(name: str) -> str:
    from importlib import resources

    return resources.files("audit.judge").joinpath("prompts", name).read_text(encoding="utf-8")


# The methodology's prompt, shipped as audit/judge/prompts/methodology.txt
# (copy it as the starting point of a custom --prompt file).
METHODOLOGY_TEMPLATE = _shipped("methodology.txt")
# The same, naming the benchmark's language (the default).
DEFAULT_TEMPLATE = _shipped("default.txt")
# For items with a parallel source: the original text, options and key, and a cause.
SOURCE_TEMPLATE = _shipped("with_source.txt")
# The same question in the languages of TLUE and its source: Tibetan only, Chinese only, and both, so one
# judge can be compared across prompt languages (audit judge card).
TLUE_BO_TEMPLATE = _shipped("tlue_bo.txt")
TLUE_ZH_TEMPLATE = _shipped("tlue_zh.txt")
TLUE_BILINGUAL_TEMPLATE = _shipped("tlue_bilingual.txt")
SHIPPED = {"methodology": METHODOLOGY_TEMPLATE, "default": DEFAULT_TEMPLATE, "with-source": SOURCE_TEMPLATE,
           "tlue-bo": TLUE_BO_TEMPLATE, "tlue-zh": TLUE_ZH_TEMPLATE, "tlue-bilingual": TLUE_BILINGUAL_TEMPLATE}
#: The language each shipped prompt is written in (BCP 47; ``bo+zh-Hans``: both).
SHIPPED_LANGUAGES = {"methodology": "en", "default": "en", "with-source": "en", "tlue-bo": "bo",
                     "tlue-zh": "zh-Hans", "tlue-bilingual": "bo+zh-Hans"}

REQUIRED = ("question", "options", "answer_key")
ALLOWED = frozenset(REQUIRED + ("rationale", "labels", "language", "source"))


@dataclass(frozen=True)
class JudgePrompt:
    """A validated template and its version."""

    template: str
    version: str
    names: frozenset[str] = frozenset()

    @property
    def needs_context(self) -> bool:
        """Whether rendering needs the item's language or linked source."""
        return bool(self.names & {"language", "source"})

    def render(self, *, stem: str, options: list[dict] | list[tuple], answer_key: str,
               explanation: str | None = None, language: str | None = None, source: str | None = None,
               context: str | None = None) -> str:
        """Fill the template for one item.  ``options`` are ``{label, text}``
        dicts (as DuckDB returns them) or ``(label, text)`` pairs; the
        passage the question refers to (*context*) comes before the stem in
        ``${question}``.

        >>> p = default_prompt()
        >>> text = p.render(stem="2+2?", options=[("A", "3"), ("B", "4")], answer_key="B")
        >>> "A. 3" in text and "Provided answer key: B" in text and "one of A, B" in text
        True
        """
        pairs = [(o["label"], o["text"]) if isinstance(o, dict) else (o[0], o[1]) for o in options]
        rationale = (
            f"Rationale given with the key: {explanation.strip()}\n\n" if explanation and explanation.strip() else ""
        )
        return string.Template(self.template).substitute(
            question=render_question(stem, context),
            options=render_options(pairs),
            answer_key=answer_key,
            rationale=rationale,
            labels=", ".join(label for label, _ in pairs),
            language=language or "the original language",
            source=source or "(no linked original)",
        )


def make_prompt(template: str, *, path: str | os.PathLike | None = None) -> JudgePrompt:
    """Validate a template's placeholders and return it with its version."""
    template, names = check_template(template, required=REQUIRED, allowed=ALLOWED, path=path)
    return JudgePrompt(template, prompt_version(template), frozenset(names))


def default_prompt() -> JudgePrompt:
    """The default prompt: the methodology's, naming the benchmark's language."""
    return make_prompt(DEFAULT_TEMPLATE)


def source_prompt() -> JudgePrompt:
    """The default prompt for items with a linked original (``${source}``)."""
    return make_prompt(SOURCE_TEMPLATE)


def shipped_language(version: str) -> str | None:
    """The language of a shipped prompt by its version (None: not shipped).

    >>> shipped_language(make_prompt(TLUE_ZH_TEMPLATE).version)
    'zh-Hans'
    """
    for name, template in SHIPPED.items():
        if make_prompt(template).version == version:
            return SHIPPED_LANGUAGES[name]
    return None


def load_prompt(path: str | os.PathLike | None) -> JudgePrompt:
    """The template in ``path`` (UTF-8 text) or a shipped one by name
    (``methodology``, ``default``, ``with-source``, ``tlue-bo``, ``tlue-zh``,
    ``tlue-bilingual``); the default when None."""
    if path is None:
        return default_prompt()
    if str(path) in SHIPPED and not Path(path).exists():
        return make_prompt(SHIPPED[str(path)])
    from audit._util.files import read_text

    text = read_text(Path(path))
    if not text.strip():
        raise InputError("the prompt file is empty", path=str(path))
    return make_prompt(text, path=path)
