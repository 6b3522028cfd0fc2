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


@pytest.fixture(scope="session")
def db_template(tmp_path_factory, migrated_template):
    """``db_template(build)``: the path of a migrated database filled by
    ``build(db, folder)`` (``folder`` holds any input files it writes), built
    once per test session and never written to afterwards.  A fixture that
    used to build the same database for every test copies this file instead
    (``tests.support.common.copy_db``): a copy takes milliseconds, an import
    or a few Argon2 hashes take seconds."""
    built: dict = {}

    def template(build) -> Path:
        if build not in built:
            folder = tmp_path_factory.mktemp(f"template-{build.__name__.strip('_')}")
            path = folder / "template.duckdb"
            shutil.copyfile(migrated_template, path)
            with pytest.MonkeyPatch.context() as mp:   # built from the same environment every time
                for var in ("WORKBENCH_LEADS", "WORKBENCH_SECRET"):
                    mp.delenv(var, raising=False)
                build(path, folder)
            built[build] = path
        return built[build]

    return template


def _demo(db, _folder):
    from audit.demo import build_demo

    build_demo(db)


@pytest.fixture(scope="session")
def demo_db(db_template) -> Path:
    """The demo database (``audit.demo.build_demo``), built once per test
    session instead of once per test file (seconds each); never written to:
    copy it (``tests.support.common.copy_db``)."""
    return db_template(_demo)


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


def _typer_shape(typer_instance) -> tuple:
    """What Typer builds the click command from: the registered commands,
    groups and callback, recursively (a command registered later changes it)."""
    return (len(typer_instance.registered_commands), id(typer_instance.registered_callback),
            tuple((id(g.typer_instance), _typer_shape(g.typer_instance)) for g in typer_instance.registered_groups
                  if g.typer_instance is not None))


@pytest.fixture(autouse=True, scope="session")
def _cli_built_once():
    """Typer turns the ``audit`` app into its click command tree on every
    call of ``app()`` or ``CliRunner.invoke`` (about 0.2 s, a third of an
    in-process ``audit`` command in the tests, which run hundreds of them).  The tree depends
    only on what is registered, so within a test session it is built once
    per shape of the app and reused; each call still parses its own
    arguments in a fresh click context."""
    import typer.main

    original = typer.main.get_command
    built: dict = {}

    def get_command(typer_instance):
        key = (id(typer_instance), _typer_shape(typer_instance))
        if key not in built:
            built[key] = original(typer_instance)
        return built[key]

    import typer.testing  # CliRunner.invoke holds its own reference

    typer.main.get_command = typer.testing._get_command = get_command
    try:
        yield
    finally:
        typer.main.get_command = typer.testing._get_command = original


@pytest.fixture(autouse=True, scope="session")
def _streamlit_components_scanned_once():
    """Every ``AppTest`` run asks Streamlit for the installed custom
    components, which reads the metadata of every installed distribution
    (over a second each time, a quarter of an AppTest test).  What is
    installed does not change during a test session, so the scan runs once
    and later runs get the same list.  Nothing is patched when no test module
    imported Streamlit."""
    import sys

    if "streamlit" not in sys.modules:
        yield
        return
    from streamlit.components.v2 import manifest_scanner

    original = manifest_scanner.scan_component_manifests
    found: list = []

    def scan_component_manifests(*args, **kwargs):
        if not found:
            found.append(original(*args, **kwargs))
        return list(found[0])

    manifest_scanner.scan_component_manifests = scan_component_manifests
    try:
        yield
    finally:
        manifest_scanner.scan_component_manifests = original


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


# Tiers.  A plain `python -m pytest` is the fast suite: every test that runs
# takes a few seconds at most and needs no browser, Label Studio or
# PostgreSQL.  The rest is opt-in (.ci/run passes both flags):
#   --runslow     tests marked `slow` (over ~5 s each on a 2-core machine);
#   --runservers  tests marked `browser`, `label_studio` or `postgres`.
# A test with both kinds of mark needs both flags.  Skipped tests say which
# flag runs them.
SERVER_MARKS = ("browser", "label_studio", "postgres")


def _missing_flags(item, config) -> list[str]:
    missing = []
    if not config.getoption("--runslow") and item.get_closest_marker("slow") is not None:
        missing.append("--runslow")
    if not config.getoption("--runservers") and any(item.get_closest_marker(m) is not None for m in SERVER_MARKS):
        missing.append("--runservers")
    return missing


# Scheduling.  xdist (--dist=loadfile) hands whole files to its workers in
# the order of its queue; with --no-loadscope-reorder (pyproject.toml) that
# queue is the collection order set here: the files whose tests took longest
# in a recorded run first (tests/durations.json: seconds per test, setup +
# call + teardown, summed over the tests this run does not skip), the rest
# after them in their usual order.  Longest first keeps a long file from
# starting last while the other worker runs dry.
# `python3 -m pytest --runslow --runservers --record-durations tests/durations.json`
# records a full run.
DURATIONS = Path(__file__).with_name("durations.json")
_seconds_per_test: dict[str, float] = {}


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run the tests marked slow (over ~5 s each)")
    parser.addoption("--runservers", action="store_true", default=False,
                     help="also run the tests that start a browser, Label Studio or PostgreSQL "
                          "(marked browser, label_studio, postgres)")
    parser.addoption("--record-durations", metavar="PATH", default=None,
                     help="write each test's seconds (setup + call + teardown) to PATH as JSON; "
                          "tests/durations.json orders the files of later runs, longest first")


def pytest_xdist_auto_num_workers(config):
    """One worker per core, and one more when the slow and server tests run
    too: those spend much of their time waiting on Chromium, the servers and
    child processes, time a further worker fills (at most 4, as
    ``--maxprocesses`` says)."""
    cores = os.cpu_count() or 1
    extra = 1 if config.getoption("runslow") and config.getoption("runservers") else 0
    return min(cores + extra, 4)


def pytest_collection_modifyitems(session, config, items):
    import json

    runs = []
    for item in items:
        missing = _missing_flags(item, config)
        if missing:
            item.add_marker(pytest.mark.skip(reason=f"needs {' and '.join(missing)}"))
        else:
            runs.append(item)
    try:
        known = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    seconds: dict[str, float] = {}
    for item in runs:
        f = _file_of(item.nodeid)
        seconds[f] = seconds.get(f, 0.0) + float(known.get(item.nodeid, 0.0))
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        first.setdefault(_file_of(item.nodeid), i)
    items.sort(key=lambda item: (-seconds.get(_file_of(item.nodeid), 0.0), first[_file_of(item.nodeid)]))


def pytest_runtest_logreport(report):
    _seconds_per_test[report.nodeid] = _seconds_per_test.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    import json

    out = session.config.getoption("--record-durations", default=None)
    if not out or hasattr(session.config, "workerinput"):   # written once, by the controller
        return
    # Tests under 0.05 s are left out: a missing test counts as 0 s.
    kept = sorted(((t, round(s, 1)) for t, s in _seconds_per_test.items() if s >= 0.05), key=lambda kv: (-kv[1], kv[0]))
    Path(out).write_text(json.dumps(dict(kept), indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
