"""Every command of the `audit` CLI has help text and answers --help."""

import pytest
import typer.main
from typer.testing import CliRunner

from audit.cli import app
from tests.support.cli_process import run_audit


def _walk(cmd, path=()):
    yield path, cmd
    if hasattr(cmd, "commands"):  # a group (typer vendors its own click)
        for name, sub in cmd.commands.items():
            yield from _walk(sub, path + (name,))


def test_every_command_has_help():
    root = typer.main.get_command(app)
    runner = CliRunner()
    commands = list(_walk(root))
    assert len(commands) > 30
    for path, cmd in commands:
        assert (cmd.help or "").strip(), f"'audit {' '.join(path)}' has no help text"
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "Usage" in result.output


@pytest.mark.slow
def test_user_error_is_one_line_and_exit_1(tmp_path):
    out = run_audit(["report", "--benchmark", "nope", "--db", str(tmp_path / "none.duckdb")],
                    timeout=120, module="audit")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert not (tmp_path / "none.duckdb").exists()


def test_usage_error_is_a_message_not_a_traceback():
    out = run_audit(["import", "tlue"], timeout=120, module="audit")
    assert out.returncode == 2
    assert "Missing argument" in out.stderr and "Traceback" not in out.stderr
