"""Help page (``/help``): the reviewer's guide of the documentation
(``docs/reviewers/``), in the interface language, inside the workbench.

The ⋮ menu's *Get help* opens the documentation site when it is served
(``$AUDIT_DOCS_URL``, or ``mkdocs serve`` on this machine); otherwise this
page, so the link never leads to an address where nothing answers.  The
guide is shown as text: MkDocs notes become quotes, images their captions,
links to other pages their words (:func:`audit.review.guidelines.safe_markdown`)."""
from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from audit.review.guidelines import safe_markdown
from workbench.views import common
from workbench.views.common import t

GUIDES = {"en": "index.md", "zh-Hans": "zh.md", "bo": "bo.md"}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "reviewers"
_NOTE = re.compile(r'^!!! \w+(?: "([^"]*)")?\s*$')
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def guide_text(lang: str, folder: Path = DOCS) -> str | None:
    """The reviewer's guide in ``lang`` as Markdown to show (None when the
    documentation is not installed).

    >>> text = guide_text("en")
    >>> text is None or (text.startswith("#") and "<!--" not in text and "!!!" not in text)
    True
    """
    path = folder / GUIDES.get(lang, GUIDES["en"])
    if not path.is_file():
        path = folder / GUIDES["en"]
        if not path.is_file():
            return None
    out: list[str] = []
    in_note = False
    for line in _COMMENT.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = _NOTE.match(line)
        if m:
            in_note = True
            out.append(f"> **{m.group(1)}**" if m.group(1) else ">")
            continue
        if in_note and line.startswith("    "):
            out.append("> " + line[4:])
            continue
        in_note = False
        out.append(line)
    return safe_markdown("\n".join(out))


def page() -> None:
    common.css()
    text = guide_text(common.lang())
    if text is None:
        st.title(t("nav.help"))
        st.info(t("help.no_guide"))
        return
    with st.container(key="wb_guide"):   # documentation text, quoted as written (its drafts' notes in English)
        st.markdown(text)
