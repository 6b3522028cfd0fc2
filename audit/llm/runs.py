"""Run bookkeeping in the database: which process owns a run, its totals,
runs left `running` by a process that died."""
from __future__ import annotations

import os
import socket
from typing import Any, Iterable


def _alive(pid: int | None, host: str | None) -> bool:
    if pid is None or host != socket.gethostname():
        return host is not None and host != socket.gethostname()  # another machine: cannot tell, keep it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def correct_stale_runs(con: Any, table: str, where: str, params: list, by_run: int | None = None) -> int:
    """Mark runs of ``table`` (``judge_runs`` or ``predict_runs``) matching
    ``where`` that are still 'running' but whose process is gone as
    'killed' (a SIGKILL or power loss leaves them so).  Returns how many."""
    rows = con.execute(f"SELECT run_id, pid, host FROM {table} WHERE status = 'running' AND {where}",
                       params).fetchall()
    stale = [r[0] for r in rows if not _alive(r[1], r[2])]
    for run_id in stale:
        note = "the process stopped without finishing (killed); status corrected" + (
            f" by run {by_run}" if by_run is not None else "")
        con.execute(f"UPDATE {table} SET status = 'killed', stop_reason = ? WHERE run_id = ?", [note, run_id])
    return len(stale)


def update_run(con: Any, table: str, run_id: int, totals_allowed: Iterable[str], *, status: str | None = None,
               stop_reason: str | None = None, finished: bool = False, **totals: Any) -> None:
    """Set totals (absolute values) of a ``table`` run row, and optionally its
    status, stop reason and finishing time."""
    sets, params = [], []
    for k, v in totals.items():
        if k not in totals_allowed:
            raise ValueError(f"unknown {table} total {k!r}")
        sets.append(f"{k} = ?")
        params.append(v)
    if status is not None:
        sets.append("status = ?")
        params.append(status)
    if stop_reason is not None:
        sets.append("stop_reason = ?")
        params.append(stop_reason)
    if finished:
        sets.append("finished_at = now()")
    if sets:
        con.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE run_id = ?", [*params, run_id])


def usage_lines(summary: Any) -> list[str]:
    """The lines a predict or judge run summary ends with: tokens, cost and
    time, the status, the first errors."""
    cost = "unknown (no price for this model)" if summary.cost_usd is None else f"${summary.cost_usd:.4f}"
    return [f"tokens {summary.prompt_tokens} in / {summary.completion_tokens} out · cost {cost} · "
            f"{summary.elapsed_s:.1f} s",
            f"status: {summary.status}" + (f" ({summary.stop_reason})" if summary.stop_reason else ""),
            *(f"  error: {e}" for e in summary.errors)]


def note_errors(errors: list[str], failed: Iterable[dict], keep: int = 5) -> None:
    """Append to ``errors`` one line per failed call (item, error type,
    attempts, the message cut at 200 characters) until it holds ``keep``:
    a run's summary shows the first few, the run table keeps the count.

    >>> out = []
    >>> note_errors(out, [{"item": {"question_id": "q1"}, "error_type": "timeout", "attempts": 3, "message": "slow"}])
    >>> out
    ['q1: timeout after 3 attempt(s): slow']
    """
    for e in failed:
        if len(errors) < keep:
            errors.append(f"{e['item']['question_id']}: {e['error_type']} after {e['attempts']} attempt(s): "
                          f"{e['message'][:200]}")


def claim_run(con: Any, table: str, run_id: int) -> None:
    """Record this process as the one running ``run_id``."""
    con.execute(f"UPDATE {table} SET pid = ?, host = ? WHERE run_id = ?", [os.getpid(), socket.gethostname(), run_id])


__all__ = ["claim_run", "correct_stale_runs", "note_errors", "update_run", "usage_lines"]
