"""`audit --help` starts without the heavy libraries (lazy imports), and
`audit --db PATH COMMAND` works like `audit COMMAND --db PATH`.

Timing itself is a benchmark (tests/bench/bench_cli_start.py prints it);
here the test checks the cause of a slow start: which modules a real
`audit --help` process imports."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.support.analyze_data import run_cli

HEAVY = ("pandas", "duckdb", "scipy", "statsmodels", "litellm", "pyarrow", "numpy", "rich", "streamlit")

_PROBE = """
import json, sys
sys.argv = ["audit", *json.loads(sys.argv[1])]
from audit.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print(json.dumps(sorted(m for m in %r if m in sys.modules)), file=sys.stderr)
""" % (HEAVY,)


def _heavy_imported(*args: str) -> tuple[list[str], str]:
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(list(args))], capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    return json.loads(out.stderr.strip().splitlines()[-1]), out.stdout


def test_help_imports_no_heavy_library():
    loaded, out = _heavy_imported("--help")
    assert "Usage: audit" in out and "review" in out
    assert loaded == [], f"`audit --help` imported {loaded}"
    loaded, out = _heavy_imported("judge", "--help")
    assert "Usage: audit judge" in out and loaded == []


def test_the_probe_sees_imports():
    # the same probe on a command that reads the database does load DuckDB
    loaded, _ = _heavy_imported("report", "--benchmark", "x", "--db", "/nonexistent/x.duckdb")
    assert "duckdb" in loaded


def test_db_before_the_command(tmp_path):
    db = tmp_path / "a.duckdb"
    r = run_cli("--db", db, "init")
    assert r.returncode == 0 and str(db) in r.stdout and db.exists()
    # in a nested group too, and --db after the command still wins
    r = run_cli("--db", tmp_path / "other.duckdb", "review", "list", "--benchmark", "nope", "--db", db)
    assert r.returncode == 1 and "no benchmark named 'nope'" in r.stderr
    assert not (tmp_path / "other.duckdb").exists()
    r = run_cli("--db", db, "models", "list")
    assert r.returncode == 0, r.stderr


def test_lazy_package_keeps_the_public_names():
    import audit

    assert set(audit.__all__) >= {"model_metrics", "create_version", "add_review", "import_questions", "connect",
                                  "corrected_key_accuracy", "normalize_label", "AuditError"}
    assert audit.review.bias_vs_accuracy.__module__ == "audit.review.judges"
    assert audit.analyze.__name__ == "audit.analyze"  # the sub-package, not a function
    ns: dict = {}
    exec("from audit import *", ns)
    assert ns["model_metrics"] is audit.model_metrics
