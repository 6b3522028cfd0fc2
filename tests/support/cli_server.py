"""The server behind :func:`tests.support.cli_process.run_audit`: a process
that has imported the ``audit`` command's modules once and forks for every
call.

For each call it forks a monitor, which forks the command's process and
tells the client that process's pid and then its exit code, as
:mod:`subprocess` reports it (negative when a signal killed it).  The
command's process becomes what ``python -m audit.cli ARGS`` would be: the
caller's standard input, output and error (file descriptors passed over a
Unix socket), environment, working folder and umask; ``sys.argv`` and
``__main__`` set by :mod:`runpy` as ``-m`` sets them; and the interpreter's
exit (exit code, traceback, atexit handlers).  What it skips is the
~0.8 s of importing pandas, DuckDB, pyarrow and the package, which the fork
inherits.  Run as ``python -m tests.support.cli_server SOCKET``; it prints
``ready`` once it listens and exits when its parent (the test worker) is
gone.
"""
from __future__ import annotations

import io
import json
import os
import signal
import socket
import sys
import threading

#: Imported before the first fork besides every module of the package: what
#: the command line itself imports on its first call.  Nothing that starts a
#: thread at import time may be preloaded (a fork carries only the forking
#: thread); litellm and the Label Studio SDK are imported by the functions
#: that use them, so importing the package leaves both out.
PRELOAD = ("pandas", "numpy", "pyarrow", "duckdb", "typer._adapters", "pydantic")


def _preload() -> None:
    import importlib
    import pkgutil

    import audit

    for name in PRELOAD:
        importlib.import_module(name)
    for module in pkgutil.walk_packages(audit.__path__, "audit."):
        if not module.name.endswith(".__main__"):
            importlib.import_module(module.name)
    _build_command_once()
    if threading.active_count() != 1:
        raise SystemExit(f"cli_server: preloading started {threading.active_count() - 1} thread(s); "
                         "a fork would not carry them")


def _build_command_once() -> None:
    """Typer builds the click command tree from the app on every call (a
    tenth of a second); build it here, so each fork starts with it built.
    Only the ``audit`` app's own tree is kept; each call still parses its
    arguments in a fresh click context."""
    import typer.main

    from audit.cli import app

    original = typer.main.get_command
    built = original(app)
    typer.main.get_command = lambda instance: built if instance is app else original(instance)


def _stream(fd: int, template: io.TextIOWrapper, env: dict[str, str], mode: str) -> io.TextIOWrapper:
    """A text stream on *fd* with the encoding Python would choose at start-up."""
    encoding, errors = template.encoding, template.errors
    spec = env.get("PYTHONIOENCODING", "")
    if spec:
        enc, _, err = spec.partition(":")
        encoding, errors = enc or encoding, err or errors
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    raw = io.open(fd, mode + "b", buffering=0 if unbuffered and mode == "w" else -1, closefd=False)
    return io.TextIOWrapper(raw, encoding=encoding, errors="backslashreplace" if fd == 2 else errors,
                            line_buffering=os.isatty(fd) or fd == 2, write_through=unbuffered)


def _exit_code(code: object) -> int:
    """What the interpreter makes of ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _command(fds: list[int], request: dict) -> None:
    """Become ``python -m MODULE ARGS`` and exit as the interpreter would:
    the code of ``SystemExit``, a traceback and 1 for an error, death by
    SIGINT after a ``KeyboardInterrupt``; then the non-daemon threads are
    joined, the atexit handlers run and the standard streams flushed (120
    when stdout cannot be).  Tearing down every module, which costs a
    fifth of a second and changes nothing a caller sees, is skipped."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    env = request["env"]
    sys.stdin = sys.__stdin__ = _stream(0, sys.__stdin__, env, "r")
    sys.stdout = sys.__stdout__ = _stream(1, sys.__stdout__, env, "w")
    sys.stderr = sys.__stderr__ = _stream(2, sys.__stderr__, env, "w")
    import atexit
    import runpy

    sys.argv = [request["module"], *request["args"]]
    interrupted = False
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
        interrupted, code = isinstance(exc, KeyboardInterrupt), 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        code = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def _monitor(conn: socket.socket, fds: list[int], request: dict) -> None:
    """Start the command as a child and tell the client its pid, then its
    exit code as :mod:`subprocess` gives it (negative: killed by a signal)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _command(fds, request)   # never returns
    try:
        for fd in fds:
            os.close(fd)
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        _, status = os.waitpid(pid, 0)
        conn.sendall(json.dumps({"code": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
    finally:
        os._exit(0)


def serve(path: str) -> None:
    _preload()
    parent = os.getppid()
    # the monitors are reaped by the kernel; each resets this before starting the command
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    listener.settimeout(1.0)
    print("ready", flush=True)
    while os.getppid() == parent:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        conn.settimeout(10)
        try:
            data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            while not data.endswith(b"\n"):
                more = conn.recv(1 << 16)
                if not more:
                    raise ValueError("the request ended early")
                data += more
            request = json.loads(data)
        except (OSError, ValueError):
            conn.close()
            continue
        conn.settimeout(None)
        if os.fork() == 0:
            listener.close()
            _monitor(conn, fds, request)   # never returns
        for fd in fds:
            os.close(fd)
        conn.close()


if __name__ == "__main__":
    serve(sys.argv[1])
