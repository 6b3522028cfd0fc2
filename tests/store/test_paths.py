"""audit.store._paths: where the database file is.  Pins ``$AUDIT_DB``
first, else ``data/workbench.duckdb`` in the source checkout (this
repository), and that an explicit path is taken as given."""
from __future__ import annotations

from pathlib import Path

from audit.store._paths import DEFAULT_DB_NAME, _project_root, default_db_path, resolve_db_path

REPO = Path(__file__).resolve().parents[2]


def test_audit_db_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("AUDIT_DB", str(tmp_path / "mine.duckdb"))
    assert default_db_path() == tmp_path / "mine.duckdb"
    assert resolve_db_path(None) == tmp_path / "mine.duckdb"


def test_default_is_in_the_checkout_whatever_the_current_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("AUDIT_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    assert _project_root() == REPO
    assert default_db_path() == REPO / "data" / DEFAULT_DB_NAME == REPO / "data" / "workbench.duckdb"


def test_an_empty_audit_db_is_unset(monkeypatch):
    monkeypatch.setenv("AUDIT_DB", "")
    assert default_db_path().name == "workbench.duckdb"


def test_explicit_paths_are_taken_as_given(monkeypatch, tmp_path):
    monkeypatch.setenv("AUDIT_DB", "/elsewhere.duckdb")
    assert resolve_db_path(tmp_path / "x.duckdb") == tmp_path / "x.duckdb"
    assert resolve_db_path("rel/ བོད.duckdb") == Path("rel/ བོད.duckdb")
