"""audit.store.turns: readers and writers taking turns.  Pins the pure
parts (the timeout and its variable, the connection settings and their
variables, the holder read from DuckDB's lock message) and, in one
process on a real DuckDB file: a writer waiting on another thread gives
up after its timeout naming it, a fresh ``FILE.wait`` marker of a writer
elsewhere keeps a new reader out (writer preference), the "waiting" line
is said once per holder, and the shared read connection stays open only
under :func:`keep_reads_open`.  Waiting on another process is covered by
tests/store/test_turns_concurrency.py and tests/store/test_turns_notice.py."""
from __future__ import annotations

import math
import os
import threading
import time
from pathlib import Path

import pytest

from audit.errors import AuditError, DatabaseLockedError
from audit.store import connect, turns
from audit.store.turns import (
    DEFAULT_MEMORY_LIMIT,
    connection_config,
    db_timeout,
    file_state,
    keep_reads_open,
    set_wait_notice,
    temp_directory,
)


@pytest.fixture
def notices():
    said: list[str] = []
    set_wait_notice(said.append)
    yield said
    set_wait_notice(None)


def test_db_timeout(monkeypatch):
    monkeypatch.delenv("AUDIT_DB_TIMEOUT", raising=False)
    assert db_timeout() == 30.0
    assert db_timeout(0) == 0.0
    assert db_timeout("2.5") == 2.5
    monkeypatch.setenv("AUDIT_DB_TIMEOUT", " 7 ")
    assert db_timeout() == 7.0
    assert db_timeout(1) == 1.0          # the argument wins over the variable
    for bad in (math.nan, math.inf, -1):
        with pytest.raises(AuditError, match="finite number of seconds >= 0"):
            db_timeout(bad)
    for bad in ("soon", "nan", "-3", "inf"):
        monkeypatch.setenv("AUDIT_DB_TIMEOUT", bad)
        with pytest.raises(AuditError, match=r"\$AUDIT_DB_TIMEOUT must be"):
            db_timeout()


def test_connection_config_and_its_variables(monkeypatch):
    for name in ("AUDIT_DB_MEMORY_LIMIT", "AUDIT_DB_TEMP_DIR", "AUDIT_DB_THREADS"):
        monkeypatch.delenv(name, raising=False)
    assert connection_config("/d/x.duckdb") == {"memory_limit": DEFAULT_MEMORY_LIMIT,
                                                 "temp_directory": "/d/x.duckdb.tmp"}
    monkeypatch.setenv("AUDIT_DB_MEMORY_LIMIT", "512MB")
    monkeypatch.setenv("AUDIT_DB_TEMP_DIR", "/scratch")
    monkeypatch.setenv("AUDIT_DB_THREADS", "2")
    assert connection_config("/d/x.duckdb") == {"memory_limit": "512MB", "temp_directory": "/scratch", "threads": 2}
    assert temp_directory("/d/x.duckdb") == Path("/scratch")
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("AUDIT_DB_THREADS", bad)
        with pytest.raises(AuditError, match="whole number >= 1"):
            connection_config("/d/x.duckdb")


def test_the_settings_reach_the_connection(db_path, monkeypatch):
    monkeypatch.setenv("AUDIT_DB_THREADS", "1")
    with connect(db_path) as con:
        assert con.execute("SELECT current_setting('threads')").fetchone()[0] == 1


def test_holder_from_duckdbs_lock_message():
    msg = ('IO Error: Could not set lock on file "/d/x.duckdb": Conflicting lock is held in '
           "/usr/bin/python3.11 (PID 4194304) by user root.")
    assert turns._holder(msg) == "PID 4194304: python3.11"       # no such process: the program's name
    assert turns._holder("IO Error: something else") == "another program"
    mine = turns._holder(f"held in /x/python (PID {os.getpid()})")
    assert mine.startswith(f"PID {os.getpid()}: ") and len(mine) <= len(f"PID {os.getpid()}: ") + 120
    assert turns._holder_key("PID 12: audit import x") == turns._holder_key("PID 12") == "12"


def test_a_writer_waiting_on_another_thread_gives_up_naming_it(db_path):
    init = threading.Event()
    release = threading.Event()

    def hold():
        with connect(db_path):
            init.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert init.wait(5)
        start = time.monotonic()
        with pytest.raises(DatabaseLockedError, match="another thread of this program.*gave up after waiting 0.3 s"):
            with connect(db_path, timeout=0.3):
                pass
        assert 0.25 <= time.monotonic() - start < 2.0
    finally:
        release.set()
        t.join(5)
    with connect(db_path, timeout=1):       # free again
        pass


def test_a_fresh_wait_marker_keeps_new_readers_out(db_path, notices):
    marker = db_path.with_name(db_path.name + ".wait")
    marker.touch()
    with pytest.raises(DatabaseLockedError, match="a writer waiting for it"):
        with connect(db_path, read_only=True, timeout=0.2):
            pass
    old = time.time() - 10                    # a marker left by a writer that died is ignored
    os.utime(marker, (old, old))
    with connect(db_path, read_only=True, timeout=0.2) as con:
        assert con.execute("SELECT 1").fetchone()[0] == 1


def test_the_waiting_line_is_said_once_per_holder(tmp_path, notices):
    path = tmp_path / "w.duckdb"
    w = turns._Waiter(path, 30)
    w.notice("PID 7: audit import")
    assert notices == []                        # under NOTICE_AFTER seconds: nothing
    w.start -= turns.NOTICE_AFTER + 0.1
    w.notice("PID 7: audit import")
    w.notice("PID 7: audit import")
    assert notices == [f"waiting for the database {path} (held by PID 7: audit import); giving up after 30 s"]
    again = turns._Waiter(path, 30)             # the next connection waiting on the same holder
    again.start -= turns.NOTICE_AFTER + 0.1
    again.notice("PID 7")
    assert len(notices) == 1
    other = turns._Waiter(path, 30)
    other.start -= turns.NOTICE_AFTER + 0.1
    other.notice("PID 8: audit judge run")
    assert len(notices) == 2 and "PID 8" in notices[1]


def test_reads_share_one_connection_kept_open_only_when_asked(db_path):
    state = file_state(db_path)
    with connect(db_path, read_only=True) as a, connect(db_path, read_only=True) as b:
        assert a is not b and state.readers == 2
        first = state.read_con
    assert state.read_con is None and first is not None        # closed when the last reader left
    keep_reads_open(30)
    with connect(db_path, read_only=True):
        pass
    assert state.read_con is not None
    with connect(db_path):                                      # a writer of this process closes it at once
        assert state.read_con is None
    with connect(db_path, read_only=True):
        pass
    keep_reads_open(0)
    assert state.read_con is None
