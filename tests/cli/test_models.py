"""audit.cli.models: ``audit init`` and ``audit models list|set-family|import``
through the Typer app on a real DuckDB file — --help of each, the printed
list equal to the library's, families set one by one and from a file, and
user errors as one line on stderr with exit code 1."""
import pytest

from audit._util.terminal import frame_text
from audit.ingest import list_models
from audit.store import init_db
from tests.support.cli import invoke, run_main
from tests.support.tiny import rows, tiny_benchmark

COMMANDS = [["init"], ["models", "list"], ["models", "set-family"], ["models", "import"]]


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help(cmd):
    r = invoke([*cmd, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")


def test_init_creates_and_upgrades(tmp_path):
    db = tmp_path / "new.duckdb"
    r = invoke(["init", "--db", db])
    assert r.exit_code == 0 and r.output == f"database ready: {db}\n" and db.exists()
    assert invoke(["init", "--db", db]).output == f"database ready: {init_db(db)}\n"


def test_list_set_family_and_import(db_path, tmp_path):
    assert invoke(["models", "list", "--db", db_path]).output == "no models yet\n"
    tiny_benchmark(db_path, tmp_path / "w", n=3, answers={"gpt-4o": "ABC", "my-bo-model": "ABD"})
    r = invoke(["models", "list", "--db", db_path])
    assert r.output == frame_text(list_models(db=db_path)) + "\n"
    r = invoke(["models", "set-family", "my-bo-model", "qwen", "--db", db_path])
    assert r.exit_code == 0 and r.output == "my-bo-model: family = qwen\n"
    f = tmp_path / "fam.csv"
    f.write_text("name,family,provider\ngpt-4o,openai,azure\nnew-model,meta,\n", encoding="utf-8")
    r = run_main(["models", "import", str(f), "--db", str(db_path)])   # an unknown model: refused, nothing set
    assert r.code == 1 and "no model named 'new-model'" in r.stderr
    f.write_text("name,family,provider\ngpt-4o,openai,azure\nmy-bo-model,qwen,\n", encoding="utf-8")
    r = invoke(["models", "import", f, "--db", db_path])
    assert r.output == "2 model families set\n"
    assert rows(db_path, "SELECT name, family, provider, family_source FROM models WHERE family_source = 'set' "
                         "ORDER BY name") == [("gpt-4o", "openai", "azure", "set"),
                                              ("my-bo-model", "qwen", None, "set")]
    r = invoke(["models", "list", "-b", "tiny", "--db", db_path])
    assert r.output == frame_text(list_models(db=db_path, benchmark="tiny")) + "\n"
    assert "new-model" not in r.output           # no predictions on tiny


@pytest.mark.parametrize("args,message", [
    (["models", "list", "-b", "nope"], "no benchmark named 'nope'"),
    (["models", "set-family", "m", " "], "family must not be empty"),
    (["models", "import", "missing.csv"], "missing.csv: file not found"),
])
def test_user_errors_are_one_line(db_path, args, message):
    r = run_main([*args, "--db", db_path])
    assert r.code == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr


def test_usage_error_is_exit_2():
    r = run_main(["models", "set-family", "only-a-name"])
    assert r.code == 2 and "Missing argument" in r.stderr and "Traceback" not in r.stderr
