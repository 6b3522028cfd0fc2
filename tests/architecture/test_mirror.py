"""The tests mirror the code: every module ``audit/<path>/<name>.py`` has its
tests in ``tests/<path>/test_<name>.py`` (a leading ``_`` dropped), and every
top-level folder of ``tests/`` is a package of ``audit/`` or one of the
cross-cutting folders (architecture, docs, security, workbench, support,
bench, data, fixtures)."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AUDIT = REPO / "audit"
TESTS = REPO / "tests"
CROSS_CUTTING = {"architecture", "docs", "security", "workbench", "support", "bench", "data", "fixtures", "__pycache__"}


def mirror_of(module: Path) -> Path:
    """Where the tests of an ``audit/`` module live.

    >>> mirror_of(AUDIT / "analyze" / "keyerror" / "_model.py").relative_to(REPO).as_posix()
    'tests/analyze/keyerror/test_model.py'
    >>> mirror_of(AUDIT / "report.py").relative_to(REPO).as_posix()
    'tests/test_report.py'
    """
    rel = module.relative_to(AUDIT)
    return TESTS.joinpath(*rel.parts[:-1], "test_" + rel.stem.lstrip("_") + ".py")


def test_every_module_has_its_tests_where_the_mirror_says():
    modules = [p for p in sorted(AUDIT.rglob("*.py")) if p.name not in ("__init__.py", "__main__.py")]
    missing = [
        f"{m.relative_to(REPO)} → {mirror_of(m).relative_to(REPO)}" for m in modules if not mirror_of(m).is_file()
    ]
    assert not missing, f"{len(missing)} modules without their test file:\n" + "\n".join(missing)


def test_test_folders_mirror_packages():
    packages = {p.name for p in AUDIT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir()}
    assert folders - packages - CROSS_CUTTING == set()
