"""Review-step speed in a real browser: Chromium driven
by Playwright against ``streamlit run workbench/app.py`` on a database with
100,000 questions × 100 models (``scale_data.build_scale_db``, analysed).

The queue is set to all tiers (the synthetic data has few Tier 1–2 items).
Timed, from the click or keypress to the new content being shown (the new
item's heading and question / the queue's heading and rows), with the app
idle before each action:

* open item      — click an item's button in the queue;
* save + move on — press ``1`` (key correct; not timed), then ``S``: the
                   verdict is appended and the next item that needs this
                   reviewer is shown;
* back to queue  — press ``Q``.

First one reviewer alone, then ``--reviewers`` (default 5) reviewers at once,
each in their own browser and session, each doing the same loop.  Prints the
median and the 90th percentile per action, the server's CPU time per action
(alone; a figure the machine's load does not inflate; with several
reviewers, per action on average, and how many of the machine's cores the
server and everything together used), and the load average before and after
(the machine may be shared: compare the figures with it).

Targets: median ≤ 600 ms and p90 ≤ 1 s alone; median ≤ 1 s with 5 reviewers.

    python tests/bench/bench_browser_review.py [--db PATH] [--repeat 12] [--reviewers 5] [--think 0 --think 3]
    python tests/bench/bench_browser_review.py --db PATH --base DIR [--rounds 4] [--repeat 6]

``--base DIR``: side by side with the code in DIR (e.g. main's, from
``git archive main | tar -x -C DIR``) in one run, alternating rounds, each
server on its own copy of the database; fails when this tree is more than
10 % slower on any action.

The reviewers at once act back to back by default: a worst case in which 5
browsers and the server share this machine's cores.  ``--think S`` paces
them like people reading items (S seconds ±50 % before each action; the
time measured is still from the keypress to the content shown); each
``--think`` is its own run.

Without ``--db`` the database is built first (several minutes).  The file is
copied to a temporary folder so the verdicts written here do not change it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ACTIONS = ("open item", "save + move on", "back to queue")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, repo: Path = REPO) -> tuple[subprocess.Popen, str]:
    """``streamlit run`` of ``repo``'s workbench (this tree by default) on ``db``."""
    port = _free_port()
    env = {**os.environ, "AUDIT_DB": str(db), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
           "PYTHONPATH": str(repo)}
    env.pop("WORKBENCH_PASSCODE", None)
    log = open(db.parent / "streamlit.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(repo / "workbench" / "app.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.runOnSave", "false"],
        cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("streamlit exited: " + (db.parent / "streamlit.log").read_text(errors="replace"))
        try:
            with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, base
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("the workbench did not become healthy within 90 s")


_IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
_ITEM_SHOWN = """(qid) => [...document.querySelectorAll('h4')].some(h => h.innerText.trim() === 'Item ' + qid)
                 && document.querySelector('[data-script] .wb-opt')
                 && document.querySelector('.st-key-save button')"""
_NEW_ITEM_SHOWN = """(old) => {
                  const h = [...document.querySelectorAll('h4')].find(h => h.innerText.startsWith('Item '));
                  return h && h.innerText.trim() !== 'Item ' + old
                         && document.querySelector('[data-script] .wb-opt')
                         && document.querySelector('.st-key-save button'); }"""
_QUEUE_SHOWN = """() => [...document.querySelectorAll('h1')].some(h => h.innerText.includes('Review queue'))
                  && document.querySelector('.wb-qrow:not(.wb-qhead)')
                  && ![...document.querySelectorAll('h4')].some(h => h.innerText.startsWith('Item '))"""


def _idle(page) -> None:
    page.wait_for_timeout(150)
    page.wait_for_function(_IDLE, timeout=60_000)


def _current_item(page) -> str:
    return page.evaluate("""() => [...document.querySelectorAll('h4')].map(h => h.innerText.trim())
                            .find(t => t.startsWith('Item ')).slice(5)""")


def _blur(page) -> None:
    page.evaluate("() => document.activeElement && document.activeElement.blur && document.activeElement.blur()")


BENCH_PASSWORD = "bench-password-1"


def _accounts(db: Path, names: list[str]) -> None:
    """Reviewer accounts for the bench (the workbench signs in with a password)."""
    from audit.accounts import add_account, list_accounts

    have = set(list_accounts(db=db)["name"]) if len(list_accounts(db=db)) else set()
    if "Bench Admin" not in have:
        add_account("Bench Admin", BENCH_PASSWORD, role="admin", db=db)
    for n in names:
        if n not in have:
            add_account(n, BENCH_PASSWORD, role="reviewer", actor="Bench Admin", db=db)


def reviewer_loop(base: str, name: str, repeat: int, out: dict[str, list[float]], errors: list[str],
                  start: threading.Barrier | None = None, offset: int = 0, server_pid: int | None = None,
                  cpu: dict[str, list[float]] | None = None, think: float = 0.0) -> None:
    """One reviewer: sign in, then ``repeat`` times open / save + move on /
    back to queue, appending seconds to ``out[action]``.  ``think``: seconds
    (±50 %, seeded per reviewer) a reviewer spends before each action —
    reading the queue, the item — as people do; 0 acts back to back."""
    import random

    rng = random.Random(f"{name}-{think}")

    def pause() -> None:
        if think > 0:
            time.sleep(think * rng.uniform(0.5, 1.5))
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(60_000)
            page.goto(base)
            page.get_by_label("Name", exact=True).fill(name)
            page.get_by_label("Password", exact=True).fill(BENCH_PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_function(_QUEUE_SHOWN, timeout=120_000)
            _idle(page)
            # all tiers (Tier 1–2 alone holds too few items for 5 reviewers × many loops)
            page.locator(".st-key-w_tiers input").click()
            for _ in range(2):
                page.keyboard.press("Backspace")
                _idle(page)
            page.keyboard.press("Escape")
            page.wait_for_function(_QUEUE_SHOWN)
            _idle(page)
            if start is not None:
                start.wait(timeout=600)
            for i in range(repeat):
                ids = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-open"] button')]
                                       .filter(b => b.offsetParent).map(b => b.innerText.trim())""")
                qid = ids[(i + offset) % max(1, min(len(ids), 20))]
                button = page.get_by_role("button", name=qid, exact=True).filter(visible=True)
                pause()
                c = server_cpu(server_pid)
                t = time.perf_counter()
                button.click()
                page.wait_for_function(_ITEM_SHOWN, arg=qid)
                out["open item"].append(time.perf_counter() - t)
                _idle(page)
                if cpu is not None:
                    cpu["open item"].append(server_cpu(server_pid) - c)

                _blur(page)
                page.keyboard.press("1")
                page.locator('[data-testid="stBaseButton-primary"]', has_text="Key correct").first.wait_for()
                _idle(page)
                _blur(page)
                pause()
                c = server_cpu(server_pid)
                t = time.perf_counter()
                page.keyboard.press("s")
                page.wait_for_function(_NEW_ITEM_SHOWN, arg=qid)
                out["save + move on"].append(time.perf_counter() - t)
                _idle(page)
                if cpu is not None:
                    cpu["save + move on"].append(server_cpu(server_pid) - c)

                _blur(page)
                pause()
                c = server_cpu(server_pid)
                t = time.perf_counter()
                page.keyboard.press("q")
                page.wait_for_function(_QUEUE_SHOWN)
                out["back to queue"].append(time.perf_counter() - t)
                _idle(page)
                if cpu is not None:
                    cpu["back to queue"].append(server_cpu(server_pid) - c)
            browser.close()
    except Exception as exc:  # noqa: BLE001 — reported with the figures
        errors.append(f"{name}: {type(exc).__name__}: {exc}"[:500])


def server_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) the server process has used so far."""
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> float:
    """CPU seconds all processes of the machine have used so far (busy time
    of /proc/stat: everything but idle and iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def _p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(0.9 * (len(xs) - 1))))]


def report(title: str, out: dict[str, list[float]], median_limit: float, p90_limit: float | None) -> bool:
    ok = True
    print(f"\n{title}")
    for a in ACTIONS:
        xs = out[a]
        if not xs:
            print(f"  {a:<16} no measurement")
            ok = False
            continue
        med, p90 = statistics.median(xs) * 1000, _p90(xs) * 1000
        good = med <= median_limit and (p90_limit is None or p90 <= p90_limit)
        ok &= good
        print(f"  {a:<16} median {med:6.0f} ms   p90 {p90:6.0f} ms   n={len(xs):3d}   "
              f"{'ok' if good else 'OVER'} (target median ≤ {median_limit:.0f} ms"
              + (f", p90 ≤ {p90_limit:.0f} ms)" if p90_limit else ")"))
    return ok


def compare(db: Path, base_repo: Path, repeat: int, rounds: int) -> int:
    """Side by side in one run: the code in ``base_repo`` (e.g. ``git archive
    main``) and this tree, each on its own copy of ``db``, one reviewer,
    ``rounds`` alternating rounds of ``repeat`` loops (so a change in the
    machine's load hits both alike).  Prints each action's median for both
    and the ratio; exit 1 when this tree is more than 10 % slower."""
    dbs = {}
    for name in ("base", "this"):
        d = db.parent / name
        d.mkdir()
        shutil.copy(db, d / db.name)
        if Path(str(db) + ".wal").exists():
            shutil.copy(str(db) + ".wal", str(d / db.name) + ".wal")
        dbs[name] = d / db.name
        _accounts(dbs[name], ["Bench Alone"])
    servers = {"base": start_server(dbs["base"], base_repo), "this": start_server(dbs["this"])}
    out = {n: {a: [] for a in ACTIONS} for n in servers}
    errors: list[str] = []
    try:
        print(f"load average before: {os.getloadavg()}")
        for r in range(rounds):
            for name in (("base", "this") if r % 2 == 0 else ("this", "base")):
                reviewer_loop(servers[name][1], "Bench Alone", repeat, out[name], errors)
        worst = 0.0
        print(f"side by side, 1 reviewer, {rounds} alternating rounds × {repeat} loops "
              f"(base: {base_repo}; this: {REPO})")
        for a in ACTIONS:
            b, t = statistics.median(out["base"][a]), statistics.median(out["this"][a])
            worst = max(worst, t / b)
            print(f"  {a:<16} base median {b * 1000:6.0f} ms p90 {_p90(out['base'][a]) * 1000:6.0f} ms · "
                  f"this median {t * 1000:6.0f} ms p90 {_p90(out['this'][a]) * 1000:6.0f} ms · ratio {t / b:.2f}")
        print(f"load average after: {os.getloadavg()}")
        for e in errors:
            print("error:", e)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0 if worst <= 1.10 and not errors else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, help="an analysed scale database (copied first)")
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=12, help="loops per reviewer")
    ap.add_argument("--reviewers", type=int, default=5, help="reviewers at once in the second run")
    ap.add_argument("--think", type=float, action="append", default=None,
                    help="seconds (±50%%) each of the reviewers at once spends before an action, as a person "
                         "reading the item does; repeat for several runs (default: 0, back to back)")
    ap.add_argument("--base", type=Path, help="a checkout of the code to compare with, side by side in one "
                    "run (e.g. `git archive main | tar -x -C DIR`); only the one-reviewer loop is timed")
    ap.add_argument("--rounds", type=int, default=4, help="alternating rounds with --base")
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="bench_browser_"))
    db = tmp / "scale.duckdb"
    if args.db:
        shutil.copy(args.db, db)
        if Path(str(args.db) + ".wal").exists():
            shutil.copy(str(args.db) + ".wal", str(db) + ".wal")
    else:
        from scale_data import build_scale_db

        print(f"building {args.questions:,} questions × {args.models} models …", flush=True)
        build_scale_db(db, args.questions, args.models, analyze=True)
    import audit
    import audit.review.dashboard
    import audit.review.queue

    if args.base:
        try:
            return compare(db, args.base.resolve(), args.repeat, args.rounds)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    for bench in audit.review.dashboard.list_benchmarks(db=db):
        print(
            f"database: {db}: {bench}, {audit.review.queue.queue_progress(bench, tiers=None, db=db).total:,} questions"
        )
    _accounts(db, ["Bench Alone"] + [f"Bench Reviewer {i + 1}" for i in range(args.reviewers)])
    proc, base = start_server(db)
    ok = True
    try:
        print(f"load average before: {os.getloadavg()}")
        out = {a: [] for a in ACTIONS}
        errors: list[str] = []
        cpu = {a: [] for a in ACTIONS}
        reviewer_loop(base, "Bench Alone", args.repeat, out, errors, server_pid=proc.pid, cpu=cpu)
        ok &= report(f"1 reviewer (app idle before each action), {args.repeat} loops", out, 600, 1000) and not errors
        print("  server CPU per action (user + system, includes the background prefetch it triggers; "
              "independent of the machine's load):")
        for a in ACTIONS:
            if cpu[a]:
                print(f"  {a:<16} median {statistics.median(cpu[a]) * 1000:6.0f} ms CPU")
        print(f"load average: {os.getloadavg()}")

        for think in args.think or [0.0]:
            out = {a: [] for a in ACTIONS}
            barrier = threading.Barrier(args.reviewers)
            cpu0, machine0, t0 = server_cpu(proc.pid), machine_cpu(), time.monotonic()
            threads = [
                threading.Thread(
                    target=reviewer_loop,
                    args=(base, f"Bench Reviewer {i + 1}", args.repeat, out, errors, barrier, 3 * i),
                    kwargs={"think": think},
                )
                for i in range(args.reviewers)
            ]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            pace = f"thinking {think:g} s (±50 %) before each action" if think else "acting back to back"
            ok &= report(f"{args.reviewers} reviewers at once, {pace}, {args.repeat} loops each", out, 1000,
                         None) and not errors
            n_actions = sum(len(v) for v in out.values())
            wall = time.monotonic() - t0
            if n_actions:
                print(f"  server CPU per action (all reviewers; includes sign-in and prefetches): "
                      f"{(server_cpu(proc.pid) - cpu0) / n_actions * 1000:.0f} ms; the server used "
                      f"{(server_cpu(proc.pid) - cpu0) / wall:.2f} of the machine's {os.cpu_count()} cores, "
                      f"everything together {(machine_cpu() - machine0) / wall:.2f}")
            print(f"load average: {os.getloadavg()}")
        print(f"load average after: {os.getloadavg()}")
        for e in errors:
            print("error:", e)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
