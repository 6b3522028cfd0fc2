"""CLI commands for this stage (filled in by its issue)."""
from __future__ import annotations

import typer


def register(app: typer.Typer, import_app: typer.Typer) -> None:
    pass
