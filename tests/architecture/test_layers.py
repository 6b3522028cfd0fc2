"""The layers of the code, read from every ``import`` with ``ast`` (those
inside function bodies included):

* the kernel and vocabulary: ``errors``, ``_util`` (private), ``vocab``,
  ``options``, ``scripts``, ``i18n``;
* ``store`` (the DuckDB file), then ``accounts`` and ``llm`` beside each other;
* the stages in the data flow: ``ingest`` → ``predict`` → ``analyze`` →
  ``judge`` → ``review`` → ``sync`` → ``export``;
* the top: ``report``, ``auto``, ``demo``, ``cli`` and ``audit/__init__.py``;
* ``workbench/``, a front end on the library.

A module imports only its own unit and the units before it, no import
cycle exists between modules (function-level imports count), and the
library never imports the workbench.
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "audit"
#: Units in order; a unit may import itself and every unit before it.  Units
#: on one line do not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("errors",), ("_util",), ("vocab",), ("options",), ("scripts",), ("i18n",),
    ("store",), ("accounts", "llm"),
    ("ingest",), ("predict",), ("analyze",), ("judge",), ("review",), ("sync",), ("export",),
    ("report", "auto"), ("demo",), ("cli",), ("__init__", "__main__"),
]
RANK = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, names imported from it) of every import."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = module_name(path).split(".")
    is_pkg = path.name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + (1 if is_pkg else 0)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name, [a.name for a in node.names]))
    return out


def unit(module: str) -> str | None:
    """The layer unit of a module of ``audit`` (None outside it)."""
    parts = module.split(".")
    if parts[0] != "audit":
        return None
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def targets(path: Path) -> list[tuple[int, str]]:
    """The project modules a file imports: ``from audit.x import y`` counts
    as importing ``audit.x.y`` when that is a module, else ``audit.x``."""
    out = []
    for line, mod, names in imports(path):
        if mod.split(".")[0] not in ("audit", "workbench"):
            continue
        subs = [f"{mod}.{n}" for n in names if is_module(f"{mod}.{n}")]
        out += [(line, s) for s in subs]
        if len(subs) < len(names) or not names:
            out.append((line, mod))
    return out


def layer_offenders(root: Path = ROOT) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        own = unit(module_name(path))
        for line, target in targets(path):
            if target.split(".")[0] == "workbench":
                bad.append(f"{path.relative_to(REPO)}:{line}: the library imports the workbench ({target})")
                continue
            other = unit(target)
            if other is None or other == own or other == "__init__" and target == "audit" and own == "__init__":
                continue
            if other == "__init__":
                bad.append(f"{path.relative_to(REPO)}:{line}: {own} imports the top-level package ({target})")
            elif RANK[other] >= RANK[own]:
                bad.append(f"{path.relative_to(REPO)}:{line}: {own} imports {target} ({other} is not below it)")
    return sorted(set(bad))


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for top in ("audit", "workbench"):
        for path in sorted((REPO / top).rglob("*.py")):
            here = module_name(path)
            graph.setdefault(here, set())
            for _, target in targets(path):
                if target != here and is_module(target):
                    graph[here].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_unit_is_in_the_layer_list():
    units = {unit(module_name(p)) for p in ROOT.rglob("*.py")}
    assert units <= set(RANK), f"add these to LAYERS: {sorted(units - set(RANK))}"


def test_imports_follow_the_layers():
    bad = layer_offenders()
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_import_cycle_between_modules():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_checks_see_imports_inside_functions(tmp_path, monkeypatch):
    import sys

    mod = sys.modules[__name__]
    src = tmp_path / "audit" / "analyze" / "x.py"
    src.parent.mkdir(parents=True)
    (tmp_path / "audit" / "review").mkdir()
    (tmp_path / "audit" / "review" / "_status.py").write_text("", encoding="utf-8")
    src.write_text("def f():\n    from audit.review._status import settled_verdicts\n", encoding="utf-8")
    monkeypatch.setattr(mod, "REPO", tmp_path)
    assert layer_offenders(tmp_path / "audit") == [
        "audit/analyze/x.py:2: analyze imports audit.review._status (review is not below it)"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
