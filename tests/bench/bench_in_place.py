"""Predictions read in place vs copied.

Generates the synthetic benchmark of ``scale_data.py`` with given letters
only (in-place sources are not extracted), then times, on one machine:

* copy: ``import_predictions`` + ``analyze_benchmark``;
* local in place: ``register_predictions_in_place`` + ``analyze_benchmark``;
* S3 in place: the same Parquet file on a moto S3 server on 127.0.0.1;

and checks the three give the same tiers.  Usage::

    PYTHONPATH=. python3 tests/bench/bench_in_place.py [N_QUESTIONS] [N_MODELS]
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_data import generate_parquet  # noqa: E402

from audit.analyze import analyze_benchmark  # noqa: E402
from audit.ingest import import_predictions, import_questions, register_predictions_in_place  # noqa: E402
from audit.store import connect  # noqa: E402


def _tiers(db) -> list:
    with connect(db, read_only=True) as con:
        return con.execute("SELECT question_id, tier, agreement_count, n_valid FROM audit_results "
                           "ORDER BY question_id").fetchall()


def main(n_q: int = 20_000, n_m: int = 50) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench_in_place_"))
    info = generate_parquet(tmp / "data", n_q, n_m, raw_share=0.0)
    print(f"{info['n_predictions']:,} predictions ({n_q:,} questions x {n_m} models), "
          f"{info['predictions_path'].stat().st_size / 1e6:.1f} MB of Parquet")
    rows = []

    def run(name: str, register) -> list:
        db = tmp / f"{name}.duckdb"
        import_questions(info["questions_path"], benchmark="scale", db=db)
        t = time.perf_counter()
        register(db)
        t_reg = time.perf_counter() - t
        t = time.perf_counter()
        analyze_benchmark("scale", db=db)
        t_an = time.perf_counter() - t
        rows.append((name, t_reg, t_an, db.stat().st_size / 1e6))
        return _tiers(db)

    ref = run("copy", lambda db: import_predictions(info["predictions_path"], benchmark="scale", db=db,
                                                    progress=False))
    assert run("local-in-place", lambda db: register_predictions_in_place(
        info["predictions_path"], benchmark="scale", db=db)) == ref

    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret",
                      AWS_ENDPOINT_URL=f"http://{host}:{port}", AWS_REGION="us-east-1")
    try:
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="bench")
        s3.upload_file(str(info["predictions_path"]), "bench", "preds/predictions.parquet")
        assert run("s3-in-place", lambda db: register_predictions_in_place(
            "s3://bench/preds/", benchmark="scale", db=db)) == ref
    finally:
        server.stop()
    print(f"{'':16} {'import/register s':>18} {'analyze s':>10} {'db MB':>8}")
    for name, t_reg, t_an, mb in rows:
        print(f"{name:16} {t_reg:18.2f} {t_an:10.2f} {mb:8.1f}")
    print("tiers identical in all three")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
