"""audit.vocab: the stored codes.  Pins that the codes are the ones the
database and exports store (snake_case ASCII, no English sentences, no
duplicates), that the database schema's CHECK lists exactly them (same order), and that
every code has words in each interface language (``audit.i18n.label``
never falls back to the humanised code)."""
from __future__ import annotations

import re

import duckdb
import pytest

from audit import i18n
from audit.vocab import CAUSES, REVIEW_SOURCES, VERDICTS


def test_the_codes():
    assert VERDICTS == ("key_correct", "key_wrong", "ambiguous", "defective", "skip")
    assert CAUSES == ("key_slip", "translation", "cultural", "source_error", "formatting", "other")
    assert REVIEW_SOURCES == ("workbench", "cli", "import", "label_studio")


@pytest.mark.parametrize("codes", [VERDICTS, CAUSES, REVIEW_SOURCES])
def test_codes_are_unique_snake_case_ascii(codes):
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(r"[a-z][a-z_]*", c) for c in codes)


@pytest.mark.parametrize("kind, codes", [("verdict", VERDICTS), ("cause", CAUSES)])
@pytest.mark.parametrize("lang", ["en", "zh-Hans", "bo"])
def test_every_code_has_its_own_words(kind, codes, lang):
    for code in codes:
        words = i18n.label(kind, code, lang)
        assert f"{kind}.{code}" in i18n.messages(lang), (lang, code)
        assert words and words != i18n.humanise(code) or lang == "en", (lang, code, words)


def test_the_reviews_table_accepts_exactly_the_codes(db_path):
    con = duckdb.connect(str(db_path))
    try:
        ddl = con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'reviews'").fetchone()[0]
    finally:
        con.close()
    lists = {m.group(1): re.findall(r"'([^']*)'", m.group(2))
             for m in re.finditer(r"\((verdict|cause) IN \(([^)]*)\)\)", ddl)}
    assert lists == {"verdict": list(VERDICTS), "cause": list(CAUSES)}
