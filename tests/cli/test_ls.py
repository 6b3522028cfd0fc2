"""audit.cli.ls: ``audit ls …`` (Label Studio sync) through the Typer app on
a real DuckDB file, without a server — --help of each command, the argument
helpers (tiers, queue filters, the summary printer), ``status`` of a
recorded project printing the library's status and never the token,
``rejected`` with nothing rejected, and every command that needs a server
refusing in one line that names the fix when no URL is set.  The pushes and
pulls against a real server: tests/test_label_studio*.py."""
from dataclasses import dataclass, field

import duckdb
import pytest

from audit.cli.ls import _filters, _print, _tiers
from audit.sync import ls_status
from tests.support.cli import invoke, run_main

LS_COMMANDS = ["connect", "push", "pull", "sync", "status", "rejected", "webhook"]
TOKEN = "tok-3f9a-very-secret"


@pytest.fixture(autouse=True)
def _no_server_settings(monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)


@pytest.mark.parametrize("name", LS_COMMANDS)
def test_help(name):
    r = invoke(["ls", name, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")


def test_tiers_default_to_one_and_two():
    assert _tiers(None, False) == (1, 2) and _tiers([], False) == (1, 2)
    assert _tiers([3, 1], False) == (3, 1) and _tiers([3], True) is None


def test_filters_keep_only_what_was_given():
    assert _filters(None, None, None, None) == {}
    assert _filters([], ["disputed"], False, None) == {"status": ["disputed"], "structure_suspect": False}
    assert _filters(["ཞིང་ལས།"], None, None, True) == {"subjects": ["ཞིང་ལས།"], "parallel_mismatch": True}


@dataclass
class _Summary:
    created: int
    by_tier: dict = field(default_factory=dict)
    projects: list = field(default_factory=list)


def test_print_flattens_one_level_and_hides_projects(capsys):
    _print(_Summary(3, {"1": 2, "2": 1}, [("u", 1, "t")]))
    assert capsys.readouterr().out == "created: 3\nby_tier:\n  1: 2\n  2: 1\n"
    _print({"a": None})
    assert capsys.readouterr().out == "a: None\n"


def test_status_without_and_with_a_project(db_path, monkeypatch):
    r = invoke(["ls", "status", "--db", db_path])
    assert r.output == "no Label Studio project connected; run 'audit ls connect'\n"
    con = duckdb.connect(str(db_path))
    con.execute("INSERT INTO ls_projects (url, project_id, title, label_config, connected_at) VALUES "
                "('http://127.0.0.1:8080', 7, 'Audit <tiny>', '<View/>', now())")
    con.close()
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", TOKEN)
    r = invoke(["ls", "status", "--db", db_path])
    assert r.exit_code == 0 and TOKEN not in r.output
    st = ls_status(db=db_path)
    lines = dict(line.split(": ", 1) for line in r.output.splitlines())
    assert lines["url"] == st.url == "http://127.0.0.1:8080" and lines["project_id"] == "7"
    assert lines["title"] == "Audit <tiny>" and lines["tasks"] == str(st.tasks) == "0"


def test_rejected_when_nothing_was_rejected(db_path):
    assert invoke(["ls", "rejected", "--db", db_path]).output == "no rejected annotations\n"


@pytest.mark.parametrize("args", [["connect"], ["push", "-b", "tiny"], ["pull"], ["sync"]], ids=" ".join)
def test_server_commands_without_a_url_are_one_line(db_path, args):
    r = run_main(["ls", *args, "--db", db_path])
    assert r.code == 1 and r.stdout == ""
    assert r.stderr == "error: no Label Studio URL: pass --url or set LABEL_STUDIO_URL\n"


def test_batch_size_must_be_positive(db_path):
    r = run_main(["ls", "push", "--batch-size", "0", "--db", db_path])
    assert r.code == 2 and "--batch-size" in r.stderr and "Traceback" not in r.stderr
