"""Every ``audit …`` command quoted in the README and the docs exists, with
the options it is quoted with: read from the code spans and code blocks of
every page and checked against the command tree itself (the sqlite-utils
``test_commands_are_documented`` idea, turned the other way)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer

from audit.cli import app

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_SPAN = re.compile(r"`([^`\n]+)`")
_SPLIT = re.compile(r"\|\||&&|[|;\n]|\$\(")


def _code(text: str) -> list[str]:
    blocks = _FENCE.findall(text)
    rest = _FENCE.sub("", text)
    return [b.replace("\\\n", " ") for b in blocks] + _SPAN.findall(rest)


def quoted_commands(text: str) -> list[str]:
    """The ``audit …`` invocations in a page's code."""
    out = []
    for code in _code(text):
        for part in _SPLIT.split(code):
            part = part.split("#", 1)[0].strip()
            m = re.match(r"^(?:\w+=\S+\s+)*(audit\s.*)$", part)
            if m:
                out.append(m.group(1))
    return out


def check(command: str, root) -> str | None:
    """None when *command* names a real command and only its options; else why
    not.  (Typer vendors its own click: groups are recognised by ``.commands``.)"""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    words = [w.strip("[]…,") for w in words[1:]]
    cmd, path = root, ["audit"]
    while hasattr(cmd, "commands") and words and not words[0].startswith("-"):
        sub = cmd.commands.get(words[0])
        if sub is None:
            if re.fullmatch(r"[A-Z][A-Z_.]*|\.\.\.", words[0]) or words[0] in ("…", ""):
                break   # a placeholder such as COMMAND
            return f"no command '{' '.join(path + [words[0]])}'"
        cmd, path, words = sub, path + [words[0]], words[1:]
    options = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
    for w in words:
        if w.startswith("-") and len(w) > 1 and not re.fullmatch(r"-?\d+(\.\d+)?", w):
            name = w.split("=", 1)[0]
            if name not in options:
                return f"'{' '.join(path)}' has no option {name}"
    return None


def test_the_check_finds_a_missing_command_and_a_missing_option():
    root = typer.main.get_command(app)
    assert check("audit import questions x.csv --benchmark b", root) is None
    assert check("audit docs serve", root) == "no command 'audit docs'"
    assert check("audit report --benchmark b --colour", root) == "'audit report' has no option --colour"
    assert quoted_commands("run `audit demo`, then\n```bash\necho x | audit review add -b demo --as r\n```") == [
        "echo x | audit review add -b demo --as r".split("| ", 1)[1], "audit demo"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_quoted_command_exists_with_its_options(page):
    root = typer.main.get_command(app)
    bad = [f"{c}: {why}" for c in quoted_commands(page.read_text(encoding="utf-8")) if (why := check(c, root))]
    assert not bad, "\n".join(bad)
