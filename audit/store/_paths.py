"""Where the database file is: ``$AUDIT_DB``, else ``data/workbench.duckdb``
in the source checkout (or in the current directory when the package is
installed elsewhere)."""
from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB_NAME = "workbench.duckdb"


def _project_root() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").exists() and (root / "audit").is_dir() else None


def default_db_path() -> Path:
    """``$AUDIT_DB``, else ``data/workbench.duckdb`` in the source checkout
    (or in the current directory when the package is installed elsewhere)."""
    env = os.environ.get("AUDIT_DB")
    if env:
        return Path(env)
    root = _project_root() or Path.cwd()
    return root / "data" / DEFAULT_DB_NAME


def resolve_db_path(db: str | os.PathLike | None) -> Path:
    """*db* as a path, or :func:`default_db_path` when it is ``None``."""
    return Path(db) if db is not None else default_db_path()
