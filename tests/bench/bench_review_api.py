"""Speed of the review API the workbench calls (target: queue page with a
filter, opening an item and saving a verdict each ≤ 300 ms server side,
median of 20) on 100,000 questions × 100 models.

Every call opens and closes its own connection, as the workbench does.
The database is built with ``scale_data.build_scale_db`` (real importers and
``analyze``) unless ``--db`` names an existing one; 2,000 reviews are added
first so the status logic has work to do.  ``--model-major`` additionally
rewrites the predictions in model order (what many per-model imports
produce), times the item page, runs ``cluster_predictions`` and times it
again.

    python tests/bench/bench_review_api.py [--db PATH] [--questions 100000] [--models 100] [--model-major]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

LIMIT_MS = 300.0


def timed(label, fn, repeat, results):
    times = []
    for i in range(repeat):
        t = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t) * 1000)
    med = statistics.median(times)
    results.append((label, med, max(times)))
    print(f"  {label:<58} median {med:7.1f} ms   max {max(times):7.1f} ms", flush=True)
    return med


def seed_reviews(db, benchmark, n=2000):
    from audit.review import add_reviews, review_queue

    flagged = review_queue(benchmark, tiers=None, order="priority", limit=n, db=db)
    rng = random.Random(0)
    rows = []
    for qid, key in zip(flagged["question_id"], flagged["answer_key"]):
        for who in rng.sample(["ann", "bo", "cy", "dawa"], rng.choice([0, 1, 2, 2])):
            other = next(x for x in "ABCD" if x != key)
            verdict = rng.choice(["key_correct", "key_wrong", "key_wrong", "ambiguous", "defective", "skip"])
            rows.append({"question_id": qid, "reviewer": who, "verdict": verdict,
                         "corrected_answer": other if verdict == "key_wrong" else None})
    add_reviews(benchmark, rows[:n], db=db)
    return len(rows[:n])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="existing scale database (default: build one in a temporary folder)")
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--benchmark", default="scale")
    ap.add_argument("--model-major", action="store_true", help="also time the item page on model-ordered predictions")
    args = ap.parse_args()

    from audit import review
    from audit.export import corrected_key_accuracy
    from audit.store import connect

    b = args.benchmark
    if args.db and Path(args.db).exists():
        db = Path(args.db)
        print(f"database: {db} (existing)")
    else:
        from scale_data import build_scale_db

        db = Path(args.db) if args.db else Path(tempfile.mkdtemp(prefix="bench-review-")) / "scale.duckdb"
        print(f"building {args.questions:,} questions × {args.models} models into {db} …", flush=True)
        info = build_scale_db(db, args.questions, args.models, benchmark=b, analyze=True)
        print(f"  built: import questions {info['import_questions_s']:.1f} s, predictions "
              f"{info['import_predictions_s']:.1f} s, analyze {info['analyze_s']:.1f} s")
    with connect(db, read_only=True) as con:
        nq, npred = con.execute("SELECT (SELECT count(*) FROM questions WHERE benchmark = $b), "
                                "(SELECT count(*) FROM predictions WHERE benchmark = $b)", {"b": b}).fetchall()[0]
        nrev = con.execute("SELECT count(*) FROM reviews WHERE benchmark = ?", [b]).fetchall()[0][0]
    if nrev == 0:
        nrev = seed_reviews(db, b)
    print(f"{nq:,} questions, {npred:,} predictions, {nrev:,} reviews; median of {args.repeat} calls, "
          "each with its own connection")

    all_items = review.review_queue(b, tiers=None, order="id", db=db)["question_id"].tolist()
    flagged = review.review_queue(b, db=db)
    if flagged.empty:
        flagged = review.review_queue(b, tiers=None, limit=100, db=db)
    subject = flagged["subject"].mode().iloc[0] if len(flagged) else None
    rng = random.Random(1)
    picks = rng.sample(all_items, min(len(all_items), args.repeat * 3))
    results = []
    print("workbench operations (limit 300 ms):")
    timed("queue page: Tier 1–2, first 50", lambda i: review.review_queue(b, limit=50, db=db), args.repeat, results)
    timed("queue page: Tier 1–2 + subject + unreviewed, first 50",
          lambda i: review.review_queue(b, subjects=[subject], status="unreviewed", reviewer="ann", limit=50, db=db),
          args.repeat, results)
    timed(f"queue page: all tiers ({nq:,} items) + unreviewed, first 50",
          lambda i: review.review_queue(b, tiers=None, status="unreviewed", limit=50, db=db), args.repeat, results)
    timed("queue page: all tiers, page 100 (offset 4,950)",
          lambda i: review.review_queue(b, tiers=None, limit=50, offset=4950, db=db), args.repeat, results)
    timed("queue progress (37 of 107 reviewed)", lambda i: review.queue_progress(b, reviewer="ann", db=db),
          args.repeat, results)
    timed(
        "previous/next within the filter",
        lambda i: review.neighbours(b, flagged["question_id"].iloc[i % len(flagged)], status="unreviewed", db=db),
        args.repeat,
        results,
    )
    timed("previous/next: all tiers + unreviewed", lambda i: review.neighbours(b, picks[i], tiers=None,
          status="unreviewed", db=db), args.repeat, results)
    timed("open an item (item_view, a different item each time)",
          lambda i: review.item_view(b, picks[i], reviewer="ann", db=db), args.repeat, results)

    def save(i):
        q = picks[args.repeat + i]
        review.add_review(b, q, "bench-reviewer", "key_correct", rationale="timing run", source="workbench", db=db)
    timed("save a verdict (add_review)", save, args.repeat, results)
    checked = [r for r in results]
    print("other calls (dashboards, exports):")
    timed("review_status (every item)", lambda i: review.review_status(b, db=db), 5, results)
    timed("settled_verdicts", lambda i: review.settled_verdicts(b, db=db), 5, results)
    timed("reviewer_agreement", lambda i: review.reviewer_agreement(b, db=db), 5, results)
    timed("tier_by_subject (heatmap)", lambda i: review.tier_by_subject(b, pivot=True, db=db), 5, results)
    timed("progress_by_reviewer", lambda i: review.progress_by_reviewer(b, db=db), 5, results)
    timed("corrected_key_accuracy", lambda i: corrected_key_accuracy(b, db=db), 3, results)

    if args.model_major:
        print("item page when predictions are stored model by model:")
        with connect(db) as con:
            ddl = con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'predictions'").fetchall()[0][0]
            con.execute(ddl.replace("CREATE TABLE predictions", "CREATE TABLE _p", 1))
            con.execute("INSERT INTO _p SELECT * FROM predictions ORDER BY model, question_id")
            con.execute("DROP TABLE predictions")
            con.execute("ALTER TABLE _p RENAME TO predictions")
            con.execute("CHECKPOINT")
        timed("open an item, model-major predictions",
              lambda i: review.item_view(b, picks[i], reviewer="ann", db=db), args.repeat, results)
        s = review.cluster_predictions(db=db)
        print(f"  cluster_predictions: {s.rows:,} rows in {s.seconds:.1f} s; row groups read per item "
              f"{s.row_groups_per_item_before:.1f} → {s.row_groups_per_item_after:.1f}")
        timed("open an item, after cluster_predictions",
              lambda i: review.item_view(b, picks[i], reviewer="ann", db=db), args.repeat, results)
        checked += results[-2:]

    slow = [(l, m) for l, m, _ in checked if m > LIMIT_MS and "model-major" not in l]
    print("all workbench operations within 300 ms" if not slow else f"OVER 300 ms: {slow}")


if __name__ == "__main__":
    main()
