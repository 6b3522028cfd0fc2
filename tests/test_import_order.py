"""Imports follow the data flow ingest → store → analyze → judge → review →
sync → export (README, "Data flow"): no module of a stage imports a later
stage, at module level or inside a function.  Read with ``ast`` so imports
hidden in function bodies count too.

Top-level modules (``audit/options.py``, ``audit/vocab.py``, ...) are shared
vocabulary every stage may use; ``audit/cli``, ``audit/demo.py`` and
``audit/__init__.py`` sit on top and may import any stage.  ``store`` is
the foundation every stage writes through, so ``ingest`` may use it too.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "audit"
ORDER = ["ingest", "store", "analyze", "judge", "review", "sync", "export"]
# store is the storage layer under every stage (ingest writes through it).
ALLOWED = {("ingest", "store")}
# Top-level modules that are shared vocabulary: they import no stage at all.
LEAVES = {"labels", "vocab", "errors", "records", "_csv", "_version", "_read"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    pkg = path.relative_to(ROOT.parent).with_suffix("").parts
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(pkg[:-node.level]) if path.name != "__init__.py" else list(pkg[: len(pkg) - node.level + 1])
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name))
            if name == "audit":  # `from audit import review`
                out += [(node.lineno, f"audit.{a.name}") for a in node.names]
    return out


def _stage(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "audit" or len(parts) < 2:
        return None
    return parts[1]


def offenders() -> list[str]:
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent)
        own = rel.parts[1].removesuffix(".py") if len(rel.parts) > 1 else None
        if own in ORDER:
            rank = ORDER.index(own)
            for line, target in _imports(path):
                stage = _stage(target)
                if stage in ORDER and ORDER.index(stage) > rank and (own, stage) not in ALLOWED:
                    bad.append(f"{rel}:{line}: {own} imports {target} (a later stage)")
        elif own in LEAVES:
            for line, target in _imports(path):
                stage = _stage(target)
                if stage in ORDER or stage in {"cli", "demo"}:
                    bad.append(f"{rel}:{line}: shared module {own} imports {target}")
    return sorted(set(bad))


def test_imports_follow_the_data_flow():
    bad = offenders()
    assert not bad, "imports against the data flow:\n" + "\n".join(bad)


def test_the_check_sees_imports_inside_functions(tmp_path):
    # The checker itself must find a function-level import (not only module level).
    src = tmp_path / "audit" / "analyze" / "x.py"
    src.parent.mkdir(parents=True)
    src.write_text("def f():\n    from audit.review._status import settled_verdicts\n", encoding="utf-8")
    global ROOT
    saved, ROOT = ROOT, tmp_path / "audit"
    try:
        assert offenders() == ["audit/analyze/x.py:2: analyze imports audit.review._status (a later stage)"]
        src.write_text("import audit.store\nfrom audit import sync\nfrom ..export import derive\n", encoding="utf-8")
        assert offenders() == ["audit/analyze/x.py:2: analyze imports audit.sync (a later stage)",
                               "audit/analyze/x.py:3: analyze imports audit.export (a later stage)"]
    finally:
        ROOT = saved


def test_the_library_never_imports_the_workbench():
    """audit/ is the product and the workbench a front end on it: the
    interface's words live in audit.i18n, not the other way round."""
    bad = [f"{path.relative_to(ROOT.parent)}:{line}: imports {target}"
           for path in sorted(ROOT.rglob("*.py"))
           for line, target in _imports(path)
           if target.split(".")[0] in {"workbench", "streamlit"}]
    assert not bad, "the library imports the front end:\n" + "\n".join(bad)

