"""One writer for untrusted text: no escape sequence reaches a terminal, no
live link in Markdown, every control escaped in JSON."""
from __future__ import annotations

import json

import pandas as pd

from audit._util.terminal import frame_text, json_text, markdown_cell, terminal_safe

HOSTILE = "a\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1b[2J \x9b31m \u202edesrever \x7f b"


def _controls(text: str) -> set[str]:
    return {c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f or c == "\u202e"}


def test_terminal_safe_leaves_no_control_and_keeps_text():
    out = terminal_safe(HOSTILE)
    assert not _controls(out)
    assert "\\x1b" in out and "\\x9b" in out and "\\u202e" in out
    assert terminal_safe("བོད་ཡིག 中文\n\tok") == "བོད་ཡིག 中文\n\tok"


def test_frame_text_escapes_cells_columns_and_index():
    df = pd.DataFrame({"sub\x1bject": [HOSTILE], "n": [1]}, index=["\x9bx"])
    out = frame_text(df)
    assert not _controls(out)
    assert "n" in out


def test_markdown_cell_has_no_live_link_image_or_html():
    out = markdown_cell("[click](http://evil) ![i](http://evil/p.png) <b>x</b> a|b \x1b[31m\nnext")
    assert "[click](" not in out and "![i](" not in out
    assert "<b>" not in out and "\n" not in out and "\\|" in out
    assert not _controls(out)


def test_json_text_round_trips_and_escapes_every_control():
    obj = {"s": HOSTILE + "\u2028", "t": "བོད་"}
    out = json_text(obj)
    assert not _controls(out) and "\u2028" not in out
    assert json.loads(out) == obj
    assert "བོད་" in out                     # readable text stays readable
