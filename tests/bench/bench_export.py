"""Timing of corrected answer-key exports.  Not collected by pytest; run:

    python tests/bench/bench_export.py [N_QUESTIONS] [N_MODELS] [N_REVIEWED]

1. The real TLUE subset (../shared/data/tlue_subset670, when present):
   import, 40 items reviewed, ``create_version`` (1.0 created automatically,
   then 1.1), ``diff_versions``, ``list_versions(verify=True)``.
2. A synthetic generic benchmark (default 100,000 questions, 10 models,
   2,000 reviewed items; written straight into DuckDB with SQL so the setup
   is fast): the same operations, plus a second derivation from a copy of the
   database to check the data files are byte-identical.

Prints wall times (seconds) and the version counts.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from audit.export import create_version, diff_versions, list_versions
from audit.store import connect, init_db

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("AUDIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def timed(label, fn, *a, **k):
    t = time.perf_counter()
    out = fn(*a, **k)
    print(f"  {label:<38} {time.perf_counter() - t:8.2f} s")
    return out


def bench_tlue(tmp: Path) -> None:
    from audit.ingest import import_tlue
    from audit.review import add_reviews

    src = SHARED / "tlue_subset670"
    if not src.exists():
        print(f"TLUE: skipped ({src} not present)")
        return
    db = tmp / "tlue.duckdb"
    init_db(db)
    print("TLUE subset (670 items)")
    timed("import_tlue", import_tlue, src, benchmark="tlue", db=db)
    with connect(db) as con:
        rows = con.execute("SELECT question_id, answer_key FROM questions WHERE benchmark = 'tlue' "
                           "ORDER BY seq").fetchall()
    reviews = []
    for i, (qid, key) in enumerate(rows[::16][:40]):
        other = "B" if key == "A" else "A"
        kind = i % 4
        if kind == 0:
            reviews.append(
                dict(question_id=qid, reviewer="r1", verdict="key_wrong", corrected_answer=other, cause="key_slip")
            )
        elif kind == 1:
            reviews.append(dict(question_id=qid, reviewer="r1", verdict="ambiguous", cause="translation"))
        elif kind == 2:
            reviews.append(dict(question_id=qid, reviewer="r2", verdict="defective", cause="formatting"))
        else:
            reviews.append(dict(question_id=qid, reviewer="r2", verdict="key_correct"))
    timed("add_reviews (40)", add_reviews, "tlue", reviews, db=db)
    out = tmp / "exports"
    s = timed("create_version 1.1 (+ 1.0 automatically)", create_version, "tlue", "1.1", db=db, exports_dir=out)
    print(f"  -> {s.counts}")
    d = timed("diff_versions 1.0 1.1", diff_versions, "tlue", "1.0", "1.1", db=db)
    print(f"  -> {len(d)} items differ")
    timed("list_versions(verify=True)", list_versions, "tlue", db=db, verify=True)


def bench_synthetic(tmp: Path, n: int, n_models: int, n_reviewed: int) -> None:
    db = tmp / "big.duckdb"
    init_db(db)
    print(f"Synthetic generic benchmark: {n:,} questions, {n_models} models, {n_reviewed:,} reviewed items")
    t = time.perf_counter()
    with connect(db) as con:
        con.execute("INSERT INTO benchmarks (name, source) VALUES ('big', 'questions')")
        con.execute(f"""
            INSERT INTO questions (benchmark, question_id, seq, subject, language, script, stem, options, answer_key)
            SELECT 'big', 'q' || lpad(i::VARCHAR, 7, '0'), i, 'subject' || (i % 50), 'bo', 'Tibt',
                   'དྲི་བ་ ' || i || ' =?',
                   [{{'label': 'A', 'text': 'ཀ' || i}}, {{'label': 'B', 'text': '-' || i}},
                    {{'label': 'C', 'text': 'ག'}}, {{'label': 'D', 'text': 'ང'}}],
                   ['A', 'B', 'C', 'D'][1 + i % 4]
            FROM range({n}) t(i)""")
        con.execute(f"""
            INSERT INTO predictions (benchmark, question_id, model, run, answer, method, valid)
            SELECT 'big', 'q' || lpad(i::VARCHAR, 7, '0'), 'model-' || m, 'default',
                   ['A', 'B', 'C', 'D'][1 + ((i * 7 + m * 3) % 5) % 4], 'given', true
            FROM range({n}) t(i), range({n_models}) s(m)""")
        con.execute("INSERT INTO models (name, family) SELECT DISTINCT model, model FROM predictions")
        con.execute(f"""
            INSERT INTO reviews (benchmark, question_id, reviewer, created_at, verdict, corrected_answer, cause,
                                 rationale, source, app_version)
            SELECT 'big', 'q' || lpad((i * 37)::VARCHAR, 7, '0'), 'r' || (i % 3),
                   TIMESTAMP '2026-01-01' + i * INTERVAL 1 MINUTE,
                   v, CASE WHEN v = 'key_wrong' THEN ['B', 'C', 'D', 'A'][1 + (i * 37) % 4] END,
                   'key_slip', '=rationale ' || i, 'import', 'bench'
            FROM (SELECT i, ['key_wrong', 'key_wrong', 'ambiguous', 'defective', 'key_correct'][1 + i % 5] AS v
                  FROM range({n_reviewed}) t(i))""")
    print(f"  {'setup (SQL)':<38} {time.perf_counter() - t:8.2f} s")
    from audit.analyze import analyze_benchmark

    timed("analyze", analyze_benchmark, "big", db=db)
    copy = tmp / "big-copy.duckdb"
    shutil.copy(db, copy)
    out = tmp / "exports"
    s = timed("create_version 1.1 (+ 1.0 automatically)", create_version, "big", "1.1", db=db, exports_dir=out)
    print(f"  -> {s.counts}")
    d = timed("diff_versions 1.0 1.1", diff_versions, "big", "1.0", "1.1", db=db)
    print(f"  -> {len(d):,} items differ")
    timed("list_versions(verify=True)", list_versions, "big", db=db, verify=True)
    out2 = tmp / "exports2"
    timed("second derivation (copy of the DB)", create_version, "big", "1.1", db=copy, exports_dir=out2)
    same = all((out / "big" / v / f.name).read_bytes() == f.read_bytes()
               for v in ("1.0", "1.1") for f in (out2 / "big" / v).iterdir() if f.name != "manifest.json")
    size = sum(f.stat().st_size for f in (out / "big" / "1.1").iterdir())
    print(f"  data files byte-identical across derivations: {same}; version size {size / 1e6:.1f} MB")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    n_models = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    n_reviewed = int(sys.argv[3]) if len(sys.argv) > 3 else 2_000
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        bench_tlue(tmp)
        bench_synthetic(tmp, n, n_models, n_reviewed)


if __name__ == "__main__":
    main()
