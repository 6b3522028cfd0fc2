"""Readers and writers of the DuckDB file taking turns, in this process and
across processes.

How DuckDB shares a file
    One process may hold the file read-write, or any number of processes
    read-only; a read-only open is refused while another process holds it
    read-write (and the reverse).  Inside one process DuckDB refuses a
    read-only and a read-write connection to the same file at the same time.

What :func:`connect` does about it
    * ``connect(db)`` (read-write) is a *writer*.  Writers take turns: inside
      one process through a per-file lock, across processes by retrying the
      open with exponential backoff and jitter (10 ms doubling to 0.5 s) until
      the file is free or the timeout passes — ``timeout=`` seconds, else
      ``$AUDIT_DB_TIMEOUT``, else 30 s (a finite number >= 0; NaN,
      Infinity or a negative value is refused with one line).  After 2 s of waiting one line
      ``waiting for the database FILE (held by PID n: command)`` goes to
      stderr (see :func:`set_wait_notice`); after the timeout a
      :class:`~audit.errors.DatabaseLockedError` names the holder.  A writer
      that is waiting on another process leaves a marker file
      ``FILE.wait`` beside the database (refreshed while it waits, ignored
      once 2 s old) so readers in other processes let go of the file and do
      not open it anew while the marker is fresh: writer preference, so a
      stream of overlapping reads never starves a writer.
    * ``connect(db, read_only=True)`` is a *reader*.  All readers of a file in
      one process (Streamlit sessions are threads) share ONE read-only DuckDB
      connection; each reader gets its own cursor, so readers never wait on
      each other.  Readers wait (same backoff and timeout) only for a writer.
      The shared connection is closed when the last reader leaves — or, after
      :func:`keep_reads_open` (the workbench), after that many idle seconds —
      and at once when a writer of this process or another one needs the file.
    * Nested use in one thread works: a reader or writer inside a writer gets
      a connection to the same database instance; a writer inside a reader of
      the same thread is refused (it would wait for itself).

Each operation should be short: open, work, close (``with connect() as con``).
"""
from __future__ import annotations

import fcntl
import math
import os
import random
import re
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import duckdb

from audit._util.redact import redact
from audit._util.sql import NO_AUTOLOAD, sql_str
from audit.errors import AuditError, DatabaseLockedError
from audit.store._migrate import migrate

DEFAULT_TIMEOUT = 30.0
TIMEOUT_ENV = "AUDIT_DB_TIMEOUT"
NOTICE_AFTER = 2.0
_BACKOFF_START, _BACKOFF_MAX = 0.01, 0.5
_MARKER_FRESH = 2.0   # a writer's .wait marker older than this is ignored (the writer died)


def db_timeout(timeout: float | None = None) -> float:
    """Seconds a reader or writer waits for the file: *timeout*, else
    ``$AUDIT_DB_TIMEOUT``, else 30.

    >>> db_timeout(5)
    5.0
    """
    if timeout is not None:
        value = float(timeout)
        if not math.isfinite(value) or value < 0:
            raise AuditError(f"the database timeout must be a finite number of seconds >= 0, not {timeout!r}")
        return value
    env = os.environ.get(TIMEOUT_ENV, "").strip()
    if env:
        try:
            value = float(env)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            raise AuditError(f"${TIMEOUT_ENV} must be a finite number of seconds >= 0, not {env!r}")
        return value
    return DEFAULT_TIMEOUT


def _stderr_notice(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


_notice: Callable[[str], None] = _stderr_notice


def set_wait_notice(fn: Callable[[str], None] | None) -> None:
    """Where the "waiting for the database" line goes (default: stderr);
    ``None`` restores the default."""
    global _notice
    _notice = fn or _stderr_notice


_read_idle = 0.0
_IDLE_POLL = 0.25   # an idle kept-open read connection looks for waiting writers this often


def keep_reads_open(seconds: float) -> None:
    """Keep this process's shared read-only connection open for *seconds*
    after the last reader left (the workbench: saves reopening the file on
    every page).  A writer of this process closes it at once; a writer in
    another process waiting for the file makes the next read, or within
    a quarter of a second the idle connection itself, let go.  0 (default)
    closes it as soon as the last reader leaves, and closes the idle ones
    now (so that another program, or a plain ``duckdb.connect`` of this
    one, can open the file)."""
    global _read_idle
    _read_idle = max(0.0, float(seconds))
    if _read_idle <= 0:
        with _STATES_GUARD:
            states = list(_STATES.values())
        for state in states:
            with state.cond:
                if state.readers == 0:
                    state.close_read()


_HOLDER = re.compile(r"held in (.*?) \(PID (\d+)\)")


def _holder(message: str) -> str:
    """'PID 123: audit import questions x.csv' from DuckDB's lock message."""
    m = _HOLDER.search(message)
    if not m:
        return "another program"
    pid = m.group(2)
    cmd = _command(int(pid)) or os.path.basename(m.group(1))
    return f"PID {pid}: {cmd}" if cmd else f"PID {pid}"


def _command(pid: int) -> str:
    """The command line of *pid*, shortened ('audit import questions x.csv')
    and redacted (:func:`audit._util.redact.redact`: ``--api-key VALUE``
    becomes ``--api-key ***``): it is shown to whoever waits for the file
    and written into ``FILE.lock``, readable by others."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = [a.decode("utf-8", "replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return ""
    argv = [os.path.basename(argv[0])] + argv[1:] if argv else []
    if len(argv) > 1 and argv[0].startswith("python") and argv[1] not in ("-c", "-m"):
        argv = [os.path.basename(argv[1])] + argv[2:]
    return (redact(" ".join(" ".join(argv).split())) or "")[:120]


def _is_lock_error(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


#: DuckDB's memory for one process's connections to a file, unless
#: ``$AUDIT_DB_MEMORY_LIMIT`` says otherwise.  Past it DuckDB spills joins,
#: aggregates and sorts to :func:`temp_directory` instead of growing: with
#: Python, Arrow and NumPy on top, an import or analysis of 100 M
#: predictions stays under 3 GB of peak RSS (``tests/bench/bench_scale_curve.py``).
DEFAULT_MEMORY_LIMIT = "1GB"
MEMORY_LIMIT_ENV = "AUDIT_DB_MEMORY_LIMIT"
TEMP_DIR_ENV = "AUDIT_DB_TEMP_DIR"
THREADS_ENV = "AUDIT_DB_THREADS"


def temp_directory(path: str | os.PathLike) -> Path:
    """Where DuckDB spills for the database *path*: ``$AUDIT_DB_TEMP_DIR``,
    else ``FILE.tmp`` beside the database (DuckDB's own default for a file,
    made explicit: the disk the data is on, not a small ``/tmp``).

    >>> temp_directory("/data/x.duckdb").name
    'x.duckdb.tmp'
    """
    env = os.environ.get(TEMP_DIR_ENV, "").strip()
    return Path(env) if env else Path(str(path) + ".tmp")


def connection_config(path: str | os.PathLike) -> dict[str, Any]:
    """The DuckDB settings every connection to *path* is opened with:
    ``memory_limit`` (:data:`DEFAULT_MEMORY_LIMIT` or
    ``$AUDIT_DB_MEMORY_LIMIT``), ``temp_directory`` (:func:`temp_directory`)
    and, with ``$AUDIT_DB_THREADS``, ``threads`` (default: DuckDB's, one per
    core).  Insertion order stays preserved (results without ORDER BY keep
    the stored order that some readers rely on).

    >>> sorted(connection_config("/data/x.duckdb"))
    ['memory_limit', 'temp_directory']
    """
    config: dict[str, Any] = {
        "memory_limit": os.environ.get(MEMORY_LIMIT_ENV, "").strip() or DEFAULT_MEMORY_LIMIT,
        "temp_directory": str(temp_directory(path)),
    }
    threads = os.environ.get(THREADS_ENV, "").strip()
    if threads:
        try:
            n = int(threads)
        except ValueError:
            n = 0
        if n < 1:
            raise AuditError(f"${THREADS_ENV} must be a whole number >= 1, not {threads!r}")
        config["threads"] = n
    return config


def _with_settings(con, path) -> Any:
    """Apply :func:`connection_config` to a new connection with ``SET``.

    Not through ``duckdb.connect(config=…)``: DuckDB shares one database
    instance per file within a process and refuses a second connection
    whose config differs from the first one's (the workbench under
    Streamlit's AppTest, or a notebook holding a plain ``duckdb.connect``,
    open the same file in one process).  The settings are the instance's,
    so setting them again is idempotent; a temporary folder already in use
    by the instance cannot be switched and is left as it is.  Extension
    auto-install and auto-load are switched off first (:data:`audit._util.sql.NO_AUTOLOAD`):
    nothing a connection reads may make DuckDB download code."""
    for name, value in NO_AUTOLOAD.items():
        con.execute(f"SET {name} = {str(value).lower()}")
    for name, value in connection_config(path).items():
        try:
            con.execute(f"SET {name} = {sql_str(value)}" if name != "threads" else f"SET threads = {int(value)}")
        except duckdb.Error as exc:
            if name == "memory_limit" and os.environ.get(MEMORY_LIMIT_ENV, "").strip():
                con.close()
                first = (str(exc).strip().splitlines() or [""])[0].split("Error: ", 1)[-1]
                raise AuditError(f"${MEMORY_LIMIT_ENV} must be a memory size such as 1GB or 512MB, not "
                                 f"{value!r} ({first})") from None
            if name != "temp_directory":
                con.close()
                raise
    return con


def _open_error(path: Path, exc: BaseException) -> AuditError:
    if isinstance(exc, duckdb.ConnectionException):
        return AuditError(
            f"the database {path} is already open in this process in another mode ({exc}); "
            "close the outer connection before opening it again")
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return AuditError(f"{path}: cannot open the database: {msg} (is it a DuckDB file, and complete?)")


#: A "waiting for the database" line is not repeated for the same file and
#: holder while this process waited on them less than this many seconds ago.
NOTICE_REPEAT_AFTER = 10.0
_NOTICED: dict[tuple[str, str], float] = {}   # (file, holder) -> last moment this process waited on it
_NOTICED_GUARD = threading.Lock()
_PID = re.compile(r"\bPID (\d+)")


def _holder_key(holder: str) -> str:
    """The holder's PID ('PID 123: audit …' and 'PID 123' are one holder)."""
    m = _PID.search(holder)
    return m.group(1) if m else holder


class _Waiter:
    """Backoff with jitter, the 2-second notice and the deadline."""

    def __init__(self, path: Path, timeout: float | None):
        self.path = path
        self.timeout = db_timeout(timeout)
        self.start = time.monotonic()
        self.delay = _BACKOFF_START
        self.noticed = False

    def remaining(self) -> float:
        return self.timeout - (time.monotonic() - self.start)

    def expired(self) -> bool:
        return self.remaining() <= 0

    def notice(self, holder: str) -> None:
        """Called on every retry: says once, after NOTICE_AFTER seconds, that
        this process waits — and not again for the same file and holder
        while this process keeps waiting on them (a command or a page that
        waits to read and then to write, or reads three times, shows one
        line, not one per connection)."""
        now = time.monotonic()
        key = (str(self.path), _holder_key(holder))
        with _NOTICED_GUARD:
            if self.noticed:
                _NOTICED[key] = now          # still waiting on the holder announced
                return
            if now - self.start < NOTICE_AFTER:
                return
            self.noticed = True
            last = _NOTICED.get(key)
            _NOTICED[key] = now
            if last is not None and now - last < NOTICE_REPEAT_AFTER:
                return                        # the same wait, announced moments ago
        _notice(redact(f"waiting for the database {self.path} (held by {holder}); "
                       f"giving up after {self.timeout:g} s") or "")

    def sleep(self) -> None:
        time.sleep(min(self.delay * (0.5 + random.random()), max(self.remaining(), 0.0)))
        self.delay = min(self.delay * 2, _BACKOFF_MAX)

    def locked(self, holder: str) -> DatabaseLockedError:
        return DatabaseLockedError(
            f"the database {self.path} is in use by {holder} (for example an 'audit' command that is still "
            f"running); gave up after waiting {self.timeout:g} s (set ${TIMEOUT_ENV} to wait longer)")


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".wait")


def _foreign_writer_waiting(path: Path) -> bool:
    try:
        return time.time() - _marker(path).stat().st_mtime < _MARKER_FRESH
    except OSError:
        return False


def _queue_file(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


class _WriterQueue:
    """Writers of all processes queue on an advisory ``flock`` of ``FILE.lock``
    (the kernel wakes a waiter the moment the holder leaves, so no turn is
    lost sleeping).  The blocking ``flock`` runs in a helper thread so the
    wait keeps its deadline and its 2-second notice."""

    def __init__(self, path: Path, waiter: _Waiter):
        self.path = _queue_file(path)
        self.waiter = waiter
        self.fd: int | None = None

    def _who(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8").strip() or "another program"
        except OSError:
            return "another program"

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            return   # read-only folder: fall back to retrying the open alone
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fd = self._wait(fd)
        self.fd = fd
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"PID {os.getpid()}: {_command(os.getpid())}".encode("utf-8", "replace"), 0)
        except OSError:
            pass

    def _wait(self, fd: int) -> int:
        got = threading.Event()
        guard = threading.Lock()
        state = {"cancelled": False}

        def block() -> None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                return
            with guard:
                if state["cancelled"]:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)
                else:
                    got.set()

        threading.Thread(target=block, name="audit-db-queue", daemon=True).start()
        while not got.wait(min(0.25, max(self.waiter.remaining(), 0.001))):
            if self.waiter.expired():
                with guard:
                    if not got.is_set():
                        state["cancelled"] = True
                        raise self.waiter.locked(self._who())
                break
            self.waiter.notice(self._who())
        return fd

    def release(self) -> None:
        if self.fd is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            finally:
                os.close(self.fd)
                self.fd = None


def _open_waiting(path: Path, read_only: bool, waiter: _Waiter) -> duckdb.DuckDBPyConnection:
    """duckdb.connect, retried while another process holds the file.

    Writer preference: a reader does not open the file while a writer of
    another process is waiting for it (its fresh ``FILE.wait`` marker), so
    a stream of overlapping reads cannot keep a writer out; the readers
    already in finish, the file comes free, the writer goes first."""
    marked = False
    try:
        while True:
            if read_only and _foreign_writer_waiting(path):
                if waiter.expired():
                    raise waiter.locked("a writer waiting for it")
                waiter.notice("a writer waiting for it")
                waiter.sleep()
                continue
            try:
                return _with_settings(duckdb.connect(str(path), read_only=read_only), path)
            except (duckdb.IOException, duckdb.ConnectionException) as exc:
                if not _is_lock_error(exc):
                    raise _open_error(path, exc) from None
                holder = _holder(str(exc))
                if waiter.expired():
                    raise waiter.locked(holder) from None
                if not read_only:
                    try:   # ask readers in other processes to let go
                        _marker(path).touch()
                        marked = True
                    except OSError:
                        pass
                waiter.notice(holder)
                waiter.sleep()
            except duckdb.Error as exc:
                raise _open_error(path, exc) from None
    finally:
        if marked:
            try:
                _marker(path).unlink()
            except OSError:
                pass


class _FileState:
    """Readers and writers of one database file in this process."""

    def __init__(self, path: Path):
        self.path = path
        self.cond = threading.Condition()
        self.readers = 0                      # active reader blocks, all threads
        self.reader_threads: dict[int, int] = {}
        self.writer: int | None = None        # thread ident holding the write turn
        self.writer_depth = 0
        self.waiting_writers = 0
        self.draining = False                 # a writer elsewhere waits: no new reads on the open connection
        self.read_con: duckdb.DuckDBPyConnection | None = None
        self.open_lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.idle_until = 0.0                 # an idle read connection closes at this time.monotonic()

    # -- the shared read connection (called with cond held or no readers)
    def close_read(self) -> None:
        with self.open_lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.read_con is not None:
                try:
                    self.read_con.close()
                finally:
                    self.read_con = None

    def _idle_close(self) -> None:
        """Timer tick while the read connection is idle: close it when it has
        been idle long enough or a writer in another process is waiting (so a
        connection kept open never makes a command wait), else look again."""
        with self.cond:
            self.timer = None
            if self.readers or self.read_con is None:
                return
            if time.monotonic() >= self.idle_until or _foreign_writer_waiting(self.path):
                self.close_read()
            else:
                self._arm_idle()

    def _arm_idle(self) -> None:
        """(cond held) Look again in a moment."""
        self.timer = threading.Timer(min(_IDLE_POLL, max(0.0, self.idle_until - time.monotonic())), self._idle_close)
        self.timer.daemon = True
        self.timer.start()

    def _busy_holder(self) -> str:
        return "another thread of this program"

    # -- readers
    @contextmanager
    def read(self, timeout: float | None) -> Iterator[duckdb.DuckDBPyConnection]:
        me = threading.get_ident()
        waiter = _Waiter(self.path, timeout)
        with self.cond:
            if self.writer == me:        # a read inside this thread's write: same instance
                nested_in_write = True
            else:
                nested_in_write = False
                if not self.reader_threads.get(me):
                    if self.read_con is not None and self.readers and _foreign_writer_waiting(self.path):
                        self.draining = True
                    while self.writer is not None or self.waiting_writers or self.draining:
                        if self.draining and self.readers == 0:
                            self.close_read()
                            self.draining = False
                            break
                        if waiter.expired():
                            raise waiter.locked(self._busy_holder())
                        waiter.notice(self._busy_holder())
                        self.cond.wait(min(0.2, max(waiter.remaining(), 0.001)))
                    if self.read_con is not None and self.readers == 0 and _foreign_writer_waiting(self.path):
                        self.close_read()
                self.readers += 1
                self.reader_threads[me] = self.reader_threads.get(me, 0) + 1
                if self.timer is not None:
                    self.timer.cancel()
                    self.timer = None
        if nested_in_write:
            con = _open_waiting(self.path, False, waiter)
            try:
                yield con
            finally:
                con.close()
            return
        try:
            with self.open_lock:
                if self.read_con is None:
                    self.read_con = _open_waiting(self.path, True, waiter)
                cur = self.read_con.cursor()
        except BaseException:
            self._leave_read(me)
            raise
        try:
            yield cur
        finally:
            try:
                cur.close()
            finally:
                self._leave_read(me)

    def _leave_read(self, me: int) -> None:
        with self.cond:
            self.readers -= 1
            n = self.reader_threads.get(me, 1) - 1
            if n:
                self.reader_threads[me] = n
            else:
                self.reader_threads.pop(me, None)
            if self.readers == 0:
                if _read_idle <= 0 or self.waiting_writers or self.draining or _foreign_writer_waiting(self.path):
                    self.close_read()
                    self.draining = False
                elif self.read_con is not None:
                    self.idle_until = time.monotonic() + _read_idle
                    self._arm_idle()
            self.cond.notify_all()

    # -- writers
    @contextmanager
    def write(self, timeout: float | None) -> Iterator[duckdb.DuckDBPyConnection]:
        me = threading.get_ident()
        waiter = _Waiter(self.path, timeout)
        with self.cond:
            if self.writer == me:
                self.writer_depth += 1
            else:
                if self.reader_threads.get(me):
                    raise AuditError(
                        f"the database {self.path} is open for reading in this thread; close that connection "
                        "before writing")
                self.waiting_writers += 1
                try:
                    while self.writer is not None or self.readers:
                        if waiter.expired():
                            raise waiter.locked(self._busy_holder())
                        waiter.notice(self._busy_holder())
                        self.cond.wait(min(0.2, max(waiter.remaining(), 0.001)))
                finally:
                    self.waiting_writers -= 1
                self.writer = me
                self.writer_depth = 1
                self.close_read()
        queue = _WriterQueue(self.path, waiter) if self.writer_depth == 1 else None
        try:
            if queue is not None:
                queue.acquire()
            con = _open_waiting(self.path, False, waiter)
            try:
                if self.writer_depth == 1:
                    migrate(con)
                yield con
            finally:
                con.close()
        finally:
            if queue is not None:
                queue.release()
            with self.cond:
                self.writer_depth -= 1
                if self.writer_depth == 0:
                    self.writer = None
                self.cond.notify_all()


_STATES: dict[str, _FileState] = {}
_STATES_GUARD = threading.Lock()


def file_state(path: Path) -> _FileState:
    key = str(path.resolve())
    with _STATES_GUARD:
        st = _STATES.get(key)
        if st is None:
            st = _STATES[key] = _FileState(Path(key))
        return st


__all__ = ["db_timeout", "set_wait_notice", "keep_reads_open", "connection_config", "temp_directory", "file_state"]
