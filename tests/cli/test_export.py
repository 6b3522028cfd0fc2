"""audit.cli.export: ``audit export create|diff|list|policies|publish``
through the Typer app on a real DuckDB file with settled verdicts — --help
of each, the dry run's counts and table equal to the library's preview, the
policies listed, a real version written, listed and diffed (slow: it writes
every release file), and refusals as one line on stderr with exit code 1
that names the fix (publishing without a token never reaches the network)."""
import shutil

import pytest

from audit._util.terminal import frame_text
from audit.export import diff_versions, list_policies, preview_version
from audit.review import add_review
from tests.support.cli import invoke, run_main
from tests.support.tiny import analysed_tiny, rows

COMMANDS = [["export", c] for c in ("create", "diff", "list", "policies", "publish")]


@pytest.fixture(scope="module")
def reviewed(migrated_template, tmp_path_factory):
    db = analysed_tiny(migrated_template, tmp_path_factory.mktemp("cli_export"))
    add_review("tiny", "q9", "lead", "key_wrong", corrected_answer="B", cause="key_slip", is_adjudication=True, db=db)
    add_review("tiny", "q12", "lead", "defective", is_adjudication=True, db=db)
    return db


@pytest.fixture
def db(reviewed, tmp_path):
    path = tmp_path / "e.duckdb"
    shutil.copyfile(reviewed, path)
    return path


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help(cmd):
    r = invoke([*cmd, "--help"])
    assert r.exit_code == 0 and r.output.startswith("Usage: ")


def test_policies_are_the_librarys():
    r = invoke(["export", "policies"])
    assert r.output.splitlines() == [f"{p.name}: {p.description}" for p in list_policies().itertuples()]


def test_dry_run_prints_the_preview_and_writes_nothing(db, tmp_path):
    r = invoke(["export", "create", "-b", "tiny", "-v", "1.1", "--dry-run", "--exports-dir", tmp_path / "ex",
                "--db", db])
    assert r.exit_code == 0
    df = preview_version("tiny", db=db, version="1.1")
    c = df.attrs["counts"]
    first, *table = r.output.splitlines()
    assert first == (f"tiny 1.1 under policy 'default' would have {c['corrected']} corrected, {c['excluded']} "
                     f"excluded, {c['unchanged']} unchanged, {c['reviewed']} reviewed of {c['items']} items "
                     "(nothing written)")
    assert (c["corrected"], c["excluded"], c["items"]) == (1, 1, 12)
    assert "\n".join(table) == frame_text(df)
    assert not (tmp_path / "ex").exists()
    assert rows(db, "SELECT count(*) FROM key_versions") == [(0,)]


@pytest.mark.slow
def test_create_list_and_diff(db, tmp_path):
    ex = tmp_path / "ex"
    r = invoke(["export", "create", "-b", "tiny", "-v", "1.1", "--exports-dir", ex, "--db", db])
    assert r.exit_code == 0 and r.output.startswith("created tiny 1.0 (original keys) first; created tiny 1.1")
    assert (ex / "tiny" / "1.1" / "manifest.json").exists()
    r = invoke(["export", "list", "tiny", "--verify", "--db", db])
    assert r.exit_code == 0 and [l.split()[0] for l in r.output.splitlines()[1:]] == ["1.0", "1.1"]
    r = invoke(["export", "diff", "tiny", "1.0", "1.1", "--db", db])
    assert r.output == frame_text(diff_versions("tiny", "1.0", "1.1", db=db)) + "\n"
    out = tmp_path / "d.csv"
    r = invoke(["export", "diff", "tiny", "1.0", "1.1", "-f", "csv", "-o", out, "--db", db])
    assert r.output == f"written to {out}\n" and out.read_text(encoding="utf-8-sig").count("\n") == 3


@pytest.mark.slow
def test_list_verify_of_intact_versions_is_future_proof(db, tmp_path):
    import warnings

    from audit.export import create_version

    create_version("tiny", "1.1", db=db, exports_dir=tmp_path / "ex")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = invoke(["export", "list", "tiny", "--verify", "--db", db])
    assert r.exit_code == 0


def test_list_of_a_benchmark_without_versions(db):
    r = invoke(["export", "list", "tiny", "--db", db])
    assert r.exit_code == 0 and r.output == "(none)\n"


@pytest.mark.parametrize("args,message", [
    (["export", "diff", "tiny", "1.0", "7.0"], "'tiny' has no version 1.0; see 'audit export list tiny'"),
    (["export", "create", "-b", "tiny", "-v", "1.1", "-p", "nope", "--dry-run"], "nope"),
    (["export", "create", "-b", "nope", "-v", "1.1", "--dry-run"], "nope"),
    (["export", "list", "tiny", "-f", "xlsx"], "unknown format 'xlsx' (choose table or csv)"),
    (["export", "publish", "-b", "tiny", "-v", "1.1", "--repo", "org/name"], "environment variable HF_TOKEN"),
])
def test_refusals_are_one_line(db, args, message, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    r = run_main([*args, "--db", db])
    assert r.code == 1 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ") and message in r.stderr
