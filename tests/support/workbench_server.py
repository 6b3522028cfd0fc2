"""A real ``streamlit run workbench/app.py`` on a free 127.0.0.1 port, and
Debian's Chromium for Playwright: shared by the browser test modules."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import pytest

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "workbench" / "app.py"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def workbench_server(db: Path, *, extra_args: Sequence[str] = (), port: int | None = None) -> Iterator[str]:
    """The app on ``db`` (its log beside it); yields the base URL once
    healthy, stops the server by its pid afterwards.  ``extra_args`` go to
    ``streamlit run`` (e.g. ``--secrets.files PATH``)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    port = port or free_port()
    env = {**os.environ, "AUDIT_DB": str(db), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.pop("WORKBENCH_PASSCODE", None)
    log_path = db.parent / "streamlit.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none", *extra_args],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail("streamlit exited: " + log_path.read_text(errors="replace"))
            try:
                with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("the workbench did not become healthy within 60 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@contextmanager
def chromium() -> Iterator[object]:
    """Debian's Chromium launched through Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


# Streamlit's own run state (stApp's data-test-script-state) says "notRunning",
# no status widget, no skeleton placeholder, and all of it for ``ms`` in a row
# (a component's rerun just after the first run ends resets the count): polled
# on every frame instead of fixed sleeps before and after.
_SETTLED = """(ms) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const ok = !!app && app.dataset.testScriptState === 'notRunning'
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !document.querySelector('[data-testid="stSkeleton"]');
  const now = performance.now();
  if (!ok) { window.__wbSettledSince = null; return false; }
  if (window.__wbSettledSince == null) window.__wbSettledSince = now;
  return now - window.__wbSettledSince >= ms;
}"""


def wait_settled(page, ms: int = 300, timeout: float = 60_000) -> None:
    """Wait until the page's script run is over and every element is drawn
    (no skeleton placeholder), and has stayed so for ``ms`` milliseconds."""
    page.evaluate("() => { window.__wbSettledSince = null; }")
    page.wait_for_function(_SETTLED, arg=ms, timeout=timeout)
