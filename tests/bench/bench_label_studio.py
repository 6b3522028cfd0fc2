"""Benchmark: push 1,000 tasks and pull 1,000 annotations against a local
Label Studio server (target: each ≤ 15 s).  Prints the figures.

    python tests/bench/bench_label_studio.py [--n 1000]

Starts its own server (``.ls-venv`` or ``$AUDIT_LABEL_STUDIO_BIN``) from the
migrated template data dir, and stops it at the end.  The 1,000 annotations
are imported up front with their tasks into a second project (not timed).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]  # tests/, repo


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()

    from label_studio_sdk import LabelStudio

    import audit
    from audit.sync._config import verdict_result
    from tests.support.label_studio_server import start_local_server
    from tests.sync.test_roundtrip import make_benchmark

    work = Path(tempfile.mkdtemp(prefix="bench-ls-"))
    db = work / "bench.duckdb"
    t = time.perf_counter()
    server = start_local_server(work / "server")
    print(f"server start (template copy): {time.perf_counter() - t:.1f} s at {server.url}")
    os.environ["LABEL_STUDIO_URL"], os.environ["LABEL_STUDIO_API_KEY"] = server.url, server.token
    try:
        make_benchmark(db, args.n, benchmark="bench")
        audit.sync.ls_connect(title="bench", benchmark="bench", db=db)

        t = time.perf_counter()
        s = audit.sync.ls_push("bench", tiers=None, verdicts=False, db=db, progress=False)
        push_s = time.perf_counter() - t
        assert s.created == args.n, s
        print(f"push {s.created} tasks (bulk import): {push_s:.2f} s  [target ≤ 15 s]")

        t = time.perf_counter()
        s2 = audit.sync.ls_push("bench", tiers=None, verdicts=False, db=db, progress=False)
        print(f"push again (no change, {s2.unchanged} unchanged): {time.perf_counter() - t:.2f} s")

        # Pull set-up (not timed): a second project holding the same 1,000 tasks, each
        # imported with one reviewer annotation in the same bulk request.
        from audit.store import connect
        from audit.sync._push import build_tasks

        client = LabelStudio(base_url=server.url, api_key=server.token)
        user = client.users.create(username="bench@example.org", email="bench@example.org")
        with connect(db, read_only=True) as con:
            tasks = build_tasks(con, con.execute("SELECT benchmark, question_id FROM questions").df())
        results = [verdict_result("key_correct", rationale="fine"),
                   verdict_result("ambiguous", cause="translation", rationale="two answers"),
                   verdict_result("defective", cause="formatting", rationale="broken")]
        t = time.perf_counter()
        pull_proj = client.projects.create(title="bench pull", label_config=audit.sync.labeling_config(6))
        client.projects.import_tasks(pull_proj.id, request=[
            {"data": d, "annotations": [{"result": results[i % 3], "completed_by": user.id}]}
            for i, d in enumerate(tasks)])
        audit.sync.ls_connect(project_id=pull_proj.id, db=db)
        print(f"(setup) {len(tasks)} annotated tasks imported: {time.perf_counter() - t:.1f} s")

        t = time.perf_counter()
        p = audit.sync.ls_pull(db=db)
        pull_s = time.perf_counter() - t
        assert p.reviews_added == args.n, p
        print(f"pull {p.reviews_added} annotations → reviews: {pull_s:.2f} s  [target ≤ 15 s]")

        t = time.perf_counter()
        p2 = audit.sync.ls_pull(db=db)
        assert p2.reviews_added == 0
        print(f"pull again (nothing new): {time.perf_counter() - t:.2f} s")
        ok = push_s <= 15 and pull_s <= 15
        print("RESULT:", "OK" if ok else "TOO SLOW")
        return 0 if ok else 1
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
