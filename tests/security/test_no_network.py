"""Commands never reach the network on their own: DuckDB's extension
auto-install and auto-load are off on every connection, and opening a
database reaches no remote source unless predictions are read from it.

Every command here runs with ``HTTP_PROXY`` / ``HTTPS_PROXY`` /
``ALL_PROXY`` pointing at a local listener that records each connection
and answers nothing (DuckDB's extension downloader, httpx, botocore and
urllib all honour these variables); the local test servers are exempt
through ``NO_PROXY``.  A recorded connection is a failure.

Before: opening a SQLite file as ``--db`` made DuckDB try to download its
``sqlite_scanner`` extension (eight requests to extensions.duckdb.org)."""
from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import threading

import duckdb
import pytest

import audit
from tests.support.attack import REPO
from tests.support.cli_process import run_audit

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


class RecordingProxy:
    """A TCP listener on 127.0.0.1 that records the first bytes of every
    connection and closes it (any request through it fails)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.hits: list[bytes] = []
        self._stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                c.settimeout(2)
                self.hits.append(c.recv(300))
            except OSError:
                self.hits.append(b"?")
            finally:
                c.close()

    def env(self) -> dict:
        url = f"http://127.0.0.1:{self.port}"
        return {**{v: url for v in PROXY_VARS}, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

    def close(self):
        self._stop = True
        self.sock.close()


@pytest.fixture
def proxy():
    p = RecordingProxy()
    yield p
    p.close()


def run(db, *args, proxy: RecordingProxy, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k.upper() not in {v.upper() for v in PROXY_VARS}}
    env.update(PYTHONPATH=str(REPO), **proxy.env())
    env.pop("WORKBENCH_SECRET", None)
    return run_audit([*args, "--db", str(db)], input=stdin, env=env, cwd=REPO, timeout=300)


def no_hits(proxy: RecordingProxy) -> None:
    import time

    time.sleep(0.3)
    assert not proxy.hits, f"{len(proxy.hits)} connection(s) left the machine: {proxy.hits[0][:120]!r}"


# ---------------------------------------------------------------- the reported case

def test_a_sqlite_file_as_db_never_downloads_an_extension(tmp_path, proxy):
    import sqlite3

    f = tmp_path / "other.db"
    c = sqlite3.connect(f)
    c.execute("CREATE TABLE x (a)")
    c.commit()
    c.close()
    before = hashlib.sha256(f.read_bytes()).hexdigest()
    r = run(f, "models", "list", proxy=proxy)
    no_hits(proxy)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "download" not in r.stderr.lower() and "http" not in r.stderr.lower(), r.stderr
    assert hashlib.sha256(f.read_bytes()).hexdigest() == before


# ---------------------------------------------------------------- the settings themselves

@pytest.mark.parametrize("read_only", [False, True], ids=["writer", "reader"])
def test_every_connection_has_extension_autoinstall_and_autoload_off(db_path, read_only):
    with audit.connect(db_path, read_only=read_only) as con:
        got = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN "
                               "('autoinstall_known_extensions', 'autoload_known_extensions')").fetchall())
    assert got == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}, got


# ---------------------------------------------------------------- the CLI's commands, one after another

def test_the_usual_commands_never_reach_the_network(tmp_path, proxy):
    db = tmp_path / "t.duckdb"
    q = tmp_path / "q.csv"
    q.write_text("id,subject,question,A,B,C,D,answer\n" + "".join(f"q{i},s,Q{i}?,a,b,c,d,A\n" for i in range(6)))
    p = tmp_path / "p.csv"
    p.write_text("question_id,m1,m2,m3\n" + "".join(f"q{i},B,B,{'AB'[i % 2]}\n" for i in range(6)))
    steps = [
        ("init",),
        ("import", "questions", str(q), "-b", "b"),
        ("import", "predictions", str(p), "-b", "b", "--layout", "wide"),
        ("analyze", "-b", "b"),
        ("report", "-b", "b"),
        ("report", "-b", "b", "-f", "markdown"),
        ("models", "list"),
        ("review", "status", "-b", "b"),
        ("judge", "list", "-b", "b"),
        ("export", "create", "-b", "b", "-v", "1.1", "--exports-dir", str(tmp_path / "exports")),
        ("export", "list", "b", "--verify"),
        ("users", "list"),
    ]
    for step in steps:
        r = run(db, *step, proxy=proxy)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (step, r.stderr[-300:])
    no_hits(proxy)


def test_the_demo_never_reaches_the_network(tmp_path, proxy):
    r = run(tmp_path / "demo.duckdb", "demo", proxy=proxy)
    assert r.returncode == 0, r.stderr[-300:]
    no_hits(proxy)


def test_a_registered_remote_source_is_not_contacted_by_commands_that_do_not_read_it(tmp_path, proxy):
    """Our own case: a database with an ``s3://`` prediction source
    registered.  ``audit users list`` and ``audit review list`` read no
    prediction, so they must not list the bucket on every connection."""
    import json

    db = tmp_path / "t.duckdb"
    audit.init_db(db)
    con = duckdb.connect(str(db))
    try:
        con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'test')")
        con.execute(
            "INSERT INTO prediction_sources (benchmark, uri, protocol, mapping, model, run, files, listing, revision, "
            "fingerprint, n_rows, n_valid, models, relation_sql) VALUES ('b', 's3://no-such-bucket-x/p/', 's3', NULL, "
            "NULL, NULL, ['s3://no-such-bucket-x/p/a.parquet'], ?, NULL, 'abc', 1, 1, ['m'], "
            "'SELECT NULL::VARCHAR AS benchmark, NULL::VARCHAR AS question_id, NULL::VARCHAR AS model, "
            "NULL::VARCHAR AS run, NULL::VARCHAR AS response, NULL::VARCHAR AS answer, NULL::VARCHAR AS method, "
            "NULL::BOOLEAN AS valid WHERE false')",
            [json.dumps([["s3://no-such-bucket-x/p/a.parquet", 1, "etag"]])])
    finally:
        con.close()
    env_extra = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y", "AWS_REGION": "us-east-1"}
    os.environ.update(env_extra)
    try:
        for step in (("users", "list"), ("review", "list")):
            r = run(db, *step, proxy=proxy)
            assert r.returncode == 0, (step, r.stderr[-300:])
    finally:
        for k in env_extra:
            os.environ.pop(k, None)
    no_hits(proxy)
