"""Measured figures live on one page, ``docs/reference/figures.md``, each
beside the script that measures it; every other page links there.

A figure copied into a how-to or an explanation goes stale the day the code
gets faster, and nobody re-runs a script for a sentence they cannot find.  So
the README and every page but the figures page are read for the forms a
measurement takes in prose — a time (``0.36 s``, ``6 min``), a size
(``1.8 GB``), a speed ratio (``12.9×``, ``×1.78``), a rate (``53,000
responses/s``), an accuracy score (``AP 0.309``, ``Brier 0.0197``), a
percentage with decimals (``99.3%``) — outside code.

A value the code *sets* is not a measurement: a default, a limit or a wait is
written as code (``AUDIT_DB_MEMORY_LIMIT=4GB``, ``HOLD_S``), in words ("two
seconds"), or listed in ``ALLOWED``, page by page, with the worked examples
that explain a formula.  The list is checked to stay true: a phrase no longer
on its page fails too.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIGURES = REPO / "docs" / "reference" / "figures.md"
PAGES = [REPO / "README.md", *sorted(p for p in (REPO / "docs").rglob("*.md")
                                     if p != FIGURES and not p.relative_to(REPO / "docs").parts[0].startswith("_"))]

_FENCE = re.compile(r"^( *)```.*?^\1```", re.S | re.M)
_SPAN = re.compile(r"`[^`\n]+`")
_NUM = r"\d[\d,]*(?:\.\d+)?"
_RANGE = rf"{_NUM}(?:\s*[–-]\s*{_NUM})?"
FIGURE = re.compile("|".join([
    rf"(?<![\w.]){_RANGE}\s*(?:s|ms|µs|min|h|seconds?|minutes?|hours?)\b",   # a time
    rf"(?<![\w.]){_RANGE}\s*[KMGT]i?B\b",                                     # a size
    rf"(?<![\w.]){_NUM}×(?!\s*\d)|(?<![\w.])×{_NUM}",                          # a ratio: 12.9×, ×1.78 (not 1280×720)
    rf"(?<![\w.]){_NUM}\s*(?:[a-z]+)?/s\b",                                    # a rate: 53,000 responses/s
    r"\b(?:AP|Brier(?: score)?|average precision)\b[^.|\n]{0,40}?\d\.\d",     # an accuracy score
    r"\d\.\d+\s*%",                                                           # a measured percentage
]))

#: page → phrases holding a number with a unit that is not a measurement.
ALLOWED: dict[str, list[str]] = {
    # the settings a reviewer meets: the idle time-out and the sign-in lockout
    "docs/reviewers/index.md": ["unused for 30 minutes"],
    "docs/install.md": ["after 30 minutes without activity"],
    "docs/how-to/campaign.md": [
        "after 30 minutes without activity",
        "the name waits 30 s, doubling up to 15 min",
    ],
    "docs/reference/formats.md": ["(default 4 GiB)"],   # $AUDIT_MAX_INPUT_BYTES
    "docs/reference/workbench.md": [
        "after 30 minutes without activity",
        "valid 60 s",                           # the single-use nonce of the cookie route
    ],
    # worked examples: the Wilson interval of one model's count, the methodology's bias counts
    "docs/explanations/impact.md": ["447 of 657 → 68.04% [64.37%, 71.49%]", "[64.44%, 71.43%]"],
    "docs/how-to/judges.md": ["105/130 = 80.8%, 67/130 = 51.5%, 50/130 = 38.5%, 52/130 = 40.0%"],
}


def _flat(text: str) -> str:
    """The page's prose on one line: code blocks and code spans left out."""
    prose = _SPAN.sub("``", _FENCE.sub("", text))
    return re.sub(r"\s+", " ", prose)


def figures_in(text: str, allowed: list[str] = ()) -> list[str]:
    """The measured figures in *text*'s prose, outside the *allowed* phrases."""
    flat = _flat(text)
    spans = [(m.start(), m.end()) for phrase in allowed
             for m in re.finditer(re.escape(" ".join(phrase.split())), flat)]
    out = []
    for m in FIGURE.finditer(flat):
        if not any(a <= m.start() and m.end() <= b for a, b in spans):
            out.append(f"{m.group(0).strip()!r} in …{flat[max(0, m.start() - 60):m.end() + 30]}…")
    return out


def test_the_check_finds_the_forms_of_a_measurement():
    for prose in ("takes 0.36 s", "in 6 min 25 s", "1.8 GB of venvs", "peak 2,275 MB", "12.9× faster",
                  "(×1.78 wall time", "53,000 responses/s", "AP 0.309", "the Brier score 0.0197",
                  "average precision of 0.378", "agreement 99.3%", "3–5 s"):
        assert figures_in(prose), prose
    for prose in ("`AUDIT_DB_MEMORY_LIMIT=4GB`", "at 1280×720", "100,000 questions × 100 models",
                  "```text\ntook 3.2 s\n```", "a 95% interval", "Tier 1–2 items", "100 M predictions",
                  "`min(30 s, base·2^k)`", "φ = 0.5"):
        assert not figures_in(prose), prose
    assert not figures_in("e.g. 447 of 657 → 68.04% [64.37%, 71.49%]", ["447 of 657 → 68.04% [64.37%, 71.49%]"])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_measured_figure_outside_the_figures_page(page):
    rel = page.relative_to(REPO).as_posix()
    found = figures_in(page.read_text(encoding="utf-8"), ALLOWED.get(rel, []))
    assert not found, (f"{rel} quotes measured figures; move them to docs/reference/figures.md "
                       "(with the script that measures them) and link there:\n" + "\n".join(found))


def test_every_allowed_phrase_is_still_on_its_page():
    stale = [f"{page}: {phrase!r}" for page, phrases in ALLOWED.items() for phrase in phrases
             if " ".join(phrase.split()) not in _flat((REPO / page).read_text(encoding="utf-8"))]
    assert not stale, "remove from ALLOWED:\n" + "\n".join(stale)


def _tables(text: str):
    """(header cells, row cells) of every Markdown table in *text*."""
    rows: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])])
            continue
        if len(rows) > 2:
            yield rows[0], rows[2:]
        rows = []


def test_every_figure_names_the_script_that_measures_it():
    """Each row of a figures table names its script, and a script named by
    path exists in the repository."""
    text = FIGURES.read_text(encoding="utf-8")
    n = 0
    for header, rows in _tables(text):
        if "script" not in header:
            continue
        col = header.index("script")
        for row in rows:
            cell = row[col]
            assert cell, f"no script for {row}"
            for path in re.findall(r"(?:tests|\.ci)/[\w./-]+", cell):
                assert (REPO / path.rstrip(".")).exists(), f"{path} (figures page) does not exist"
            n += 1
    assert n >= 40
