"""The list-literal reader: the shapes published files use, and one refusal
(never MemoryError, RecursionError or a crash) for anything else."""
from __future__ import annotations

import ast

import pytest

from audit._util.literals import MAX_LITERAL_CHARS, MAX_LITERAL_DEPTH, LiteralRefused, parse_list_literal


@pytest.mark.parametrize("text", [
    "['Rome', 'Paris']", '["a", "b\\"c"]', "('x', 'y')", "[1, 2.5, -3, None, True, False]",
    "[['a', 'b'], ['c']]", "[]", "['བོད་', '中文']", "[u'x', r'y\\n']", "[ 'a' ,\n 'b' , ]",
])
def test_same_result_as_python_on_plain_literals(text):
    want = ast.literal_eval(text)
    want = list(want) if isinstance(want, tuple) else want
    assert parse_list_literal(text) == want


@pytest.mark.parametrize("text", [
    "-" * 100_000 + "1",                       # ast.literal_eval: MemoryError
    "[" * (MAX_LITERAL_DEPTH + 1) + "]" * (MAX_LITERAL_DEPTH + 1),
    "['a' + 'b']", "[__import__('os')]", "{'a': 1}", "'just a string'", "[1, 2", "['a'] ['b']",
    "[f'{x}']", "", "   ", "[x]",
])
def test_refused(text):
    with pytest.raises(LiteralRefused):
        parse_list_literal(text)


def test_size_is_checked_before_parsing():
    with pytest.raises(LiteralRefused):
        parse_list_literal("[" + "'a'," * (MAX_LITERAL_CHARS // 4 + 1) + "]")


def test_not_text_is_refused():
    with pytest.raises(LiteralRefused):
        parse_list_literal(["a"])
