"""``audit`` for shell scripts in the tests (the README and tutorial blocks):
hands this process's arguments, environment, working folder, umask and
standard streams to the command server of :mod:`tests.support.cli_process`
and exits with the command's code, or dies by the same signal.

Run as ``python -S tests/support/cli_forward.py ARGS…`` with
``$AUDIT_TEST_CLI_SOCKET`` naming the server and ``$AUDIT_TEST_CLI_STARTUP``
holding what the server was started with (JSON); when this environment
differs in what Python reads at start-up (a ``PYTHON…`` variable, the
locale, the time zone), it runs ``python -m audit`` itself instead.  Only
the standard library is imported, so it starts in a few milliseconds.
"""
import json
import os
import signal
import socket
import sys

SOCKET_ENV, STARTUP_ENV = "AUDIT_TEST_CLI_SOCKET", "AUDIT_TEST_CLI_STARTUP"
STARTUP_VARS = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_PRELOAD", "LD_LIBRARY_PATH")


def startup_view(env, cwd):
    """The variables Python or the C library read once at start-up."""
    view = {k: v for k, v in env.items() if k.startswith("PYTHON") or k in STARTUP_VARS}
    if "PYTHONPATH" in view:   # the same folders, however written
        view["PYTHONPATH"] = os.pathsep.join(os.path.realpath(os.path.join(cwd, p))
                                             for p in view["PYTHONPATH"].split(os.pathsep) if p)
    return view


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def call(path, module, args, env, cwd, fds, timeout=None):
    """Run ``python -m MODULE ARGS`` through the server at *path* with the
    standard streams *fds*: (pid, exit code as :mod:`subprocess` gives it),
    the code None when the server went away first.  A timeout raises
    :class:`TimeoutError` carrying the command's ``pid``, for the caller to
    stop it."""
    request = {"module": module, "args": list(args), "env": env, "cwd": cwd, "umask": current_umask()}
    pid = code = None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], list(fds))
        conn.settimeout(timeout)
        try:
            for line in conn.makefile("rb"):
                message = json.loads(line)
                pid = message.get("pid", pid)
                if "code" in message:
                    code = message["code"]
                    break
        except TimeoutError as exc:   # socket.timeout is TimeoutError
            exc.pid = pid
            raise
    return pid, code


def main(args):
    env = dict(os.environ)
    path, startup = env.pop(SOCKET_ENV, ""), env.pop(STARTUP_ENV, "")
    cwd = os.getcwd()
    if not path or not startup or startup_view(env, cwd) != json.loads(startup):
        os.execve(sys.executable, [sys.executable, "-m", "audit", *args], env)
    _, code = call(path, "audit", args, env, cwd, [0, 1, 2])
    if code is None:
        sys.exit("audit: the command server stopped before the command ended")
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
