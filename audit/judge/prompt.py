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

The *prompt version* is ``'p' + sha256(template)[:12]`` (line endings
normalised to ``\\n``): editing one character of the template gives a new
version, so verdicts obtained with different wordings are never mixed.
"""
from __future__ import annotations

import hashlib
import os
import string
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError


def _shipped(name: str) -> str:
    from importlib import resources

    return resources.files("audit.judge").joinpath("prompts", name).read_text(encoding="utf-8")


# The methodology's prompt, shipped as audit/judge/prompts/methodology.txt
# (copy it as the starting point of a custom --prompt file).
DEFAULT_TEMPLATE = _shipped("methodology.txt")

REQUIRED = ("question", "options", "answer_key")
ALLOWED = frozenset(REQUIRED + ("rationale", "labels"))


@dataclass(frozen=True)
class JudgePrompt:
    """A validated template and its version."""

    template: str
    version: str

    def render(self, *, stem: str, options: list[dict] | list[tuple], answer_key: str,
               explanation: str | None = None) -> str:
        """Fill the template for one item.  ``options`` are ``{label, text}``
        dicts (as DuckDB returns them) or ``(label, text)`` pairs.

        >>> p = default_prompt()
        >>> text = p.render(stem="2+2?", options=[("A", "3"), ("B", "4")], answer_key="B")
        >>> "A. 3" in text and "Provided answer key: B" in text and "one of A, B" in text
        True
        """
        pairs = [(o["label"], o["text"]) if isinstance(o, dict) else (o[0], o[1]) for o in options]
        rationale = f"Rationale given with the key: {explanation.strip()}\n\n" if explanation and explanation.strip() else ""
        return string.Template(self.template).substitute(
            question=stem,
            options="\n".join(f"{label}. {text}" for label, text in pairs),
            answer_key=answer_key,
            rationale=rationale,
            labels=", ".join(label for label, _ in pairs),
        )


def prompt_version(template: str) -> str:
    """``'p' + sha256(template)[:12]``.

    >>> prompt_version("a\\r\\nb") == prompt_version("a\\nb")
    True
    """
    norm = template.replace("\r\n", "\n").replace("\r", "\n")
    return "p" + hashlib.sha256(norm.encode("utf-8")).hexdigest()[:12]


def make_prompt(template: str, *, path: str | os.PathLike | None = None) -> JudgePrompt:
    """Validate a template's placeholders and return it with its version."""
    template = template.replace("\r\n", "\n").replace("\r", "\n")
    names: set[str] = set()
    for m in string.Template.pattern.finditer(template):
        if m.group("invalid") is not None:
            line = template[: m.start()].count("\n") + 1
            raise InputError("a '$' that is not a placeholder; write '$$' for a literal dollar sign", path=path, line=line)
        name = m.group("named") or m.group("braced")
        if name:
            names.add(name)
    unknown = names - ALLOWED
    if unknown:
        raise InputError(f"unknown placeholder(s) {sorted(unknown)}; allowed: {sorted(ALLOWED)}", path=path)
    missing = [n for n in REQUIRED if n not in names]
    if missing:
        raise InputError(f"the prompt template lacks the placeholder(s) {['${' + n + '}' for n in missing]}", path=path)
    return JudgePrompt(template, prompt_version(template))


def default_prompt() -> JudgePrompt:
    """The methodology's prompt."""
    return make_prompt(DEFAULT_TEMPLATE)


def load_prompt(path: str | os.PathLike | None) -> JudgePrompt:
    """The template in ``path`` (UTF-8 text), or the default when None."""
    if path is None:
        return default_prompt()
    from audit.ingest._read import read_text

    text = read_text(Path(path))
    if not text.strip():
        raise InputError("the prompt file is empty", path=path)
    return make_prompt(text, path=path)
