"""The prompt a model answers a benchmark item with (``audit predict run``).

Shipped templates (``audit/predict/prompts/``):

* ``direct`` (the default): TLUE's zero-shot format — the question, then its
  options under the item's own labels (``A. …``), nothing else.
* ``direct`` with ``instructions`` (``en``, ``bo``, ``zh``): one line asking
  for the option letter only, in that language.
* ``reasoning`` (``instructions`` ``en`` by default, or ``bo``, ``zh``): asks
  the model to think step by step and give its final answer on the last line
  in a fixed form ("Answer: X", "答案：X", "ལན། X"), as evaluation harnesses do.

Every instruction names the benchmark's language (``${language}``).  A
custom template (``--prompt FILE``) uses the placeholders ``${question}``
and ``${options}`` (required), ``${labels}`` ("A, B, C, D"), ``${language}``
("Tibetan") and ``${subject}``.  The prompt version is ``'p' +
sha256(template)[:12]`` (:func:`audit.llm.prompts.prompt_version`).
"""
from __future__ import annotations

import os
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from audit._util.files import read_text
from audit.errors import InputError
from audit.llm.prompts import check_template, language_name, prompt_version, render_options, render_question

__all__ = ["PredictPrompt", "STYLES", "INSTRUCTIONS", "shipped_template", "load_predict_prompt"]

STYLES = ("direct", "reasoning")
INSTRUCTIONS = ("en", "bo", "zh")
REQUIRED = ("question", "options")
ALLOWED = frozenset(REQUIRED + ("labels", "language", "subject"))


@dataclass(frozen=True)
class PredictPrompt:
    """A validated template, its version and a short name saying where it came from."""

    template: str
    version: str
    name: str

    def render(self, *, stem: str, options: Sequence[Any], language: str | None = None,
               subject: str | None = None, context: str | None = None) -> str:
        """Fill the template for one item.

        >>> p = load_predict_prompt(style="reasoning", instructions="en")
        >>> text = p.render(stem="2+2?", options=[("A", "3"), ("B", "4")], language="bo")
        >>> "in Tibetan" in text and "A. 3\\nB. 4" in text and "one of A, B" in text
        True
        >>> load_predict_prompt().render(stem="2+2?", options=[("A", "3"), ("B", "4")])
        '2+2?\\nA. 3\\nB. 4\\n'
        """
        pairs = [(o["label"], o["text"]) if isinstance(o, dict) else (o[0], o[1]) for o in options]
        return string.Template(self.template).substitute(
            question=render_question(stem, context), options=render_options(pairs),
            labels=", ".join(label for label, _ in pairs),
            language=language_name(language) or "its original language", subject=subject or "")


def shipped_template(style: str = "direct", instructions: str | None = None) -> tuple[str, str]:
    """(name, text) of a shipped template."""
    if style not in STYLES:
        raise InputError(f"unknown prompt style '{style}' (use {' or '.join(STYLES)})")
    if style == "reasoning" and instructions is None:
        instructions = "en"
    if instructions is not None and instructions not in INSTRUCTIONS:
        raise InputError(f"no shipped instructions in '{instructions}' (shipped: {', '.join(INSTRUCTIONS)}); "
                         "write your own template and pass it with --prompt")
    name = style if instructions is None else f"{style}_{instructions}"
    text = resources.files("audit.predict").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")
    return name, text


def make_predict_prompt(template: str, *, name: str = "custom",
                        path: str | os.PathLike | None = None) -> PredictPrompt:
    """Validate a template's placeholders and return it with its version."""
    template, _ = check_template(template, required=REQUIRED, allowed=ALLOWED, path=path)
    return PredictPrompt(template, prompt_version(template), name)


def load_predict_prompt(path: str | os.PathLike | None = None, *, style: str = "direct",
                        instructions: str | None = None) -> PredictPrompt:
    """The template in ``path`` (UTF-8), else the shipped one for
    ``style`` / ``instructions``."""
    if path is not None:
        text = read_text(Path(path))
        if not text.strip():
            raise InputError("the prompt file is empty", path=str(path))
        return make_predict_prompt(text, name=Path(path).name, path=path)
    name, text = shipped_template(style, instructions)
    return make_predict_prompt(text, name=name)
