"""audit/_util/safe_csv.py: formula-injection neutralisation for every CSV the tool writes."""
from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest

from audit._util.safe_csv import FORMULA_TRIGGERS, neutralise_cell, neutralise_frame, write_csv


@pytest.mark.parametrize("trigger", ["=", "+", "-", "@", "\t", "\r"])
def test_each_trigger_is_prefixed(trigger):
    value = trigger + "cmd|' /C calc'!A0"
    assert neutralise_cell(value) == "'" + value


def test_trigger_set_is_exactly_the_owasp_set():
    assert set(FORMULA_TRIGGERS) == {"=", "+", "-", "@", "\t", "\r"}


@pytest.mark.parametrize("value", ["ཀ་ཁ", "A", "", " =1", "'=1", "1-2", "答案", "\n=1"])
def test_harmless_strings_unchanged(value):
    assert neutralise_cell(value) == value


def test_numbers_are_left_numeric_but_numeric_strings_are_neutralised():
    assert neutralise_cell(-3) == -3
    assert neutralise_cell(-0.25) == -0.25
    assert neutralise_cell(np.float64(-1.5)) == -1.5
    assert neutralise_cell(True) is True
    assert neutralise_cell("-3") == "'-3"


def _read_back(raw: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(raw)))


def test_write_csv_neutralises_cells_and_header_and_keeps_numbers():
    df = pd.DataFrame({
        "question_id": ["=cmd", "+x", "@y", "-z", "\tq", "\rr", "ok", None],
        "delta": [-1.5, 2.0, -0.1, 0.0, 1.0, -2.0, 3.0, np.nan],
        "n": [-1, 2, 3, 4, 5, 6, 7, 8],
        "=evil header": ["a"] * 8,
    })
    buf = io.StringIO()
    write_csv(df, buf)
    rows = _read_back(buf.getvalue())
    assert rows[0] == ["question_id", "delta", "n", "'=evil header"]
    assert [r[0] for r in rows[1:]] == ["'=cmd", "'+x", "'@y", "'-z", "'\tq", "'\rr", "ok", ""]
    assert [r[1] for r in rows[1:]] == ["-1.5", "2.0", "-0.1", "0.0", "1.0", "-2.0", "3.0", ""]
    assert rows[1][2] == "-1"
    # every cell of the output that starts with a trigger is a number
    for row in rows:
        for cell in row:
            if cell and cell[0] in FORMULA_TRIGGERS:
                float(cell)


def test_object_column_with_mixed_types():
    df = pd.DataFrame({"v": pd.Series(["=a", -2, ["=x"], None], dtype=object)})
    out = neutralise_frame(df)["v"].tolist()
    assert out[0] == "'=a" and out[1] == -2 and out[2] == "['=x']" and out[3] is None


def test_string_dtype_and_input_not_mutated():
    df = pd.DataFrame({"s": pd.array(["=1", "b"], dtype="string")})
    neutralise_frame(df)
    assert df["s"].tolist() == ["=1", "b"]


def test_write_to_path_and_binary_buffer_are_identical_utf8(tmp_path):
    df = pd.DataFrame({"stem": ["བོད་ཡིག\nline2", "=2+2", 'say "hi"'], "k": ["A", "B", "C"]})
    p = tmp_path / "out.csv"
    write_csv(df, p)
    b = io.BytesIO()
    write_csv(df, b)
    assert p.read_bytes() == b.getvalue()
    raw = p.read_bytes()
    # one UTF-8 byte-order mark (Excel then reads Tibetan as UTF-8), then the CSV
    assert raw.startswith(b"\xef\xbb\xbf\"stem\"") and b"\r\n" not in raw
    back = pd.read_csv(p, dtype=str, keep_default_na=False)
    assert back["stem"].tolist() == ["བོད་ཡིག\nline2", "'=2+2", 'say "hi"']


def test_vectorised_path_equals_cell_rule():
    """The fast all-text column path and the per-cell rule agree on random text."""
    import random

    rnd = random.Random(7)
    alphabet = ["=", "+", "-", "@", "\t", "\r", "'", " ", "a", "ཀ", "1", "\n", ","]
    values = ["".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 5))) for _ in range(3000)]
    values[::50] = [None] * len(values[::50])
    def norm(xs):
        return [None if (x is None or (isinstance(x, float) and x != x)) else x for x in xs]

    for series in (pd.Series(values), pd.Series(values, dtype=object)):
        out = neutralise_frame(pd.DataFrame({"t": series}))["t"].tolist()
        assert norm(out) == [neutralise_cell(v) for v in values]
    mixed = values[:100] + [-1.5, 3]
    out = neutralise_frame(pd.DataFrame({"m": pd.Series(mixed, dtype=object)}))["m"].tolist()
    assert norm(out) == [neutralise_cell(v) for v in mixed]
