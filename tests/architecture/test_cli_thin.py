"""Every CLI command calls exactly one public function of the library and
prints what it returns.

Read with ``ast``: for each command of ``audit/cli`` (a function registered
with ``.command(...)``), count the calls of functions imported from
``audit.*`` on the longest path through the command (an option choosing
between two functions is one call on each path) — directly, or through a
helper defined in ``audit/cli`` that makes such calls.  Not counted:
output and argument helpers (``audit.cli._common``, ``audit._util.safe_csv``, the
terminal writer ``audit._util.terminal`` and ``audit._util.redact`` that every printed
line goes through, the
label vocabulary ``audit.options``, ``parse_map`` turning ``--map`` options
into a dict, the run options value ``RunOptions``), usage errors (``audit.errors``) and sign-in at a prompt
(``acting_account``: ask the password, authenticate), which is the command
line's job.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "audit" / "cli"
NOT_COUNTED = ("audit.errors", "audit._util.safe_csv", "audit._util.terminal", "audit._util.redact",
               "audit.options")
NOT_COUNTED_NAMES = {"parse_map", "RunOptions"}  # argument parsing, the options value
INTERACTION = {"acting_account"}
TERMINAL = (ast.Return, ast.Raise)


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _imports(nodes: list[ast.stmt] | ast.AST) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(nodes) if isinstance(nodes, ast.AST) else nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("audit"):
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("audit"):
                    out[a.asname or a.name.split(".")[0]] = a.name
    return out


class _Counter:
    def __init__(self, helpers: dict[str, tuple[ast.FunctionDef, dict[str, str]]]):
        self.helpers = helpers

    def function(self, fn: ast.FunctionDef, module_names: dict[str, str], seen: frozenset = frozenset()) -> int:
        names = {**module_names, **_imports(fn)}
        return self.block(fn.body, names, seen | {id(fn)})

    def block(self, stmts: list[ast.stmt], names: dict[str, str], seen: frozenset) -> int:
        total = 0
        for i, s in enumerate(stmts):
            if isinstance(s, ast.If):
                test = self.expr(s.test, names, seen)
                body = self.block(s.body, names, seen)
                if s.body and isinstance(s.body[-1], TERMINAL):   # `if x: ...; return` — the rest is the else
                    rest = self.block(s.orelse + stmts[i + 1:], names, seen)
                    return total + test + max(body, rest)
                return_total = test + max(body, self.block(s.orelse, names, seen))
                total += return_total
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            elif isinstance(s, ast.Try):
                total += self.block(s.body, names, seen) + max(
                    [self.block(h.body, names, seen) for h in s.handlers] or [0]) + self.block(s.finalbody, names, seen)
            elif isinstance(s, (ast.For, ast.While, ast.With)):
                head = [s.iter] if isinstance(s, ast.For) else [s.test] if isinstance(s, ast.While) else \
                    [w.context_expr for w in s.items]
                total += sum(self.expr(h, names, seen) for h in head) + self.block(s.body, names, seen)
            else:
                total += self.expr(s, names, seen)
        return total

    def expr(self, node: ast.AST, names: dict[str, str], seen: frozenset) -> int:
        if isinstance(node, ast.IfExp):
            return self.expr(node.test, names, seen) + max(self.expr(node.body, names, seen),
                                                           self.expr(node.orelse, names, seen))
        n = sum(self.expr(c, names, seen) for c in ast.iter_child_nodes(node))
        if isinstance(node, ast.Call):
            n += self.call(node, names, seen)
        return n

    def call(self, node: ast.Call, names: dict[str, str], seen: frozenset) -> int:
        name = _dotted(node.func)
        if name is None:
            return 0
        head = name.split(".")[0]
        if head in INTERACTION:
            return 0
        target = names.get(head)
        if target is None:  # a function of this module: count what it calls
            helper = self.helpers.get(head) if isinstance(node.func, ast.Name) else None
        else:
            full = target + name[len(head):]
            if full.startswith(NOT_COUNTED) or full.rsplit(".", 1)[-1] in NOT_COUNTED_NAMES:
                return 0
            if not full.startswith("audit.cli"):
                return 1
            helper = self.helpers.get(full.rsplit(".", 1)[-1])
        if helper is None or id(helper[0]) in seen:
            return 0
        return self.function(helper[0], helper[1], seen)


def commands() -> dict[str, int]:
    """Command function (``module:function``) → library calls on its longest path."""
    helpers: dict[str, tuple[ast.FunctionDef, dict[str, str]]] = {}
    cmds: dict[str, tuple[ast.FunctionDef, dict[str, str]]] = {}
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_names = _imports(tree.body)
        registered = {node.args[0].id for node in ast.walk(tree)
                      if isinstance(node, ast.Call) and isinstance(node.func, ast.Call)
                      and isinstance(node.func.func, ast.Attribute) and node.func.func.attr == "command"
                      and node.args and isinstance(node.args[0], ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                decorated = any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                                and d.func.attr == "command" for d in node.decorator_list)
                if decorated or node.name in registered:
                    cmds[f"{path.stem}:{node.name}"] = (node, module_names)
                else:
                    helpers[node.name] = (node, module_names)
    counter = _Counter(helpers)
    return {key: counter.function(fn, names) for key, (fn, names) in cmds.items()}


def test_every_command_calls_one_library_function():
    found = commands()
    assert len(found) >= 50, sorted(found)
    fat = {k: v for k, v in found.items() if v != 1}
    assert not fat, "commands that do not call exactly one library function:\n" + "\n".join(
        f"{k}: {v}" for k, v in sorted(fat.items()))


def test_the_count_sees_composition(tmp_path, monkeypatch):
    src = tmp_path / "x.py"
    src.write_text(
        "from audit.cli._common import echo\n"
        "def helper(db):\n    from audit.store import connect\n    return connect(db)\n"
        "@app.command('a')\ndef a(db=None):\n    from audit.review import f, g\n    helper(db)\n    echo(f(db))\n"
        "@app.command('b')\ndef b(x=None):\n    from audit.review import f, g\n"
        "    if x:\n        echo(f())\n        return\n    echo(g())\n"
        "@app.command('c')\ndef c(x=None):\n    from audit.review import f, g\n    echo(f() if x else g())\n"
        "@app.command('d')\ndef d():\n    from audit.errors import InputError\n    raise InputError('no')\n",
        encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "CLI", tmp_path)
    assert commands() == {"x:a": 2, "x:b": 1, "x:c": 1, "x:d": 0}
