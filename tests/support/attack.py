"""Shared steps of the attack suites (tests/test_attack_*.py): a fresh copy
of a module's database for each test, and the real ``audit`` command run as
a subprocess with passwords on standard input."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.support.cli_process import run_audit

REPO = Path(__file__).resolve().parents[2]
#: Variables that change who is who; never inherited by a test.
IDENTITY_ENV = ("WORKBENCH_LEADS", "WORKBENCH_SECRET")


def fresh_copy(template: Path, tmp_path: Path, monkeypatch) -> Path:
    """A copy of ``template`` for one test, with the identity variables unset."""
    for name in IDENTITY_ENV:
        monkeypatch.delenv(name, raising=False)
    db = tmp_path / template.name
    shutil.copy(template, db)
    return db


def cli(db, *args, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    """``audit ARGS --db DB`` in a subprocess (identity variables unset unless in ``env``)."""
    e = {k: v for k, v in os.environ.items() if k not in IDENTITY_ENV}
    e.update({"PYTHONPATH": str(REPO), **(env or {})})
    return run_audit([*args, "--db", str(db)], input=stdin, env=e, cwd=REPO, timeout=300)
