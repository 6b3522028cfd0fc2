"""The reviewer's guides (docs/reviewers/): the Chinese and Tibetan guides
cover every section of the English one, none shows a stored code (the table
of the workbench's words is generated from the catalogues, in words), they
use the interface's terminology (:mod:`audit.i18n.terms`), and none
states a share the page computes ("about 1 in 3") as a fixed fact."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from audit.i18n import terms
from audit.vocab import CAUSES, VERDICTS

DOCS = Path(__file__).resolve().parents[2] / "docs"
GUIDES = {"en": DOCS / "reviewers" / "index.md", "zh-Hans": DOCS / "reviewers" / "zh.md",
          "bo": DOCS / "reviewers" / "bo.md"}
ALL_CODES = sorted({*CAUSES, *VERDICTS, "needs_second_review", "unreviewed"})
# The codes that are not also plain English words ("ambiguous", "other" are both).
CODES = [c for c in ALL_CODES if "_" in c]


def _hook():
    spec = importlib.util.spec_from_file_location("reference_hook", DOCS / "_hooks" / "reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _prose(path: Path) -> str:
    """The page without its admonitions (the English notes of the drafts) and links' targets."""
    text = re.sub(r"^!!! .*\n(?:    .*\n|\n)*", "", path.read_text(encoding="utf-8"), flags=re.M)
    return re.sub(r"\]\([^)]*\)", "]", text)


def test_every_section_of_the_english_guide_is_translated():
    sections = {lang: re.findall(r"^## ", p.read_text(encoding="utf-8"), re.M) for lang, p in GUIDES.items()}
    assert len(sections["zh-Hans"]) == len(sections["en"]) == len(sections["bo"]), sections
    en_words = len(_prose(GUIDES["en"]).split())
    bo_syllables = len(re.findall("[\u0f40-\u0fbc]+", _prose(GUIDES["bo"])))
    assert bo_syllables > en_words, "the Tibetan guide is much shorter than the English one"   # it was 450 : 1007


@pytest.mark.parametrize("lang", ["en", "zh", "bo"])
def test_the_generated_table_of_words_shows_no_stored_code(lang):
    table = _hook().terms_markdown(lang)
    assert "`" not in table
    for code in ALL_CODES if lang != "en" else CODES:
        assert not re.search(rf"\b{re.escape(code)}\b", table), code


@pytest.mark.parametrize("lang", list(GUIDES))
def test_no_guide_shows_a_stored_code(lang):
    text = _prose(GUIDES[lang])
    for code in ALL_CODES:
        assert f"`{code}`" not in text, (lang, code)
    for code in ALL_CODES if lang != "en" else CODES:
        assert not re.search(rf"\b{re.escape(code)}\b", text), (lang, code)


@pytest.mark.parametrize("lang", ["zh-Hans", "bo"])
def test_the_guides_use_the_interface_terminology(lang):
    found = terms.violations({"guide": _prose(GUIDES[lang])}, lang)
    assert found == [], [f"{v.concept}: {v.problem}" for v in found]


def test_no_guide_states_the_computed_share_as_a_fact():
    assert "about 1 in 3" not in GUIDES["en"].read_text(encoding="utf-8")
    assert "computed" in GUIDES["en"].read_text(encoding="utf-8")
    assert "3 题中有 1 题" not in GUIDES["zh-Hans"].read_text(encoding="utf-8")
    assert "3 ནང་ 1" not in GUIDES["bo"].read_text(encoding="utf-8")
