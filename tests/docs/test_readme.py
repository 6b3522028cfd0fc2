"""Every code block of the README runs.

The blocks are read from README.md and run as written, in order, in one
``bash`` shell (``set -euo pipefail``: a failing command fails the test), with
the real ``audit`` entry point of this checkout on the ``PATH``, ``$AUDIT_DB``
and ``$AUDIT_EXPORTS`` in a temporary folder, and ``../shared/data`` reaching
the reference data; a ``python`` block runs in that shell as ``python3 -``.
The tutorial's blocks run the same way (``tests/docs/test_tutorial.py``).

Three set-up blocks cannot run inside the test suite as they stand, so each
has its own test that runs what it can:

- ``pip install -e . && streamlit run workbench/app.py``: the install is
  resolved with ``--dry-run`` (the suite runs on an installed checkout), then
  the workbench is started on a fresh machine's empty database, headless on a
  free port, and Chromium signs in with the demo account the README names and
  follows the *Get help* menu item to the reviewer's guide;
- ``pip install -e '.[docs]' && mkdocs serve``: the install likewise, then the
  site is served on a free port and its home and reviewer's guide load;
- ``bash .ci/run`` is CI itself (it runs this test): checked to exist and
  to end with the README's test command.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tests.support.cli_process import shell_command

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP_WORKBENCH = "pip install -e . && streamlit run workbench/app.py"
SETUP_DOCS = "pip install -e '.[docs]' && mkdocs serve"
SETUP_CI = "bash .ci/run"
SET_UP = {SETUP_WORKBENCH, SETUP_DOCS, SETUP_CI}


def code_blocks(markdown: str) -> list[tuple[str, str, int]]:
    """(language, code, line) of every fenced block of a Markdown page."""
    out = []
    for m in re.finditer(r"^```(\w*)[^\n]*\n(.*?)^```", markdown, re.S | re.M):
        out.append((m.group(1), m.group(2), markdown.count("\n", 0, m.start()) + 1))
    return out


def shell_script(blocks: list[tuple[str, str, int]], source: str) -> str:
    """One bash script running *blocks* in order (python blocks through
    ``python3 -``), announcing each block on stderr."""
    parts = ["set -euo pipefail"]
    for i, (lang, code, line) in enumerate(blocks):
        parts.append(f"echo '>>> {source}:{line} (block {i + 1})' >&2")
        if lang == "python":
            tag = "PYTHON_BLOCK_END"
            assert tag not in code
            parts.append(f"python3 - <<'{tag}'\n{code}{tag}")
        elif lang in ("bash", "sh", "shell"):
            parts.append(code)
        else:
            raise AssertionError(f"{source}:{line}: a '{lang}' block cannot be run")
    return "\n".join(parts) + "\n"


def run_blocks(blocks, source: str, work: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run *blocks* in ``work`` with this checkout's ``audit`` and Python
    first on the PATH; ``work/../shared`` leads to the reference data."""
    shim = work.parent / "bin"
    shim.mkdir(exist_ok=True)
    audit, audit_env = shell_command()
    for name, line in (("audit", audit), ("python3", f'exec "{sys.executable}" "$@"')):
        p = shim / name
        p.write_text(f"#!/bin/sh\n{line}\n")
        p.chmod(0o755)
    shared = work.parent / "shared"
    if not shared.exists() and SHARED_DATA.exists():
        shared.symlink_to(SHARED_DATA.parent)
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "AUDIT_DB": str(work / "audit.duckdb"), "AUDIT_EXPORTS": str(work / "exports"), **audit_env}
    env.pop("LABEL_STUDIO_API_KEY", None)
    script = shell_script(blocks, source)
    return subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _readme_blocks():
    return [b for b in code_blocks(README) if b[1].strip() not in SET_UP]


def test_readme_is_short_and_names_its_set_up():
    assert README.count("\n") <= 150, f"README.md has {README.count(chr(10))} lines (at most 150)"
    codes = {b[1].strip() for b in code_blocks(README)}
    assert SET_UP <= codes, f"the README's set-up blocks changed: {sorted(SET_UP - codes)}"
    for lang, code, line in _readme_blocks():
        assert lang in ("bash", "python"), f"README.md:{line}: a '{lang}' block"
    # the sign-in the README promises is the demo's
    from audit.demo import DEMO_ACCOUNTS
    assert any(f"`{name}`" in README and f"`{password}`" in README for name, _, password in DEMO_ACCOUNTS)


def test_ci_run_ends_with_the_readme_test_command():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m pytest --runslow --runservers" in README
    last = [ln.strip() for ln in run.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert "python3 -m pytest --runslow --runservers < /dev/null" in last[-4:], last[-4:]


@pytest.mark.slow
def test_readme_code_blocks_run(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    blocks = _readme_blocks()
    needs_shared = [b for b in blocks if "shared/data" in b[1]]
    if needs_shared and not SHARED_DATA.exists():
        pytest.skip(f"README blocks at lines {[b[2] for b in needs_shared]} need the reference data {SHARED_DATA}")
    assert len(blocks) >= 2
    r = run_blocks(blocks, "README.md", work)
    assert r.returncode == 0, r.stderr[-3000:]
    # what the quick start says it does
    assert (work / "exports" / "demo" / "1.1" / "DATASHEET.md").exists()
    assert "review 1 saved: demo/bo-multiplication-016 key_wrong" in r.stdout
    assert "review 2 saved: demo/bo-multiplication-016 key_wrong" in r.stdout
    # the quick start exports a version that corrects the key the two reviewers agree on
    assert "created demo 1.1 (parent 1.0, policy 'default'): 1 corrected" in r.stdout, r.stdout[-2000:]
    import json

    exported = (work / "exports" / "demo" / "1.1" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["answer"] for line in exported
            if json.loads(line)["id"] == "bo-multiplication-016"] == ["A"]    # 55 × 42 = 2310, option A
    assert "'items': 300" in r.stdout  # the Python example


def _pip_part(cmd: str) -> None:
    """The README's ``pip install …`` part, resolved with ``--dry-run``: the
    package and its extras resolve on this interpreter, and nothing is
    installed (the tests already run on an installed checkout; reinstalling
    it under parallel test workers would pull it from under them)."""
    args = [a.strip("'") for a in cmd.split("&&")[0].split()[1:]]
    assert args[0] == "install", cmd
    r = subprocess.run([sys.executable, "-m", "pip", *args, "--dry-run", "--no-deps", "--disable-pip-version-check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "Would install answer-key-audit" in r.stdout, (r.stdout + r.stderr)[-2000:]


def _wait_http(url: str, proc: subprocess.Popen, log: Path, seconds: float = 180) -> bytes:
    deadline = time.monotonic() + seconds
    while True:
        if proc.poll() is not None:
            pytest.fail(f"exited: {log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.read()
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"{url} did not answer: {log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)


def _docs_answer(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=0.3) as r:
            return r.status == 200
    except Exception:  # noqa: BLE001 - nothing there
        return False


@pytest.mark.slow
@pytest.mark.browser
def test_readme_set_up_opens_the_demo_and_signs_in(tmp_path, monkeypatch):
    from tests.support.workbench_server import APP, chromium, workbench_server

    _pip_part(SETUP_WORKBENCH)
    # workbench_server runs `python -m streamlit run workbench/app.py` (headless, a free port)
    assert SETUP_WORKBENCH.split("&&")[1].split() == ["streamlit", "run", APP.relative_to(ROOT).as_posix()]
    monkeypatch.delenv("AUDIT_DOCS_URL", raising=False)
    # a fresh machine: no database yet, so the app builds the demo with its accounts
    with workbench_server(tmp_path / "workbench.duckdb") as base:
        name, password = re.search(r"name `(\w+)`, password `([\w-]+)`", README).groups()
        with chromium() as browser:
            ctx = browser.new_context()
            page = ctx.new_page()
            page.set_default_timeout(120_000)  # the first page run builds the demo database
            page.goto(base)
            page.get_by_text("Demo data.").first.wait_for()
            page.get_by_label("Name", exact=True).fill(name)
            page.get_by_label("Password", exact=True).fill(password)
            page.get_by_role("button", name="Sign in").click()
            page.get_by_role("heading", name="Review queue").wait_for()
            assert page.get_by_text(f"Signed in as {name}").count() >= 1
            # the help menu opens the reviewer's guide (docs/install.md): with no documentation site
            # served (no $AUDIT_DOCS_URL, nothing at 127.0.0.1:8000), the workbench's own /help page
            page.get_by_test_id("stMainMenu").click()
            with page.expect_popup() as opened:
                page.get_by_role("menuitem", name="Get help").click()
            if _docs_answer("http://127.0.0.1:8000/reviewers/"):   # someone runs `mkdocs serve` here
                assert opened.value.url == "http://127.0.0.1:8000/reviewers/", opened.value.url
            else:
                assert opened.value.url == base + "/help", opened.value.url
                opened.value.get_by_role("heading", name="Reviewer's guide").wait_for()


@pytest.mark.slow
def test_readme_docs_command_serves_the_site(tmp_path):
    from tests.support.workbench_server import free_port

    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    _pip_part(SETUP_DOCS)
    port = free_port()
    mkdocs = SETUP_DOCS.split("&&")[1].split()
    log = tmp_path / "mkdocs.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", *mkdocs, "--dev-addr", f"127.0.0.1:{port}"],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        home = _wait_http(f"http://127.0.0.1:{port}/", proc, log, seconds=400).decode()
        assert "Answer-key audit workbench" in home
        guide = _wait_http(f"http://127.0.0.1:{port}/reviewers/", proc, log).decode()
        assert "img/reviewers/item-en.png" in guide.replace("../", "")
    finally:
        proc.kill()  # the dev server holds no state
        proc.wait()
