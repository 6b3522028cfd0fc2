"""The extractor under attack: 1 MB adversarial responses, every method, a time bound.

Before this round a 1 MB response of repeated ``<think>`` or of one letter followed by a million spaces
never finished (killed after 180 s), 20,000 spaces took 18 s in ``final`` and 14,000 ``<think>`` tags 5 s
in every method: lazy ``<think>.*?</think>`` matches from each opening tag, adjacent ``\\s*`` quantifiers
over one whitespace run.  Each extraction here runs in a forked child (a regex that backtracks cannot be
interrupted in-process): it must finish, use under ``LIMIT`` seconds of CPU time (CPU, not wall time, so
that other work on the shared 2-core machine does not make it flaky), and give the answer a reader gives.
"""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from audit.ingest.extract import METHODS, candidate_letters, extract_answer, extract_answer_set, strip_reasoning

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

MB = 1_000_000
LIMIT = 1.0        # seconds of CPU time per extraction of 1 MB (the bound)
HANG = 60.0        # wall seconds after which the child counts as hung
OPTS = ["323", "Н. Бор", "Ауа тамыр", "Bolaxona"]


def _rep(motif: str, n: int = MB) -> str:
    return (motif * (n // len(motif) + 1))[:n]


# (id, response, what a reader reads with "final" (None = no answer; ... = not checked))
SHAPES = [
    ("think tags 1 MB", _rep("<think>"), None),
    ("14,000 think tags", "<think>" * 14_000, None),
    ("closing tags", _rep("</think>"), None),
    ("letter then a million spaces", "A" + " " * MB, "A"),
    ("letter then a million tabs", "B" + "\t" * MB, "B"),
    ("20,000 spaces", " " * 20_000, None),
    ("answer, spaces, another letter", "Answer: A" + " " * MB + "B", "A"),
    ("spaces then the answer", " " * MB + "Answer: C", "C"),
    ("reasoning without an end", _rep("Reasoning ") + "Reasoned", None),
    ("the letter A and spaces", _rep("A "), "A"),
    ("option lines", _rep("A) x\n"), "A"),
    ("all option lines", _rep("A\nB\nC\nD\n"), None),
    ("answer phrases", _rep("Answer: "), None),
    ("chinese choose", _rep("选"), None),
    ("chinese answer", _rep("答案"), None),
    ("negated letters", "A emas " * (MB // 7), None),
    ("initials", _rep("B. "), ...),
    ("tibetan letters", _rep("ཀ་"), ...),
    ("tibetan closing", _rep("ནི་ ཁ "), ...),
    ("cyrillic option lines", _rep("Б) Н. Бор\n\n"), ...),
    ("kazakh answer phrase", _rep("Жауабы: "), None),
    ("blank lines", "\n" * MB, None),
    ("bullets", _rep("- A: "), ...),
    ("conclusions", _rep("Therefore, A "), ...),
    ("check marks", _rep("✅ A) "), ...),
    ("boxed", _rep("\\boxed{"), None),
    ("quotes", _rep('"a'), None),
    ("none of the options", _rep("None of the options is correct. "), None),
    ("correct", _rep("correct "), None),
]


def _child(fn, text, conn):
    t = time.process_time()
    result = fn(text)
    conn.send((time.process_time() - t, result))


def _timed(fn, text) -> tuple[float, object]:
    """CPU seconds and result of ``fn(text)`` in a forked child; fails when it hangs."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(fn, text, child))
    p.start()
    if not parent.poll(HANG):
        p.kill()
        p.join()
        pytest.fail(f"still running after {HANG:.0f} s (backtracking)")
    cpu, result = parent.recv()
    p.join()
    return cpu, result


def _method(method: str):
    return lambda text: extract_answer(text, 4, method, OPTS if method == "final" else None)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("text,expected", [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_adversarial_response_extracts_in_bounded_time(method, text, expected):
    cpu, result = _timed(_method(method), text)
    assert cpu < LIMIT, f"{method}: {cpu:.2f} s CPU for {len(text):,} characters"
    if method == "final" and expected is not ...:
        assert result == expected


@pytest.mark.parametrize("fn", [strip_reasoning, lambda t: candidate_letters(t, 4),
                                lambda t: extract_answer_set(t, 4, "caa"), lambda t: extract_answer_set(t, 4, "da")],
                         ids=["strip_reasoning", "candidate_letters", "set caa", "set da"])
@pytest.mark.parametrize("text", [_rep("<think>"), "A" + " " * MB, _rep("Reasoning ") + "Reasoned",
                                  _rep("A "), _rep("ཀ་")], ids=["think", "letter spaces", "reasoning", "A", "ka"])
def test_other_entry_points_in_bounded_time(fn, text):
    cpu, _ = _timed(fn, text)
    assert cpu < LIMIT


def test_growth_is_linear():
    """Ten times the input costs at most about ten times the time (quadratic growth would be 100 times):
    measured on the shape that grew quadratically in every method (unclosed <think> tags followed by text)."""
    for method in METHODS:
        small = "x <think> " * 10_000
        big = "x <think> " * 100_000
        t_small = min(_timed(_method(method), small)[0] for _ in range(3))
        t_big = min(_timed(_method(method), big)[0] for _ in range(2))
        assert t_big < max(30 * t_small, 0.05), (method, t_small, t_big)


def test_reasoning_filter_keeps_its_meaning():
    """The linear block scan removes what ``<think>.*?</think>`` removed."""
    assert strip_reasoning("a<think>b</think>c<think>d</think>e").split() == ["a", "c", "e"]
    assert strip_reasoning("<think>" * 1000 + "x").strip() == ""            # unclosed: nothing after it counts
    assert strip_reasoning("b</think>c").strip() == "c"
    assert "A" not in strip_reasoning("Reasoning A Reasoning B\nReasoned for 3 seconds\nC")
    assert extract_answer("<think>A</think><think>B</think>C", 4, "tlue-da") == "C"
    assert extract_answer("<step>A<think>B</think></step>C", 4, "tlue-da") == "C"
