"""audit._util.text: reviewer names and free text as the tool keeps them.
Pins NFC (a Tibetan stack typed decomposed equals the composed one), the
collapsing of every kind of whitespace in a name, and that free text which
is blank or missing (None, NaN, pandas NA) becomes None."""
from __future__ import annotations

import math
import unicodedata

import numpy as np
import pandas as pd
import pytest

from audit._util.text import clean_name, clean_text


@pytest.mark.parametrize("raw, expected", [
    ("  Pema   Dorje ", "Pema Dorje"),
    ("Pema\tDorje\n", "Pema Dorje"),
    ("Pema\u00a0\u3000Dorje", "Pema Dorje"),     # no-break and ideographic spaces are spaces too
    (None, ""),
    ("", ""),
    ("   ", ""),
    (42, "42"),
])
def test_clean_name(raw, expected):
    assert clean_name(raw) == expected


def test_clean_name_is_nfc():
    decomposed = "e\u0301"           # e + combining acute
    assert clean_name(decomposed) == "\u00e9"
    tib = unicodedata.normalize("NFD", "\u0f77")   # a Tibetan vowel that decomposes
    assert clean_name(tib) == unicodedata.normalize("NFC", "\u0f77")
    assert clean_name(" བསྟན་འཛིན ") == "བསྟན་འཛིན"


@pytest.mark.parametrize("raw", [None, "", "   \n\t", float("nan"), np.nan, pd.NA, pd.NaT])
def test_clean_text_blank_or_missing_is_none(raw):
    assert clean_text(raw) is None


def test_clean_text_strips_and_normalises_but_keeps_inner_spacing():
    assert clean_text("  line one\n\n  line two  ") == "line one\n\n  line two"
    assert clean_text("cafe\u0301") == "caf\u00e9"
    assert clean_text("ཀ་ཁ་ག") == "ཀ་ཁ་ག"


def test_clean_text_of_numbers_and_lists():
    assert clean_text(3) == "3"
    assert clean_text(0) == "0"                  # zero is a value, not blank
    assert clean_text(1.5) == "1.5"
    assert not math.isnan(float(clean_text(2.0)))
    assert clean_text(["a", "b"]) == "['a', 'b']"   # pd.isna of a list is an array: treated as text
