"""audit.cli.demo: ``audit demo`` through the Typer app on a real DuckDB file
— its --help, the summary it prints matching what the library built (items,
models, predictions, injected wrong keys, tiers, the demo accounts), a second
run changing nothing, and a database holding more than the demo refused in
one line that names the fix."""
import re

import pytest

from audit.demo import DEMO_ACCOUNTS, demo_truth
from tests.support.cli import invoke, run_main
from tests.support.tiny import rows, tiny_benchmark


def test_help():
    r = invoke(["demo", "--help"])
    assert r.exit_code == 0 and "--seed" in r.output and "--db" in r.output


@pytest.mark.slow
def test_builds_prints_and_is_idempotent(tmp_path):
    db = tmp_path / "demo.duckdb"
    r = invoke(["demo", "--db", db])
    assert r.exit_code == 0
    m = re.search(r"demo database (.+): (\d+) items, (\d+) models, (\d+) predictions, (\d+) injected wrong keys",
                  r.output)
    assert m and m.group(1) == str(db)
    n_items, n_models, n_preds, n_wrong = map(int, m.groups()[1:])
    assert rows(db, "SELECT count(*), (SELECT count(DISTINCT model) FROM predictions), "
                    "(SELECT count(*) FROM predictions) FROM questions") == [(n_items, n_models, n_preds)]
    assert n_wrong == sum(bool(t.get("injected_key_error")) for t in demo_truth(db=db).values()) > 0
    tiers = dict(re.findall(r"(tier\d) = (\d+)", r.output))
    assert sum(map(int, tiers.values())) == n_items
    for name, role, password in DEMO_ACCOUNTS:
        assert f"{name} / {password} ({role})" in r.output
    again = invoke(["demo", "--db", db])
    assert again.exit_code == 0 and again.output == f"{db} already has the demo benchmark ({n_items} items); " \
                                                    "nothing changed\n"


def test_refuses_a_database_holding_more_than_the_demo(db_path, tmp_path):
    tiny_benchmark(db_path, tmp_path / "w", n=2)
    r = run_main(["demo", "--db", db_path])
    assert r.code == 1 and r.stdout == "" and r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"error: {db_path} holds more than the demo")
    assert "use e.g. --db data/demo.duckdb" in r.stderr
    assert rows(db_path, "SELECT count(*) FROM questions") == [(2,)]
