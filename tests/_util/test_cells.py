"""Strict cell readers: a number is an option number only in ASCII digits or
as an integral float; missing is missing, never the text 'nan'."""
from __future__ import annotations

import math

import numpy as np
import pytest

from audit._util.cells import CellRefused, is_missing, option_number, text_cell


@pytest.mark.parametrize("v", [None, float("nan"), np.nan, "", "  \t"])
def test_missing_values(v):
    assert is_missing(v)
    assert text_cell(v) is None
    assert option_number(v) is None


@pytest.mark.parametrize("v", ["nan", "None", 0, "0"])
def test_text_that_looks_missing_is_not(v):
    assert not is_missing(v)


@pytest.mark.parametrize("v,n", [(0, 0), ("1", 1), (2.0, 2), ("3.0", 3), (np.int64(4), 4), (" 5 ", 5)])
def test_option_numbers(v, n):
    assert option_number(v) == n


@pytest.mark.parametrize("v", ["²", "①", "¹", "1.5", 1.5, "-1", -1, True, "x", math.inf, "1e3", "１"])
def test_refused_option_numbers(v):
    with pytest.raises(CellRefused):
        option_number(v)


def test_a_number_is_not_text():
    assert text_cell(" Paris ") == "Paris"
    for v in (1.0, 3, np.float64(2.5)):
        with pytest.raises(CellRefused, match="is a number, not text"):
            text_cell(v)
