"""Looking texts up in the catalogues: :func:`translate` by key, :func:`label`
of a stored code, :func:`outcome` of an item, the browser's language."""
from __future__ import annotations

import re
from types import ModuleType

from audit.i18n import bo, en, zh_Hans

LANGUAGES: dict[str, str] = {"en": "English", "zh-Hans": "简体中文", "bo": "བོད་ཡིག"}
CATALOGUES: dict[str, ModuleType] = {"en": en, "zh-Hans": zh_Hans, "bo": bo}
DEFAULT = "en"


def from_accept_language(header: str | None) -> str | None:
    """The interface language a browser asks for in its ``Accept-Language``
    header (RFC 9110 §12.5.4: the highest ``q`` first, ties in order), or
    None when it names none of :data:`LANGUAGES`.  Any Chinese tag reads as
    simplified Chinese, any ``bo`` tag as Tibetan.

    >>> from_accept_language("bo-CN,bo;q=0.9,en;q=0.8")
    'bo'
    >>> from_accept_language("fr-FR, zh-TW;q=0.8, en;q=0.5")
    'zh-Hans'
    >>> from_accept_language("en;q=0.2, bo;q=0.7"), from_accept_language("de") is None
    ('bo', True)
    """
    if not header:
        return None
    ranked = []
    for i, part in enumerate(str(header).split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower()))
    for neg_q, _, tag in sorted(ranked):
        primary = tag.split("-")[0]
        if neg_q < 0 and primary in ("en", "bo"):
            return primary
        if neg_q < 0 and primary == "zh":
            return "zh-Hans"
    return None


def messages(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` (English for an unknown code)."""
    return CATALOGUES.get(lang, en).MESSAGES


def translate(key: str, lang: str, /, **kwargs: object) -> str:
    """The text of ``key`` in ``lang``, falling back to English, then to the
    key itself; ``{name}`` placeholders are filled from ``kwargs``.

    >>> translate("item.save", "en"), translate("item.save", "xx")
    ('Save verdict', 'Save verdict')
    >>> translate("queue.progress_you", "en", n=3)
    'you reviewed 3'
    """
    text = messages(lang).get(key) or en.MESSAGES.get(key) or key
    return text.format(**kwargs) if kwargs else text


def label(kind: str, code: str | None, lang: str = "en") -> str:
    """The plain label of a stored ``code`` of ``kind`` (verdict, cause,
    status, flag, scenario, column) in ``lang``; an unknown code is turned
    into words, never shown raw.

    >>> label("verdict", "key_wrong"), label("flag", "option_markers_repaired")
    ('Key wrong', 'Option letters repaired on import')
    >>> label("flag", "some_new_flag"), label("status", "done", "zh-Hans")
    ('Some new flag', '已定论')
    """
    if code is None:
        return ""
    key = f"{kind}.{code}"
    text = messages(lang).get(key) or en.MESSAGES.get(key)
    return text or humanise(code)


def humanise(code: str) -> str:
    """A code in words: ``"needs_two_models"`` → ``"Needs two models"``."""
    words = re.sub(r"[_\-]+", " ", str(code)).strip()
    return words[:1].upper() + words[1:] if words else str(code)


def catalogue() -> dict[str, str]:
    """Every key a translation must cover, with its English text."""
    return dict(en.MESSAGES)


def outcome(status: str, verdict: str | None, corrected_answer: str | None, *, adjudicated: bool,
            option_label: str | None = None, lang: str = "en") -> str:
    """One sentence stating where an item stands ("Settled: key wrong → ག").
    ``option_label`` shows the corrected answer in the item's own script.

    >>> outcome("done", "key_wrong", "C", adjudicated=False)
    'Settled: key wrong → C'
    >>> outcome("done", "key_wrong", "C", adjudicated=False, option_label="ག")
    'Settled: key wrong → ག'
    >>> outcome("disputed", None, None, adjudicated=False)
    'Disputed: the reviewers disagree; a lead decides'
    """
    if status == "done" and verdict:
        v = translate(f"verdict.{verdict}", lang)
        v = v.lower() if lang == "en" else v
        what = v + (f" → {option_label or corrected_answer}" if verdict == "key_wrong" and corrected_answer else "")
        head = translate("outcome.decided" if adjudicated else "outcome.settled", lang)
        return f"{head}: {what}"
    key = f"outcome.{status}"
    return translate(key, lang) if key in en.MESSAGES else humanise(status)


def glossary_table(lang: str = "en", headers: tuple[str, str] = ("Term", "Meaning")) -> str:
    r"""The glossary as a Markdown table, one row per term (the term, what it
    means) in ``lang``, so that it reads as a list of definitions rather than
    one run-on paragraph; ``headers`` names the two columns.  A ``|`` in a
    text is escaped.

    >>> print(glossary_table().splitlines()[0])
    | Term | Meaning |
    >>> glossary_table().splitlines()[2]
    '| **Key** | The answer the benchmark marks as correct. |'
    """
    def cell(text: str) -> str:
        return " ".join(str(text).split()).replace("|", "\\|")

    rows = [f"| {cell(headers[0])} | {cell(headers[1])} |", "|---|---|"]
    rows += [f"| **{cell(translate('term.' + term, lang))}** | {cell(translate('glossary.' + term, lang))} |"
             for term in en.GLOSSARY]
    return "\n".join(rows)
