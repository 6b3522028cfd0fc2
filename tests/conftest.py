"""Shared fixtures: temporary databases and the real reference data in
../shared/data (tests that need it skip with a message naming what is missing)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUDIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_path(name: str) -> Path:
    """Path of a set in ../shared/data; skips the test when it is absent."""
    p = SHARED_DATA / name
    if not p.exists():
        pytest.skip(f"needs the reference data {p} (../shared/data/{name}); it is not present on this machine")
    return p


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory) -> Path:
    """One migrated, empty DuckDB file per test session (never written to:
    tests get copies)."""
    from audit.store import init_db

    path = tmp_path_factory.mktemp("template") / "migrated.duckdb"
    init_db(path)
    return path


@pytest.fixture
def db_path(tmp_path, migrated_template) -> Path:
    """A fresh, migrated DuckDB file: a copy of the session's migrated
    template (running the migrations for each of the ~200 tests that use it
    cost 0.25 s each)."""
    path = tmp_path / "test.duckdb"
    shutil.copyfile(migrated_template, path)
    return path


@pytest.fixture
def tlue_dir() -> Path:
    return shared_path("tlue_subset670")


@pytest.fixture
def cmmlu_dir() -> Path:
    return shared_path("cmmlu_subset670")


@pytest.fixture
def mmlu_redux_dir() -> Path:
    return shared_path("mmlu_redux_dev")


@pytest.fixture
def helm_dir() -> Path:
    return shared_path("helm_global_facts")


@pytest.fixture
def mmlu_pro_dir() -> Path:
    """MMLU-Pro's published per-model result files (three, cut to 120 records each)."""
    return shared_path("real_formats/mmlu_pro")


@pytest.fixture(scope="session")
def ls_server(tmp_path_factory):
    """One real Label Studio server per test process, shared by every Label
    Studio test file that process runs (each test makes its own project, and
    its own DuckDB file): started once instead of once per file (~8 s each).
    Skips with a message when the server is not installed."""
    from tests.support.label_studio_server import BIN_ENV, DEFAULT_BIN, server_binary, start_local_server

    if server_binary() is None:
        pytest.skip(f"the Label Studio server is not installed ({DEFAULT_BIN}; run .ci/install-label-studio "
                    f"or set {BIN_ENV})")
    server = start_local_server(tmp_path_factory.mktemp("label-studio"))
    try:
        yield server
    finally:
        server.stop()
        assert server.process.poll() is not None


def db_snapshot(path) -> dict:
    """Every table's full content, to assert a failed operation changed nothing."""
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        return {t: sorted(map(repr, con.execute(f'SELECT * FROM "{t}"').fetchall())) for t in tables}
    finally:
        con.close()


@pytest.fixture(autouse=True)
def _no_reads_kept_open():
    """The workbench keeps its read connection open between page runs
    (``keep_reads_open`` in ``workbench/app.py``); an AppTest runs the app
    in this process, so undo that after every test: a later test's plain
    ``duckdb.connect`` of a file would otherwise meet the idle connection."""
    yield
    from audit.store.turns import keep_reads_open

    keep_reads_open(0)


def database_before(path, version: int):
    """A DuckDB file at ``path`` migrated up to, not including, migration
    ``version`` (as an older release left it), for migration tests; returns
    the open ``duckdb`` connection (the caller inserts old rows and closes)."""
    import duckdb

    from audit.store._migrate import migrations

    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, "
                "applied_at TIMESTAMP NOT NULL DEFAULT now())")
    for v, name, sql in migrations():
        if v < version:
            con.execute(sql)
            con.execute("INSERT INTO schema_version (version, name) VALUES (?, ?)", [v, name])
    return con


# Scheduling.  xdist (--dist=loadfile) hands whole files to its workers in
# the order of its queue; with --no-loadscope-reorder (pyproject.toml) that
# queue is the collection order set here: the files that took longest in a
# recorded run first (tests/file_durations.json: seconds per file, setup +
# call + teardown), the rest after them in their usual order.  Longest first
# keeps a long file from starting last while the other worker runs dry.
# `python3 -m pytest --file-durations tests/file_durations.json` records a run.
FILE_DURATIONS = Path(__file__).with_name("file_durations.json")
_seconds_per_file: dict[str, float] = {}


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_addoption(parser):
    parser.addoption("--file-durations", metavar="PATH", default=None,
                     help="write each test file's seconds (setup + call + teardown) to PATH as JSON; "
                          "tests/file_durations.json orders the files of later runs, longest first")


def pytest_collection_modifyitems(session, config, items):
    import json

    try:
        known = json.loads(FILE_DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(_file_of(item.nodeid), i)
    items.sort(key=lambda item: (-float(known.get(_file_of(item.nodeid), 0.0)), first[_file_of(item.nodeid)]))


def pytest_runtest_logreport(report):
    f = _file_of(report.nodeid)
    _seconds_per_file[f] = _seconds_per_file.get(f, 0.0) + report.duration


def pytest_sessionfinish(session):
    import json

    out = session.config.getoption("--file-durations", default=None)
    if not out or hasattr(session.config, "workerinput"):   # written once, by the controller
        return
    ranked = sorted(_seconds_per_file.items(), key=lambda kv: -kv[1])
    Path(out).write_text(json.dumps({f: round(s, 1) for f, s in ranked}, indent=0) + "\n", encoding="utf-8")
