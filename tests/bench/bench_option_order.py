"""Speed of per-model option order: a prediction file whose rows
carry ``options_shown`` (a random permutation per row, the given letter
written in that shown order) must import within 1.5× the time of the same
file without it.

Both files come from ``scale_data.generate_parquet`` (default 100,000
questions × 100 models = 10 M rows, 10% raw responses); the shuffled copy
re-expresses every given letter in its row's shown order, so after the
import both databases must hold the same answers (checked).  Each import
runs in its own child process.  Prints wall and CPU seconds, the ratio and
the load average.

    python tests/bench/bench_option_order.py [--questions 100000] [--models 100] [--workdir DIR]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_data import generate_parquet  # noqa: E402

PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.int32)  # 24 × 4: shown j → item perm[j]
PERM_TEXT = ["".join("ABCD"[x] for x in p) for p in PERMS]
INV = np.argsort(PERMS, axis=1).astype(np.int32)                         # item L → shown position


def shuffled_copy(src: Path, dst: Path, seed: int = 1) -> None:
    """``src`` plus ``options_shown``, with each given letter written in the shown order."""
    rng = np.random.default_rng(seed)
    pf = pq.ParquetFile(src)
    writer = None
    for i in range(pf.num_row_groups):
        t = pf.read_row_group(i)
        n = t.num_rows
        p_idx = rng.integers(0, len(PERMS), n).astype(np.int32)
        ans = t.column("answer").combine_chunks()
        letters = np.asarray(ans.dictionary.to_pylist())
        idx = ans.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        valid = ~np.asarray(ans.is_null().to_numpy(zero_copy_only=False))
        item = np.array(["ABCD".index(x) for x in letters], dtype=np.int32)[np.where(valid, idx, 0)]
        written = INV[p_idx, item]
        new_ans = pa.DictionaryArray.from_arrays(pa.array(written, pa.int32(), mask=~valid), pa.array(list("ABCD")))
        shown = pa.DictionaryArray.from_arrays(pa.array(p_idx), pa.array(PERM_TEXT))
        t = t.set_column(t.schema.get_field_index("answer"), "answer", new_ans).append_column("options_shown", shown)
        if writer is None:
            writer = pq.ParquetWriter(dst, t.schema)
        writer.write_table(t)
    writer.close()


CHILD = """
import json, resource, sys, time
from audit.ingest._predictions import import_predictions
t0, c0 = time.perf_counter(), time.process_time()
s = import_predictions(sys.argv[1], benchmark="scale", db=sys.argv[2], progress=False)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0, "rows": s.predictions,
                  "valid": s.valid, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_import(pred: Path, db: Path) -> dict:
    r = subprocess.run([sys.executable, "-c", CHILD, str(pred), str(db)], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(r.stderr)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--workdir", type=Path, default=None)
    a = ap.parse_args()
    work = a.workdir or Path(tempfile.mkdtemp(prefix="bench_order_"))
    work.mkdir(parents=True, exist_ok=True)
    info = generate_parquet(work, a.questions, a.models)
    plain, shuffled = info["predictions_path"], work / "predictions_shuffled.parquet"
    t0 = time.perf_counter()
    shuffled_copy(plain, shuffled)
    print(f"{info['n_predictions']:,} predictions ({a.questions:,} questions × {a.models} models); "
          f"shuffled copy written in {time.perf_counter() - t0:.1f} s")
    from audit.ingest import import_questions

    res = {}
    for name, pred in (("plain", plain), ("option order", shuffled)):
        db = work / f"{name.replace(' ', '_')}.duckdb"
        for f in (db, Path(str(db) + ".wal")):
            f.unlink(missing_ok=True)
        import_questions(info["questions_path"], benchmark="scale", db=db)
        res[name] = r = run_import(pred, db)
        print(f"{name:>13}: {r['rows']:,} rows, {r['valid']:,} valid, wall {r['wall']:.1f} s, cpu {r['cpu']:.1f} s, "
              f"peak RSS {r['rss_mb']:.0f} MB  (load {os.getloadavg()[0]:.2f})")
    import duckdb

    con = duckdb.connect()
    con.execute(
        f"ATTACH '{work / 'plain.duckdb'}' AS a (READ_ONLY); ATTACH '{work / 'option_order.duckdb'}' AS b (READ_ONLY)"
    )
    diff = con.execute("SELECT count(*) FROM a.predictions x JOIN b.predictions y USING (question_id, model, run) "
                       "WHERE x.method = 'given' AND x.answer IS DISTINCT FROM y.answer").fetchall()[0][0]
    n_written = con.execute("SELECT count(*) FROM b.prediction_written").fetchall()[0][0]
    print(
        f"given answers that differ after mapping back: {diff:,} (must be 0); rows in prediction_written: {n_written:,}"
    )
    ratio = res["option order"]["wall"] / res["plain"]["wall"]
    cpu_ratio = res["option order"]["cpu"] / res["plain"]["cpu"]
    print(f"ratio option order / plain: wall {ratio:.2f}×, cpu {cpu_ratio:.2f}× (target ≤ 1.5×)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if diff:
        raise SystemExit("mapped answers differ")


if __name__ == "__main__":
    main()
