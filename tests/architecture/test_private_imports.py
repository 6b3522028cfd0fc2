"""No module imports another package's private (``_name``) module or name.

A private module or name is an implementation detail of its package:
``audit/ingest/_duck.py`` may be imported by the modules of ``audit.ingest``
only; other packages, the CLI and the workbench use the package's
``__all__`` or its public modules (tests may look inside).  The kernel
``audit/_util/`` is private to ``audit`` and shared by every package of it.
Read with ``ast`` so imports inside functions (and ``from audit.ingest
import _duck``) count too.  There is no exception list.
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHECKED = ("audit", "workbench")  # tests may look inside a package (white-box)


def _owner(module: str, root: Path = REPO) -> str | None:
    """The package a private module or name belongs to (``audit.ingest`` for
    ``audit.ingest._duck``), or None when *module* names nothing private
    below the top level."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__") and i >= 2:
            # a private module belongs to its package; a private name in a module
            # (not a package) belongs to that module's package
            container = root.joinpath(*parts[:i])
            in_module = i == len(parts) - 1 and container.with_suffix(".py").is_file()
            return ".".join(parts[:i - 1] if in_module else parts[:i])
    return None


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, root: Path) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _targets(tree: ast.AST, here: str, is_pkg: bool, root: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name))
            # `from audit.ingest import _duck` imports a module, `from audit.ingest.x import _f` a name:
            # both are private to the package that holds them
            out += [(node.lineno, f"{name}.{a.name}") for a in node.names
                    if _is_module(f"{name}.{a.name}", root) or a.name.startswith("_")]
    return out


def offenders(root: Path = REPO) -> list[str]:
    bad = []
    for top in CHECKED:
        for path in sorted((root / top).rglob("*.py")):
            if any(p.startswith(".") for p in path.relative_to(root).parts):
                continue
            here = _module_of(path, root)
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, target in _targets(tree, here, path.name == "__init__.py", root):
                owner = _owner(target, root)
                if owner is None or not target.startswith("audit."):
                    continue
                if here != owner and not here.startswith(owner + "."):
                    bad.append(f"{path.relative_to(root)}:{line}: imports {target}, private to {owner}")
    return sorted(set(bad))


def test_no_module_imports_another_packages_private_module():
    bad = offenders()
    assert not bad, "private modules imported from outside their package:\n" + "\n".join(bad)


def test_the_check_finds_private_imports(tmp_path):
    (tmp_path / "audit" / "judge").mkdir(parents=True)
    (tmp_path / "audit" / "ingest").mkdir(parents=True)
    (tmp_path / "workbench").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "audit" / "judge" / "x.py").write_text(
        "from audit._util.files import nfc\n"            # top-level private: shared, allowed
        "def f():\n    from audit.analyze._base import model_set\n"
        "from audit.ingest import _duck\n", encoding="utf-8")
    (tmp_path / "audit" / "ingest" / "y.py").write_text(
        "from audit.ingest._duck import one\nfrom ._duck import two\n", encoding="utf-8")
    (tmp_path / "audit" / "ingest" / "_duck.py").write_text("def _f(): pass\n", encoding="utf-8")
    (tmp_path / "tests" / "t.py").write_text("import audit.review._common\nfrom audit.ingest.y import _g\n",
                                             encoding="utf-8")
    (tmp_path / "workbench" / "w.py").write_text("import audit.review._common\nfrom audit.ingest.y import _g\n",
                                                 encoding="utf-8")
    assert offenders(tmp_path) == [
        "audit/judge/x.py:3: imports audit.analyze._base, private to audit.analyze",
        "audit/judge/x.py:4: imports audit.ingest._duck, private to audit.ingest",
        "workbench/w.py:1: imports audit.review._common, private to audit.review",
        "workbench/w.py:2: imports audit.ingest.y._g, private to audit.ingest",
    ]


def test_other_packages_import_only_what_a_module_lists_as_public():
    """A name imported from another package is in the ``__all__`` of the module
    it comes from, when that module has one (or is one of its public
    submodules): the contract between packages is what they list, not what
    happens to be importable."""
    import importlib

    bad = []
    for top in CHECKED:
        for path in sorted((REPO / top).rglob("*.py")):
            here = _module_of(path, REPO)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom) or node.level or not (node.module or "").startswith("audit."):
                    continue
                mod = node.module
                pkg = ".".join(mod.split(".")[:2])
                if here == pkg or here.startswith(pkg + ".") or mod.startswith("audit._util"):
                    continue
                public = getattr(importlib.import_module(mod), "__all__", None)
                for a in node.names:
                    if _is_module(f"{mod}.{a.name}", REPO) and not a.name.startswith("_"):
                        continue
                    if a.name.startswith("_") or (public is not None and a.name not in public):
                        bad.append(
                            f"{path.relative_to(REPO)}:{node.lineno}: {mod}.{a.name} is not in that module's __all__"
                        )
    assert not bad, "\n".join(bad)
