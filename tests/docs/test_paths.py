"""Every path in the code and every Python name of ``audit`` that the README
and the docs quote exists: ``audit/analyze/_impact.py``, ``tests/bench/x.py``,
``audit.review.why_this_item``.  Pages are read by newcomers who open the
file they are pointed to; a page that names a module the code has left is
worse than none.  (Commands are checked by ``test_docs_commands.py``.)
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted(p for p in (REPO / "docs").rglob("*.md")
                                     if not p.relative_to(REPO / "docs").parts[0].startswith("_"))]

#: A path under one of these folders must exist.
PATH = re.compile(r"(?<![\w/.~-])((?:audit|workbench|tests|\.ci|\.streamlit|docs/_hooks)/[\w./{},*-]*)")
#: ``audit.<name>[.<name>…]``, not inside a longer name (``reviewers.audit.invalid``).
NAME = re.compile(r"(?<![\w.@/-])(audit(?:\.\w+)+)")
#: Files the docs name that a user or a run creates, not the repository.
CREATED = ("audit.duckdb", ".streamlit/secrets.toml")

#: Modules the re-layout is moving in; the pages already name their new place.
PENDING: set[str] = set()


def _expand(path: str) -> list[str]:
    """``audit/i18n/{en,bo}.py`` → both paths; ``x.py::test`` → ``x.py``."""
    path = path.split("::")[0].rstrip(".,/")
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [out for alt in m.group(1).split(",") for out in _expand(path[:m.start()] + alt + path[m.end():])]


def quoted_paths(text: str) -> set[str]:
    return {p for m in PATH.finditer(text) for p in _expand(m.group(1)) if p not in CREATED}


def exists(path: str) -> bool:
    return any(REPO.glob(path)) if "*" in path else (REPO / path).exists()


def quoted_names(text: str) -> set[str]:
    return {m.group(1).rstrip(".") for m in NAME.finditer(text)
            if not any(m.group(1).startswith(c) for c in CREATED)}


def resolves(dotted: str) -> bool:
    """Whether *dotted* is a module, or a name reached from one by attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        except Exception:   # a module that exists elsewhere on the path but not in this checkout
            return False
        try:
            for p in parts[i:]:
                obj = getattr(obj, p)
        except AttributeError:
            return False
        return True
    return False


def test_the_check_reads_paths_and_names():
    text = (
        "see `audit/i18n/{en,bo}.py`, `tests/test_x.py::test_y`, audit/predict/ and ~/.cache/answer-key-audit/ls-venv; "
        "`audit.review.why_this_item(benchmark)`, name@reviewers.audit.invalid, audit.duckdb.tmp"
    )
    assert quoted_paths(text) == {"audit/i18n/en.py", "audit/i18n/bo.py", "tests/test_x.py", "audit/predict"}
    assert quoted_names(text) == {"audit.review.why_this_item"}
    assert resolves("audit.review.why_this_item") and resolves("audit.store")
    assert not resolves("audit.words.label") and not resolves("audit.review.no_such_name")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_quoted_path_and_name_exists(page):
    text = page.read_text(encoding="utf-8")
    missing = sorted(p for p in quoted_paths(text) - PENDING if not exists(p))
    missing += sorted(n for n in quoted_names(text) - PENDING if not resolves(n))
    assert not missing, f"{page.relative_to(REPO)} names what does not exist:\n" + "\n".join(missing)


def test_pending_moves_are_still_pending():
    landed = sorted(p for p in PENDING if exists(p) or ("/" not in p and resolves(p)))
    assert not landed, "these have landed; remove them from PENDING:\n" + "\n".join(landed)
