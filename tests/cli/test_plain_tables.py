"""Terminal tables: ``audit review list`` shows an empty cell where a value
is missing (never NaN or None), and ``audit report`` pads no column (nor its
header) to the width of one long text."""
from __future__ import annotations

import subprocess

import audit
from audit.store import connect
from audit.store.records import Option, Question
from tests.support.cli_process import run_audit


def _cli(*args: str) -> subprocess.CompletedProcess:
    return run_audit(args, module="audit", timeout=300)


def test_review_list_and_report_tables_are_plain(db_path):
    from audit.ingest.storing import store_questions

    db = db_path
    long = "x" * 700
    with connect(db) as con:
        store_questions(con, "b", "b", [Question("b", "q1", "?", [Option("A", "a"), Option("B", long)], "A")])
    audit.review.add_review("b", "q1", "Pema", "key_correct", db=db)     # no answer, cause or rationale
    r = _cli("review", "list", "--benchmark", "b", "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert "NaN" not in r.stdout and "None" not in r.stdout and "Pema" in r.stdout
    r = _cli("review", "status", "--benchmark", "b", "--all-tiers", "--format", "json", "--db", str(db))
    assert r.returncode == 0 and '"total": 1' in r.stdout, r.stderr
    r = _cli("review", "status", "--benchmark", "b", "--format", "yaml", "--db", str(db))
    assert r.returncode == 1 and r.stderr.strip().count("\n") == 0 and "choose table or json" in r.stderr
