"""Server-side speed of the workbench pages (target: the queue page with a
filter, opening an item and saving a verdict each ≤ 300 ms, median of 20) on
a database with 100,000 questions and 100 models (10 M predictions).

What is timed: one full Streamlit script run of the page, driven by
``streamlit.testing.v1.AppTest`` — the page code, every ``audit`` call it
makes (each opening and closing its own DuckDB connection) and building the
page's elements; no browser.  Each page runs through ``AppTest.from_function``
calling the page function with a signed-in session, after one warm-up run.

* queue   — the queue page filtered to Tier 1–2 + "Unreviewed" (progress,
            one page of 25 rows, subject list);
* item    — the item page of a different Tier 1–2 item each time (item view,
            previous/next within the filter, the form, history);
* save    — the run triggered by pressing Save on an item with a filled-in
            verdict: ``add_review`` appends the row, then the page is drawn
            again with the history.

For reference the ``audit`` calls alone are timed too.

    python tests/bench/bench_workbench.py [--db PATH] [--questions 100000] [--models 100] [--repeat 20]

Without ``--db`` the database is built with ``scale_data.build_scale_db``
(real importers and ``analyze``; several minutes).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

LIMIT_MS = 300.0
REVIEWER = "Bench Reviewer"


def _queue_script():
    import streamlit as st

    from workbench.views import queue

    st.session_state["wb_reviewer"] = "Bench Reviewer"
    st.session_state.setdefault("f_tiers", [1, 2])
    st.session_state.setdefault("f_status", "unreviewed")
    queue.page()


def _item_script():
    import streamlit as st

    from workbench.views import item

    st.session_state["wb_reviewer"] = "Bench Reviewer"
    item.page()


class Clock:
    """Wall time and this process's CPU time (all threads, DuckDB's included)
    of one timed block, in ms.  On a shared, loaded machine the wall time
    includes waiting for a core; the CPU time is the work itself."""

    def __init__(self):
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self):
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall.append((time.perf_counter() - self._w) * 1000)
        self.cpu.append((time.process_time() - self._c) * 1000)


def _report(label: str, clock: Clock, rows: list) -> None:
    med, mx, cpu = statistics.median(clock.wall), max(clock.wall), statistics.median(clock.cpu)
    rows.append((label, med, mx, cpu))
    flag = "ok" if med <= LIMIT_MS else "OVER"
    print(f"  {label:<52} median {med:7.1f} ms   max {mx:7.1f} ms   CPU median {cpu:7.1f} ms   [{flag}]",
          flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", help="an existing database (with an analysed benchmark)")
    ap.add_argument("--benchmark", default="scale")
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()

    if args.db:
        db = Path(args.db)
    else:
        from scale_data import build_scale_db

        db = Path(tempfile.mkdtemp(prefix="wb_bench_")) / "scale.duckdb"
        print(f"building {args.questions:,} questions × {args.models} models in {db} …", flush=True)
        info = build_scale_db(db, args.questions, args.models, benchmark=args.benchmark, analyze=True)
        print("  built in " + ", ".join(f"{k} {v:.1f}s" for k, v in info.items() if k.endswith("_s")), flush=True)
    os.environ["AUDIT_DB"] = str(db)

    import duckdb
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    import audit

    with duckdb.connect(str(db), read_only=True) as con:
        nq, npred, nmod = con.execute(
            "SELECT (SELECT count(*) FROM questions WHERE benchmark = $b), "
            "(SELECT count(*) FROM predictions WHERE benchmark = $b), "
            "(SELECT count(DISTINCT model) FROM predictions WHERE benchmark = $b)", {"b": args.benchmark}).fetchone()
    print(f"database: {nq:,} questions, {nmod} models, {npred:,} predictions ({db.stat().st_size / 1e6:.0f} MB)")

    bench = args.benchmark
    n = args.repeat
    # The queue filter: Tier 1–2, widened to the next tiers when the data has
    # too few flagged items to open 2 × repeat different ones.
    tiers = [1, 2]
    flagged = audit.review.review_queue(bench, tiers=tiers, db=db)
    while len(flagged) < 2 * n + 2 and tiers[-1] < 5:
        tiers.append(tiers[-1] + 1)
        flagged = audit.review.review_queue(bench, tiers=tiers, db=db)
    if len(flagged) < 2 * n + 2:
        print(f"only {len(flagged)} audited items; need {2 * n + 2}", file=sys.stderr)
        return 1
    ids = list(flagged["question_id"])
    print(f"queue filter: tiers {tiers} + unreviewed → {len(ids):,} items; repeat {n}; "
          f"target ≤ {LIMIT_MS:.0f} ms median\n")
    rows: list = []

    print("audit calls alone (each opens its own connection):")
    flt = dict(tiers=tiers, subjects=None, status="unreviewed", reviewer=REVIEWER,
               structure_suspect=None, parallel_mismatch=None)
    t_q = Clock()
    for _ in range(n):
        with t_q:
            audit.review.queue.queue_progress(bench, db=db, **{k: v for k, v in flt.items() if k != "status"})
            audit.review.review_queue(bench, db=db, limit=26, offset=0, **flt)
            audit.review.dashboard.tier_by_subject(bench, db=db)
    _report("queue: progress + 25 rows + subjects (uncached)", t_q, rows)
    t_i = Clock()
    for i in range(n):
        with t_i:
            audit.review.item_view(bench, ids[i], reviewer=REVIEWER, db=db)
    _report("item: item_view", t_i, rows)
    t_n = Clock()
    for i in range(n):
        with t_n:
            audit.review.queue.neighbours(bench, ids[i], db=db, **flt)
    _report("neighbours (only past the edge of the queue page)", t_n, rows)

    print("\nfull page runs (AppTest, server side):")
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_function(_queue_script, default_timeout=120)
    at.session_state["f_tiers"] = tiers
    at.run()  # warm-up: imports, first connection
    assert not at.exception, at.exception
    times = Clock()
    for _ in range(n):
        with times:
            at.run()
        assert not at.exception, at.exception
    shown = [b.key for b in at.button if b.key and b.key.startswith("open::")]
    assert shown, "the queue page showed no item"
    _report(f"queue page, filter tiers {tiers} + unreviewed", times, rows)

    at = AppTest.from_function(_item_script, default_timeout=120)
    at.session_state["f_tiers"] = tiers
    at.session_state["f_status"] = "unreviewed"
    at.session_state["wb_current"] = (bench, ids[-1])
    at.run()
    assert not at.exception, at.exception
    times = Clock()
    for i in range(n):
        at.session_state["wb_current"] = (bench, ids[i])
        with times:
            at.run()
        assert not at.exception, at.exception
    _report("open an item (item page)", times, rows)

    times = Clock()
    before = len(audit.review.list_reviews(bench, reviewer=REVIEWER, db=db))
    for i in range(n):
        qid = ids[n + i]
        at.session_state["wb_current"] = (bench, qid)
        at.run()
        at.button(key="vbtn_key_correct").click().run()
        at.text_area(key=f"form::{bench}::{qid}::rationale").input(f"bench {i}").run()
        with times:
            at.button(key="save").click().run()
        assert not at.exception, at.exception
        assert any("Verdict saved" in s.value for s in at.success), [e.value for e in at.error]
    after = len(audit.review.list_reviews(bench, reviewer=REVIEWER, db=db))
    assert after - before == n, (before, after)
    _report("save a verdict (append + redraw)", times, rows)

    print("\nsummary (median of %d; wall ms / CPU ms):" % n)
    for label, med, mx, cpu in rows:
        print(f"  {med:7.1f} / {cpu:7.1f}  {label}")
    pages = rows[-3:]
    worst = max(med for _, med, _, _ in pages)
    print(f"\npage medians ≤ {LIMIT_MS:.0f} ms: {'yes' if worst <= LIMIT_MS else 'NO'} (worst {worst:.1f} ms)")
    try:
        print("load average while measuring: %.1f %.1f %.1f on %d cores" % (*os.getloadavg(), os.cpu_count()))
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
