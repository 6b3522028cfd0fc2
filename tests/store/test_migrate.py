import pytest

from audit.errors import AuditError, DatabaseLockedError
from audit.store import connect, transaction
from audit.store._migrate import migrations, schema_version


def test_migrations_apply_once_and_record_versions(tmp_path):
    path = tmp_path / "a.duckdb"
    with connect(path) as con:
        v = schema_version(con)
    assert v == max(m[0] for m in migrations())
    with connect(path) as con:  # second open applies nothing new
        assert con.execute("SELECT count(*) FROM schema_version").fetchone()[0] == len(migrations())


def test_transaction_rolls_back_on_error(db_path):
    with pytest.raises(RuntimeError):
        with connect(db_path) as con, transaction(con):
            con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'x')")
            raise RuntimeError("boom")
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM benchmarks").fetchone()[0] == 0


def test_read_only_open_of_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(AuditError, match="no database"):
        with connect(tmp_path / "missing.duckdb", read_only=True):
            pass
    assert not (tmp_path / "missing.duckdb").exists()


def test_locked_file_gives_locked_error(db_path, monkeypatch):
    monkeypatch.setenv("AUDIT_DB_TIMEOUT", "0.5")
    import subprocess
    import sys

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb,time; c=duckdb.connect({str(db_path)!r}); print('ok', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ok"
        with pytest.raises(DatabaseLockedError, match="in use"):
            with connect(db_path):
                pass
    finally:
        holder.kill()
        holder.wait()
