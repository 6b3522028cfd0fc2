"""Every ``db`` parameter of the library is annotated with
:data:`audit.store.DbPath` (what ``db=`` accepts: a path or None for the
default database), so mypy checks the callers.  Read with ``ast``."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "audit"
# The store's own functions spell the alias out (it is defined there); the CLI uses its --db option type.
ALLOWED = {"DbPath", "DbOption", "str | os.PathLike | None", "Optional[Path]", "str | os.PathLike"}
# (`_db_defaults(group, db: str)` in the CLI passes the --db text on to the subcommands.)
ALLOWED_FUNCTIONS = {"_db_defaults"}


def offenders() -> list[str]:
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                for arg in a.posonlyargs + a.args + a.kwonlyargs:
                    if arg.arg == "db":
                        ann = ast.unparse(arg.annotation) if arg.annotation is not None else None
                        if ann not in ALLOWED and node.name not in ALLOWED_FUNCTIONS:
                            bad.append(f"{path.relative_to(ROOT.parent)}:{arg.lineno}: {node.name}(db: {ann})")
    return bad


def test_every_db_parameter_is_a_dbpath():
    bad = offenders()
    assert not bad, "db parameters not annotated with DbPath:\n" + "\n".join(bad)
