"""What a newcomer can rely on when reading the code: few loose modules at
the root of ``audit/``; each package's ``__init__`` is one import block and
one ``__all__`` (no registration, no logic); no ``__all__ +=`` and no
``# noqa: E402``; comments say why, never which issue or task.  Read with
``ast`` and plain text, so nothing is executed."""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CODE = [p for top in ("audit", "workbench") for p in sorted((REPO / top).rglob("*.py"))]
#: The root of ``audit/`` holds the vocabulary and the top layer beside its packages.
MAX_LOOSE_MODULES = 8
HISTORY = re.compile(r"\b[Ii]ssues? #?\d+|\(#\d+\)|t13-privatise|\b(analyze|judge|export|review)-[A-Z]\b")


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def test_few_loose_modules_at_the_root_of_audit():
    loose = sorted(p.name for p in (REPO / "audit").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, f"{len(loose)} loose modules: {loose}"


def test_package_inits_are_one_import_block_and_one_all():
    """Every package ``__init__`` below ``audit`` holds a docstring, imports
    and one ``__all__`` assignment — nothing that runs at import time.  (The
    top-level ``audit/__init__.py`` is the lazy notebook namespace.)"""
    bad = []
    for init in sorted((REPO / "audit").rglob("__init__.py")):
        if init.parent == REPO / "audit":
            continue
        tree = ast.parse(init.read_text(encoding="utf-8"))
        alls = 0
        for i, node in enumerate(tree.body):
            if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if alls:
                    bad.append(f"{_rel(init)}:{node.lineno}: an import after __all__")
                continue
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if [getattr(t, "id", None) for t in targets] == ["__all__"]:
                    alls += 1
                    continue
            bad.append(f"{_rel(init)}:{node.lineno}: {type(node).__name__} in a package __init__")
        if alls > 1:
            bad.append(f"{_rel(init)}: {alls} __all__ assignments")
    assert not bad, "\n".join(bad)


def test_no_all_extension_and_no_late_imports():
    bad = []
    for path in CODE:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) == "__all__":
                bad.append(f"{_rel(path)}:{node.lineno}: __all__ +=")
        bad += [f"{_rel(path)}:{i}: noqa E402" for i, line in enumerate(text.splitlines(), 1) if "E402" in line]
    assert not bad, "\n".join(bad)


def test_comments_say_why_not_which_issue():
    files = CODE + sorted((REPO / "audit" / "store" / "migrations").glob("*.sql"))
    bad = [f"{_rel(p)}:{i}: {line.strip()[:80]}"
           for p in files for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if HISTORY.search(line)]
    assert not bad, "history in the code (say why instead):\n" + "\n".join(bad)
