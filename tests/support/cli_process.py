"""The real ``audit`` command in a process of its own, as a user runs it
from a shell, without paying its start-up imports on every call.

:func:`run_audit` takes what :func:`subprocess.run` takes and returns the
same :class:`subprocess.CompletedProcess`.  The command runs in a new
process forked from a server (:mod:`tests.support.cli_server`, one per test
worker) that imported pandas, DuckDB and the package once: the process has
the caller's arguments, environment, working folder, umask and standard
streams, and the real entry point decides its output and exit code.

A real ``python -m audit.cli`` is started instead when the environment
changes something Python reads only at start-up (a ``PYTHON…`` variable,
the locale, the time zone, a preloaded library), when standard input is a
file object rather than text, or when ``$AUDIT_TEST_SPAWN=1`` (to compare
the two: the suite must pass either way).
"""
from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from tests.support.cli_forward import SOCKET_ENV, STARTUP_ENV, call, startup_view

REPO = Path(__file__).resolve().parents[2]
SPAWN_ENV = "AUDIT_TEST_SPAWN"

_lock = threading.Lock()
_server: tuple[subprocess.Popen, str, dict[str, str]] | None = None   # (process, socket, start-up view)


def _start_server() -> tuple[subprocess.Popen, str, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    path = os.path.join(tempfile.mkdtemp(prefix="audit-cli-"), "s")
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.cli_server", path], env=env, cwd=REPO,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if line.strip() != "ready":
        proc.kill()
        raise RuntimeError(f"the test command server did not start (exit {proc.wait()})")
    atexit.register(proc.kill)
    return proc, path, startup_view(env, REPO)


def _running_server() -> tuple[subprocess.Popen, str, dict[str, str]]:
    global _server
    with _lock:
        if _server is None or _server[0].poll() is not None:
            _server = _start_server()
        return _server


def _server_for(env: dict[str, str], cwd) -> str | None:
    """The running server's socket, or None when *env* needs a real start-up."""
    if os.environ.get(SPAWN_ENV) == "1":
        return None
    _, path, startup = _running_server()
    return path if startup_view(env, cwd) == startup else None


def shell_command() -> tuple[str, dict[str, str]]:
    """What a shell script's ``audit`` should run, and the variables it
    needs: :mod:`tests.support.cli_forward` through the server, or
    ``python -m audit`` when calls are spawned."""
    if os.environ.get(SPAWN_ENV) == "1":
        return f'exec "{sys.executable}" -m audit "$@"', {}
    _, path, startup = _running_server()
    forward = REPO / "tests" / "support" / "cli_forward.py"
    return f'exec "{sys.executable}" -S "{forward}" "$@"', {SOCKET_ENV: path, STARTUP_ENV: json.dumps(startup)}


def _decode(data: bytes, text: bool):
    if not text:
        return data
    # what subprocess's text mode gives: universal newlines
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def run_audit(args, *, module: str = "audit.cli", input: str | bytes | None = None,
              env: dict[str, str] | None = None, cwd=None, timeout: float | None = None,
              text: bool = True) -> subprocess.CompletedProcess:
    """``python -m MODULE ARGS…`` with output captured (see the module docstring)."""
    env = dict(os.environ if env is None else env)
    env.setdefault("PYTHONPATH", str(REPO))
    cmd = [sys.executable, "-m", module, *map(str, args)]
    cwd = os.path.abspath(cwd or os.getcwd())
    path = _server_for(env, cwd)
    if path is None or not isinstance(input, (str, bytes, type(None))):
        return subprocess.run(cmd, input=input, capture_output=True, text=text, env=env, cwd=cwd,
                              timeout=timeout)
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        if input is not None:
            fin.write(input.encode() if isinstance(input, str) else input)
            fin.seek(0)
        stdin_fd = fin.fileno() if input is not None else 0
        try:
            _, code = call(path, module, cmd[3:], env, cwd, [stdin_fd, fout.fileno(), ferr.fileno()], timeout)
        except TimeoutError as exc:
            if getattr(exc, "pid", None) is not None:
                try:
                    os.kill(exc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            fout.seek(0)
            ferr.seek(0)
            raise subprocess.TimeoutExpired(cmd, timeout or 0, _decode(fout.read(), text),
                                            _decode(ferr.read(), text)) from None
        if code is None:   # the server's monitor went away before it could say
            code = -signal.SIGKILL
        fout.seek(0)
        ferr.seek(0)
        return subprocess.CompletedProcess(cmd, code, _decode(fout.read(), text), _decode(ferr.read(), text))
