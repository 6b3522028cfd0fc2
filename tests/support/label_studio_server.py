"""A local Label Studio server for the tests and benchmarks (and for trying the sync out).

The server (``label-studio`` 1.23.2, matching ``label-studio-sdk`` 2.1.2)
lives in its own virtual environment (``.ci/install-label-studio`` →
``.ls-venv``) because it pins Django, pyarrow and openai<2.  It is started on
127.0.0.1 with a fresh data directory, a known user and a legacy API token
(both only take effect on the first start of a data directory), and stopped
by its own process group.

The first start of a data directory runs the migrations (30–90 s); the
migrated directory is kept as a template next to the server install and
copied for later starts (~5 s).
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from audit.errors import AuditError

REPO = Path(__file__).resolve().parents[2]
BIN_ENV = "AUDIT_LABEL_STUDIO_BIN"
DEFAULT_BIN = REPO / ".ls-venv" / "bin" / "label-studio"
USERNAME = "audit-admin@example.com"
PASSWORD = "audit-local-pass-1"
# Fixed test token of the throw-away local server (it must match the template data dir).
TOKEN = "audittesttoken0123456789abcdef0123456789"
_CLEARED = ("PORT", "HOST", "USERNAME", "PASSWORD", "LABEL_STUDIO_USERNAME", "LABEL_STUDIO_PASSWORD",
            "LABEL_STUDIO_USER_TOKEN", "LABEL_STUDIO_PORT", "LABEL_STUDIO_HOST", "LABEL_STUDIO_BASE_DATA_DIR")


def server_binary() -> Path | None:
    """The ``label-studio`` executable ($AUDIT_LABEL_STUDIO_BIN or .ls-venv), None when absent."""
    p = Path(os.environ.get(BIN_ENV) or DEFAULT_BIN)
    return p if p.is_file() and os.access(p, os.X_OK) else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LocalServer:
    url: str
    token: str
    process: subprocess.Popen
    data_dir: Path
    log_path: Path

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the server's process group (SIGTERM, then SIGKILL)."""
        if self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout)
        except ProcessLookupError:
            pass


def _env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update({"LATEST_VERSION_CHECK": "false", "COLLECT_ANALYTICS": "false", "SENTRY_DSN": "",
                "FRONTEND_SENTRY_DSN": "", "SSRF_PROTECTION_ENABLED": "false", "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _start(binary: Path, data_dir: Path, port: int, log_path: Path, timeout: float,
           env: dict | None = None) -> LocalServer:
    cmd = [str(binary), "start", "--no-browser", "--internal-host", "127.0.0.1", "--port", str(port),
           "--username", USERNAME, "--password", PASSWORD, "--user-token", TOKEN, "--enable-legacy-api-token",
           "--data-dir", str(data_dir)]
    log_file = open(log_path, "wb")
    proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=_env(env), start_new_session=True, cwd=str(data_dir))
    log_file.close()
    server = LocalServer(f"http://127.0.0.1:{port}", TOKEN, proc, data_dir, log_path)
    deadline = time.monotonic() + timeout
    actual = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AuditError(f"Label Studio exited with code {proc.returncode} while starting; see {log_path}")
        if actual is None:
            m = re.search(rb"Starting development server at http://127\.0\.0\.1:(\d+)/", log_path.read_bytes())
            if m:
                actual = int(m.group(1))
                if actual != port:   # it silently moves on when the port is busy
                    server.url = f"http://127.0.0.1:{actual}"
        if actual is not None and _healthy(server.url):
            return server
        time.sleep(0.5)
    server.stop()
    raise AuditError(f"Label Studio did not become healthy within {timeout:.0f} s; see {log_path}")


def template_dir(binary: Path) -> Path:
    """Where the migrated template data dir is kept (next to the server install)."""
    return binary.resolve().parent.parent / "audit-template-data"


def start_local_server(work_dir: str | os.PathLike | None = None, *, port: int | None = None,
                       timeout: float = 240.0, use_template: bool = True, env: dict | None = None) -> LocalServer:
    """Start a fresh local Label Studio (copy of the migrated template, or a
    first start that migrates and then becomes the template).  ``env``: more
    environment for the server, e.g. ``DJANGO_DB=default`` and the
    ``POSTGRE_*`` variables of a PostgreSQL database, which the server
    migrates on its first start (the SQLite template is then not used)."""
    if env and env.get("DJANGO_DB", "sqlite") != "sqlite":
        use_template = False
    binary = server_binary()
    if binary is None:
        raise AuditError(f"the Label Studio server is not installed ({DEFAULT_BIN}); run .ci/install-label-studio "
                         f"or set {BIN_ENV}")
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="ls-"))
    work.mkdir(parents=True, exist_ok=True)
    data_dir = work / "data"
    template = template_dir(binary)
    fresh_template = False
    if use_template and (template / "label_studio.sqlite3").exists():
        shutil.copytree(template, data_dir)
    else:
        data_dir.mkdir()
        fresh_template = use_template
    server = _start(binary, data_dir, port or free_port(), work / "label-studio.log", timeout, env)
    if fresh_template:
        try:
            _save_template(data_dir, template)
        except OSError:
            pass   # e.g. a read-only install: later starts migrate again, nothing else changes
        except Exception:
            server.stop()
            raise
    return server


def _save_template(data_dir: Path, template: Path) -> None:
    """Snapshot the migrated database as the template (SQLite online backup,
    consistent while the server runs)."""
    import sqlite3

    tmp = template.with_name(template.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    src = sqlite3.connect(str(data_dir / "label_studio.sqlite3"))
    dst = sqlite3.connect(str(tmp / "label_studio.sqlite3"))
    with dst:
        src.backup(dst)
    src.close()
    dst.close()
    try:
        tmp.rename(template)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)   # another process made it first
