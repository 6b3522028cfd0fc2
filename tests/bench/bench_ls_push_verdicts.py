"""Benchmark: pushing workbench verdicts to Label Studio as annotations
(target: bulk ≥ 5× faster than one request per annotation).
Prints the figures and the load average.

    python tests/bench/bench_ls_push_verdicts.py [--n 300]

Three timings on one local server (``.ls-venv`` or ``$AUDIT_LABEL_STUDIO_BIN``):

1. per annotation — the tasks exist already (pushed without verdicts), then
   ``n`` verdicts are pushed: one ``POST /api/tasks/{id}/annotations`` each.
   Label Studio 1.23's open-source API has no bulk call for annotations on
   existing tasks (``/api/annotations/bulk`` is Enterprise-only), so this
   path cannot do better;
2. tasks only — ``n`` new tasks imported, no verdicts (the baseline of 3);
3. bulk — ``n`` new tasks imported together with their ``n`` verdicts as
   annotations (one import request per batch), what ``audit ls push`` does
   when the items' tasks are new.

The marginal cost of the annotations in 3 is (3) − (2).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]  # tests/, repo


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()

    import audit
    from tests.support.label_studio_server import start_local_server
    from tests.sync.test_roundtrip import make_benchmark

    work = Path(tempfile.mkdtemp(prefix="bench-ls-verdicts-"))
    base = work / "base.duckdb"
    ids = make_benchmark(base, args.n, benchmark="bench")
    for i, qid in enumerate(ids):
        audit.add_review("bench", qid, f"reviewer{i % 3}", "key_correct", rationale="checked",
                         source="workbench", db=base)
    server = start_local_server(work / "server")
    os.environ["LABEL_STUDIO_URL"], os.environ["LABEL_STUDIO_API_KEY"] = server.url, server.token
    try:
        def fresh(name: str) -> Path:
            db = work / f"{name}.duckdb"
            shutil.copy(base, db)
            audit.sync.ls_connect(title=f"bench {name}", benchmark="bench", db=db)
            return db

        # 1. per annotation (tasks already there)
        db1 = fresh("per-annotation")
        audit.sync.ls_push("bench", tiers=None, verdicts=False, db=db1, progress=False)
        t = time.perf_counter()
        s1 = audit.sync.ls_push("bench", tiers=None, db=db1, progress=False)
        per_ann = time.perf_counter() - t
        assert s1.annotations_created == args.n and s1.annotations_in_import == 0, s1

        # 2. tasks only
        db2 = fresh("tasks-only")
        t = time.perf_counter()
        audit.sync.ls_push("bench", tiers=None, verdicts=False, db=db2, progress=False)
        tasks_only = time.perf_counter() - t

        # 3. bulk: tasks with their verdicts in the import
        db3 = fresh("bulk")
        t = time.perf_counter()
        s3 = audit.sync.ls_push("bench", tiers=None, db=db3, progress=False)
        bulk = time.perf_counter() - t
        assert s3.annotations_in_import == args.n and s3.annotations_adopted == 0, s3

        marginal = max(bulk - tasks_only, 1e-3)
        load = os.getloadavg()
        print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 shared cores)")
        print(f"1. {args.n} verdicts, one request each (tasks existed): {per_ann:.2f} s "
              f"= {per_ann / args.n * 1000:.0f} ms per annotation")
        print(f"2. {args.n} new tasks, no verdicts: {tasks_only:.2f} s")
        print(f"3. {args.n} new tasks with their {args.n} verdicts in the import: {bulk:.2f} s "
              f"(annotations add {marginal:.2f} s = {marginal / args.n * 1000:.1f} ms each)")
        speed = per_ann / marginal
        print(f"bulk vs one request per annotation: {speed:.1f}x faster per annotation "
              f"({per_ann / bulk:.1f}x including the task import itself)  [target ≥ 5x]")
        print("RESULT:", "OK" if speed >= 5 else "BELOW TARGET")
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
