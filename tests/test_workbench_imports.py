"""The workbench's pages switch page through ``workbench.routing``, keyed by
URL path, and never import the page registry ``workbench.nav`` (which
imports them).  Cycles and private names are checked for every module by
``test_import_order.py`` and ``test_private_imports.py``."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
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
