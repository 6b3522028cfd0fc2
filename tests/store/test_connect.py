"""audit.store._connect: opening the database for one operation.  Pins, on
real DuckDB files in tmp_path: a read-write open creates the folder and a
migrated file, a read-only open of a missing file or of a folder is one
AuditError, a file that is not DuckDB is named in the error,
:func:`transaction` commits on success and rolls back on any exception
(KeyboardInterrupt included), and nested connections in one thread."""
from __future__ import annotations

import duckdb
import pytest

from audit.errors import AuditError
from audit.store import connect, init_db, transaction


def test_a_write_open_creates_folder_and_schema(tmp_path):
    path = tmp_path / "a" / "b" / "new.duckdb"
    with connect(path) as con:
        assert con.execute("SELECT count(*) FROM benchmarks").fetchone()[0] == 0
        versions = con.execute("SELECT count(*) FROM schema_version").fetchone()[0]
    from audit.store._migrate import migrations

    assert path.is_file() and versions == len(migrations()) > 0


def test_init_db_returns_the_path_and_is_idempotent(tmp_path):
    path = tmp_path / "x.duckdb"
    assert init_db(path) == path
    with connect(path) as con:
        con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'questions')")
    assert init_db(str(path)) == path
    with connect(path, read_only=True) as con:
        assert con.execute("SELECT name FROM benchmarks").fetchall() == [("b",)]


def test_read_only_open_of_a_missing_file_creates_nothing(tmp_path):
    path = tmp_path / "none.duckdb"
    with pytest.raises(AuditError, match="no database at .*audit init"):
        with connect(path, read_only=True):
            pass
    assert not path.exists()


def test_a_folder_is_not_a_database(tmp_path):
    for ro in (True, False):
        with pytest.raises(AuditError, match="not a regular file"):
            with connect(tmp_path, read_only=ro):
                pass


def test_a_file_that_is_not_duckdb(tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("id,stem\n1,x\n" * 100)
    with pytest.raises(AuditError, match="not a DuckDB database .it looks like a text file.") as e:
        with connect(path):
            pass
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_transaction_commits_and_rolls_back(db_path):
    with connect(db_path) as con:
        with transaction(con):
            con.execute("INSERT INTO benchmarks (name, source) VALUES ('kept', 'questions')")
        for exc in (ValueError("boom"), KeyboardInterrupt()):
            with pytest.raises(type(exc)):
                with transaction(con):
                    con.execute("INSERT INTO benchmarks (name, source) VALUES ('gone', 'questions')")
                    raise exc
        with pytest.raises(duckdb.ConstraintException):
            with transaction(con):
                con.execute("INSERT INTO benchmarks (name, source) VALUES ('half', 'questions')")
                con.execute("INSERT INTO benchmarks (name, source) VALUES ('kept', 'questions')")
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT name FROM benchmarks ORDER BY 1").fetchall() == [("kept",)]


def test_nested_connections_in_one_thread(db_path):
    with connect(db_path) as outer:
        outer.execute("INSERT INTO benchmarks (name, source) VALUES ('n', 'questions')")
        with connect(db_path, read_only=True) as inner:      # a read inside a write: same instance
            assert inner.execute("SELECT count(*) FROM benchmarks").fetchone()[0] == 1
        with connect(db_path) as inner:
            inner.execute("INSERT INTO benchmarks (name, source) VALUES ('m', 'questions')")
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM benchmarks").fetchone()[0] == 2
        with pytest.raises(AuditError, match="open for reading in this thread"):
            with connect(db_path):
                pass


def test_the_predictions_relation_exists_on_every_connection(db_path):
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM all_predictions").fetchone()[0] == 0
