"""How the workbench's modules import: no cycle among them (the pages switch
page through ``workbench.routing``, keyed by URL path, and never import the
page registry ``workbench.nav``), and only public names of ``audit`` (a
package's ``__all__`` or a non-underscored module).  Read with ``ast`` so
imports inside functions count too."""
from __future__ import annotations

import ast
import importlib
import importlib.util
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


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle_in_the_workbench():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle)


def test_the_cycle_check_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"b"}}) is None


def test_views_never_import_the_page_registry():
    graph = _graph()
    assert "workbench.nav" in graph["workbench._page"]
    assert {m for m, edges in graph.items() if m.startswith("workbench.views") and "workbench.nav" in edges} == set()


def test_workbench_imports_only_public_names_of_audit():
    bad = []
    for path in _files():
        for line, mod, names in _imports(path):
            if mod.split(".")[0] != "audit":
                continue
            where = f"{path.relative_to(REPO)}:{line}"
            if any(p.startswith("_") for p in mod.split(".")):
                bad.append(f"{where}: private module {mod}")
                continue
            public = getattr(importlib.import_module(mod), "__all__", None)
            for name in names:
                submodule = _is_package(mod) and importlib.util.find_spec(f"{mod}.{name}") is not None
                if name.startswith("_") or (not submodule and public is not None and name not in public):
                    bad.append(f"{where}: {mod}.{name} is not public")
    assert not bad, "\n".join(bad)


def _is_package(mod: str) -> bool:
    return hasattr(importlib.import_module(mod), "__path__")
