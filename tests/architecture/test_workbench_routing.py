"""The workbench's pages switch page through ``workbench.routing``, keyed by
URL path, and never import the page registry ``workbench.nav`` (which
imports them).  Cycles and private names are checked for every module by
``test_import_order.py`` and ``test_private_imports.py``."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORKBENCH = REPO / "workbench"


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import in the file (``names`` empty for ``import x``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.lineno, node.module, [a.name for a in node.names]))
    return out


def _files() -> list[Path]:
    return sorted(WORKBENCH.rglob("*.py"))


def _graph() -> dict[str, set[str]]:
    """workbench module → the workbench modules it imports."""
    known = {_module(p) for p in _files()}
    graph: dict[str, set[str]] = {}
    for path in _files():
        edges = set()
        for _, mod, names in _imports(path):
            if mod in known:
                edges.add(mod)
            edges |= {f"{mod}.{n}" for n in names if f"{mod}.{n}" in known}
        graph[_module(path)] = edges - {_module(path)}
    return graph


def test_views_never_import_the_page_registry():
    graph = _graph()
    assert "workbench.nav" in graph["workbench._page"]
    assert {m for m, edges in graph.items() if m.startswith("workbench.views") and "workbench.nav" in edges} == set()


def test_every_audit_name_a_page_reads_resolves_in_a_fresh_interpreter():
    """A page that reads ``audit.review.dashboard.tier_by_subject`` imports
    ``audit.review.dashboard`` itself: in a fresh interpreter every dotted
    ``audit.…`` name of the workbench's modules resolves by attribute access
    alone, whatever was imported before (Streamlit runs each page fresh)."""
    import json
    import re
    import subprocess
    import sys

    uses = {}
    for path in sorted(WORKBENCH.rglob("*.py")):
        found = re.findall(r"(?<![\w.])(audit(?:\.[A-Za-z_]\w*){2,})(?![\w*])", path.read_text(encoding="utf-8"))
        names = sorted(set(found))
        if names:
            uses[_module(path)] = names
    code = """
import importlib, json, sys
uses = json.loads(sys.argv[1]); bad = []
for module, names in uses.items():
    importlib.import_module(module)
    for dotted in names:
        obj = importlib.import_module("audit")
        for part in dotted.split(".")[1:]:
            if not hasattr(obj, part):
                bad.append(f"{module}: {dotted} (no {part})"); break
            obj = getattr(obj, part)
print(json.dumps(bad))
"""
    out = subprocess.run([sys.executable, "-c", code, json.dumps(uses)], capture_output=True, text=True, cwd=REPO,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
