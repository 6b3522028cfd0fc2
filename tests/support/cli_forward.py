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


def main(args):
    env = dict(os.environ)
    path, startup = env.pop(SOCKET_ENV, ""), env.pop(STARTUP_ENV, "")
    cwd = os.getcwd()
    if not path or not startup or startup_view(env, cwd) != json.loads(startup):
        os.execve(sys.executable, [sys.executable, "-m", "audit", *args], env)
    mask = os.umask(0)
    os.umask(mask)
    request = {"module": "audit", "args": args, "env": env, "cwd": cwd, "umask": mask}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        code = None
        for line in conn.makefile("rb"):
            code = json.loads(line).get("code", code)
    if code is None:
        sys.exit("audit: the command server stopped before the command ended")
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
