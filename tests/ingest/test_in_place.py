"""Prediction sets read in place: a Parquet file, folder
or glob — local, on an S3-compatible server (moto, started here on
127.0.0.1) or behind ``hf://`` (a fake fsspec filesystem registered under
the ``hf`` protocol: the Hub cannot be reached from the test machine) — is
registered instead of copied; analysis, the queue and the model listing read
it in place and give what a copying import of the same rows gives; a changed
or unreachable source is named in one line; the secret never lands in the
database file or the output."""
from __future__ import annotations

import io
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audit.analyze import analyze_benchmark
from audit.errors import InputError
from audit.ingest import import_predictions, import_questions, list_models, register_predictions_in_place
from audit.report import build_report
from audit.review import item_view, review_queue
from audit.store import connect
from audit.store import sources as _sources
from audit.store.sources import SourceError, registered_sources
from tests.support.cli_process import run_audit

ROOT = Path(__file__).resolve().parents[2]
BENCH = "toy"
N_Q, MODELS = 60, ["alpha-1", "alpha-2", "beta-7b", "gamma-x", "delta-3", "eps-9", "zeta-2", "eta-1"]
SECRET = "s3cr3t-Sauce-0987zyx"
KEY_ID = "AKIDINPLACETEST42"


def _questions(tmp: Path) -> Path:
    lines = ["id,question,A,B,C,D,answer"]
    for i in range(N_Q):
        lines.append(f"q{i:03d},question {i}?,a{i},b{i},c{i},d{i},{'ABCD'[i % 4]}")
    p = tmp / "q.csv"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _predictions(seed: int = 7) -> pa.Table:
    """Seeded answers: most models pick the key, a block of items has a
    popular wrong answer (so tiers 1-3 are populated), plus invalid cells
    (a letter past the options, an empty cell), lower case and Tibetan."""
    rng = np.random.default_rng(seed)
    qid, model, answer = [], [], []
    for i in range(N_Q):
        key = "ABCD"[i % 4]
        wrong = "ABCD"[(i + 1) % 4]
        p_wrong = 0.85 if i < 12 else 0.5 if i < 20 else 0.08
        for m in MODELS:
            r = rng.random()
            a = wrong if r < p_wrong else key if r < 0.96 else rng.choice(["Z", "", "x"])
            if a == "A" and rng.random() < 0.2:
                a = rng.choice(["a", "ཀ"])
            qid.append(f"q{i:03d}")
            model.append(m)
            answer.append(a)
    return pa.table({"question_id": qid, "model": model, "answer": answer,
                     "note": ["extra column, ignored"] * len(qid)})


def _base_db(tmp: Path, name: str) -> Path:
    db = tmp / f"{name}.duckdb"
    import_questions(_questions(tmp), benchmark=BENCH, db=db)
    return db


def _results(db: Path) -> tuple[list, list]:
    analyze_benchmark(BENCH, db=db)
    with connect(db, read_only=True) as con:
        tiers = con.execute(
            "SELECT question_id, tier, bucket, top_answer, agreement_count, agreeing_families, n_models, n_valid, "
            "n_correct FROM audit_results WHERE run_id = (SELECT max(run_id) FROM audit_runs) "
            "ORDER BY question_id").fetchall()
        scores = con.execute(
            "SELECT question_id, score FROM key_error_scores WHERE run_id = (SELECT max(run_id) FROM audit_runs) "
            "ORDER BY question_id").fetchall()
    return tiers, scores


@pytest.fixture(scope="module")
def by_copy(tmp_path_factory) -> tuple[list, list, list]:
    """Tiers and scores of the same rows imported by copy (the reference)."""
    tmp = tmp_path_factory.mktemp("copy")
    db = _base_db(tmp, "copy")
    pq.write_table(_predictions().drop(["note"]), tmp / "p.parquet")
    import_predictions(tmp / "p.parquet", benchmark=BENCH, db=db)
    tiers, scores = _results(db)
    queue = review_queue(BENCH, db=db)["question_id"].tolist()
    return tiers, scores, queue, _report(db), _item(db)


def _report(db: Path) -> str:
    """The report JSON without the run's identity and time."""
    import json

    report = build_report(BENCH, db=db)
    report.pop("run")
    return json.dumps(report, sort_keys=True, default=str)


def _item(db: Path) -> list:
    view = item_view(BENCH, "q002", db=db)
    return sorted((a.model, a.answer, a.valid, a.response, a.run, a.method) for f in view.families for a in f.answers)


def _same_as_copy(db: Path, by_copy) -> None:
    tiers, scores = _results(db)
    ref_tiers, ref_scores, ref_queue, ref_report, ref_item = by_copy
    assert len(tiers) == N_Q and tiers == ref_tiers
    assert len({t[1] for t in tiers}) >= 3, "the seeded data should populate several tiers"
    assert [q for q, _ in scores] == [q for q, _ in ref_scores]
    assert np.allclose([s for _, s in scores], [s for _, s in ref_scores], rtol=0, atol=1e-9)
    assert review_queue(BENCH, db=db)["question_id"].tolist() == ref_queue
    assert _report(db) == ref_report
    assert _item(db) == ref_item and len(ref_item) == len(MODELS)


def _split(table: pa.Table, folder: Path, parts: int = 3) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    n = table.num_rows
    out = []
    for k in range(parts):
        p = folder / f"part-{k}.parquet"
        pq.write_table(table.slice(k * n // parts, (k + 1) * n // parts - k * n // parts), p)
        out.append(p)
    return out


# -- local -------------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_local_file_reads_in_place_like_a_copy(tmp_path, by_copy):
    db = _base_db(tmp_path, "file")
    pq.write_table(_predictions(), tmp_path / "p.parquet")
    s = register_predictions_in_place(tmp_path / "p.parquet", benchmark=BENCH, db=db)
    assert (s.files, s.predictions, s.models, s.ignored_columns) == (1, N_Q * len(MODELS), sorted(MODELS), ["note"])
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM predictions").fetchall()[0][0] == 0   # nothing copied
        src = registered_sources(con)
        stored = con.execute("SELECT * FROM all_predictions ORDER BY question_id, model").fetchall()
    assert src.loc[0, "uri"] == str(tmp_path / "p.parquet") and src.loc[0, "n_rows"] == s.predictions
    assert sorted(src.loc[0, "models"]) == sorted(MODELS) and len(src.loc[0, "fingerprint"]) == 64
    _same_as_copy(db, by_copy)
    assert set(list_models(db=db, benchmark=BENCH)["n_predictions"]) == {N_Q}
    # the letters are read as a copying import stores them: Tibetan and lower case mapped, bad cells invalid
    assert {r[5] for r in stored} <= {"A", "B", "C", "D", None}
    assert s.valid == sum(1 for r in stored if r[7])


@pytest.mark.slow
def test_local_folder_and_glob(tmp_path, by_copy):
    _split(_predictions(), tmp_path / "preds")
    (tmp_path / "preds" / "README.txt").write_text("not parquet")
    db = _base_db(tmp_path, "folder")
    s = register_predictions_in_place(tmp_path / "preds", benchmark=BENCH, db=db)
    assert s.files == 3 and s.predictions == N_Q * len(MODELS)
    _same_as_copy(db, by_copy)

    # part files whose columns come in another order (or are missing in one) are read by name
    parts = _split(_predictions(), tmp_path / "mixed")
    t1 = pq.read_table(parts[1])
    pq.write_table(t1.select(["answer", "model", "question_id"]), parts[1])
    db3 = _base_db(tmp_path, "mixed")
    s3 = register_predictions_in_place(tmp_path / "mixed", benchmark=BENCH, db=db3)
    assert s3.predictions == N_Q * len(MODELS)
    _same_as_copy(db3, by_copy)

    db2 = _base_db(tmp_path, "glob")
    s2 = register_predictions_in_place(str(tmp_path / "preds" / "part-[01].parquet"), benchmark=BENCH, db=db2)
    assert s2.files == 2 and s2.predictions < N_Q * len(MODELS)


def test_local_change_is_named_and_refresh_fixes_it(tmp_path, monkeypatch):
    monkeypatch.setattr(_sources, "CHECK_EVERY", 0.0)
    files = _split(_predictions(), tmp_path / "preds")
    db = _base_db(tmp_path, "change")
    register_predictions_in_place(tmp_path / "preds", benchmark=BENCH, db=db)
    analyze_benchmark(BENCH, db=db)
    t = _predictions()
    pq.write_table(t.slice(0, 10), files[0])   # the first part shrinks
    with pytest.raises(SourceError, match=r"prediction source .*preds \(benchmark 'toy'\) changed since it was "
                                           r"registered: .*part-0.parquet changed \(size .*--refresh"):
        analyze_benchmark(BENCH, db=db)
    # a command that does not read predictions still works
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM questions").fetchall()[0][0] == N_Q
    (tmp_path / "preds" / "part-9.parquet").write_bytes(files[1].read_bytes())
    with pytest.raises(SourceError, match=r"1 file\(s\) added"):
        analyze_benchmark(BENCH, db=db)
    (tmp_path / "preds" / "part-9.parquet").unlink()
    s = register_predictions_in_place(tmp_path / "preds", benchmark=BENCH, db=db, refresh=True)
    assert s.refreshed and s.predictions == N_Q * len(MODELS) - (len(t) // 3 - 10)
    analyze_benchmark(BENCH, db=db)
    # dropping the registration leaves the files alone
    register_predictions_in_place(tmp_path / "preds", benchmark=BENCH, db=db, forget=True)
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM all_predictions").fetchall()[0][0] == 0
    assert all(f.exists() for f in files)


def test_registration_validates_all_or_nothing(tmp_path):
    db = _base_db(tmp_path, "bad")
    t = _predictions()

    def refused(table: pa.Table, pattern: str, **kw) -> None:
        p = tmp_path / "bad.parquet"
        pq.write_table(table, p)
        with pytest.raises(InputError, match=pattern):
            register_predictions_in_place(p, benchmark=BENCH, db=db, **kw)
        with connect(db, read_only=True) as con:
            assert con.execute("SELECT count(*) FROM prediction_sources").fetchall()[0][0] == 0
            assert con.execute("SELECT count(*) FROM models").fetchall()[0][0] == 0

    ids = t.column("question_id").to_pylist()
    ids[5] = "nope"
    refused(
        t.set_column(0, "question_id", pa.array(ids)), r"bad.parquet:6: 1 prediction\(s\) for question ids .*'nope'"
    )
    ids = t.column("question_id").to_pylist()
    ids[7] = "  "
    refused(t.set_column(0, "question_id", pa.array(ids)), r"bad.parquet:8: empty question_id")
    refused(t.drop(["answer"]), r"missing required column\(s\): answer")
    refused(t.drop(["model"]), r"missing required column\(s\): model \(or pass --model\)")
    refused(pa.concat_tables([t, t.slice(3, 1)]), r"bad.parquet:4: more than one prediction for question 'q000'")
    refused(t.rename_columns(["qid", "model", "answer", "note"]), r"mapped field 'id' is not in the files",
            mapping={"id": "question_id"})
    empty = t.set_column(2, "answer", pa.array([None if m == "eta-1" else a for m, a in
                                                zip(t.column("model").to_pylist(), t.column("answer").to_pylist())]))
    refused(empty, r"model\(s\) 'eta-1' entirely empty")
    with pytest.raises(SourceError, match=r"prediction source .*missing.parquet is unreachable: not found"):
        register_predictions_in_place(tmp_path / "missing.parquet", benchmark=BENCH, db=db)
    # a mapping and --model work
    p = tmp_path / "one.parquet"
    pq.write_table(t.filter(pa.compute.equal(t.column("model"), "eta-1")).drop(["model"])
                   .rename_columns(["qid", "letter", "note"]), p)
    s = register_predictions_in_place(p, benchmark=BENCH, db=db, model="eta-1",
                                      mapping={"qid": "question_id", "letter": "answer"})
    assert s.models == ["eta-1"] and s.predictions == N_Q
    # the same model again (another source, or stored rows) is refused
    pq.write_table(t.filter(pa.compute.equal(t.column("model"), "eta-1")), tmp_path / "two.parquet")
    with pytest.raises(InputError, match="already comes from the in-place source"):
        register_predictions_in_place(tmp_path / "two.parquet", benchmark=BENCH, db=db)
    with pytest.raises(InputError, match="already registered"):
        register_predictions_in_place(p, benchmark=BENCH, db=db, model="eta-1",
                                      mapping={"qid": "question_id", "letter": "answer"})


# -- S3 (moto's server on 127.0.0.1) -----------------------------------------------------------------------------

@pytest.fixture
def s3(monkeypatch):
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
           "AWS_ENDPOINT_URL": f"http://{host}:{port}", "AWS_REGION": "us-east-1"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    import boto3

    client = boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"], region_name="us-east-1")
    client.create_bucket(Bucket="leaderboard")
    state = {"server": server, "stopped": False}
    yield client, env, state
    if not state["stopped"]:
        server.stop()


def _put(client, key: str, table: pa.Table) -> None:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    client.put_object(Bucket="leaderboard", Key=key, Body=buf.getvalue())


def _cli(db: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    full = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return run_audit(["--db", str(db), *args], module="audit", env=full, timeout=300, cwd=ROOT)


@pytest.mark.slow
def test_s3_register_analyze_change_and_stop(tmp_path, s3, by_copy, monkeypatch):
    client, env, state = s3
    t = _predictions()
    n = t.num_rows
    _put(client, "runs/2026/part-0.parquet", t.slice(0, n // 2))
    _put(client, "runs/2026/part-1.parquet", t.slice(n // 2))
    client.put_object(Bucket="leaderboard", Key="runs/2026/_SUCCESS", Body=b"")
    db = _base_db(tmp_path, "s3")
    uri = "s3://leaderboard/runs/2026/"

    r = _cli(db, "import", "predictions", "--in-place", uri, "-b", BENCH, env=env)
    assert r.returncode == 0, r.stderr
    assert "2 Parquet file(s)" in r.stdout and f"{n:,} predictions of {len(MODELS)} model(s)" in r.stdout
    with connect(db, read_only=True) as con:
        listing = con.execute("SELECT listing::VARCHAR, protocol FROM prediction_sources").fetchall()[0]
    assert listing[1] == "s3" and "part-1.parquet" in listing[0] and len(eval(listing[0])[0][2]) == 32   # ETags
    r = _cli(db, "analyze", "-b", BENCH, env=env)
    assert r.returncode == 0, r.stderr
    logs = r.stdout + r.stderr
    _same_as_copy(db, by_copy)

    # a glob over the same bucket
    db_glob = _base_db(tmp_path, "s3glob")
    s = register_predictions_in_place("s3://leaderboard/runs/*/part-1.parquet", benchmark=BENCH, db=db_glob)
    assert s.files == 1 and s.predictions == n - n // 2

    # an object changes: one line naming the source and the refresh command, exit 1
    _put(client, "runs/2026/part-1.parquet", t.slice(n // 2, 100))
    r = _cli(db, "analyze", "-b", BENCH, env=env)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: prediction source {uri} (benchmark 'toy') changed since it was registered")
    assert "runs/2026/part-1.parquet changed (size" in lines[0] and "--refresh" in lines[0]
    logs += r.stdout + r.stderr
    r = _cli(db, "import", "predictions", "--in-place", uri, "-b", BENCH, "--refresh", env=env)
    assert r.returncode == 0 and "refreshed" in r.stdout, r.stderr
    r = _cli(db, "analyze", "-b", BENCH, env=env)
    assert r.returncode == 0, r.stderr

    # no credentials in the environment: named as such
    r = _cli(db, "analyze", "-b", BENCH, env={**env, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "",
                                             "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
                                             "AWS_CONFIG_FILE": str(tmp_path / "none"),
                                             "AWS_EC2_METADATA_DISABLED": "true"})
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "is unreachable: no credentials" in r.stderr

    # the server stops: one line naming the source and the reason
    state["server"].stop()
    state["stopped"] = True
    t0 = time.monotonic()
    r = _cli(db, "analyze", "-b", BENCH, env=env)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert f"prediction source {uri} (benchmark 'toy') is unreachable: connection refused" in r.stderr
    assert time.monotonic() - t0 < 60
    logs += r.stdout + r.stderr
    # commands that do not read predictions still work
    r = _cli(db, "models", "list", env=env)
    assert "Traceback" not in r.stderr

    # the secret never lands in the database file nor in the output
    for f in tmp_path.glob("s3*.duckdb*"):
        assert SECRET.encode() not in f.read_bytes() and KEY_ID.encode() not in f.read_bytes()
    assert SECRET not in logs and KEY_ID not in logs


@pytest.mark.slow
def test_s3_refused_and_unreachable_at_registration(tmp_path, s3):
    client, env, state = s3
    db = _base_db(tmp_path, "s3bad")
    with pytest.raises(SourceError, match=r"s3://leaderboard/nothing/ is unreachable: not found|no Parquet file"):
        register_predictions_in_place("s3://leaderboard/nothing/", benchmark=BENCH, db=db)
    with pytest.raises(InputError, match="credentials do not belong in the source URI"):
        register_predictions_in_place(f"s3://{KEY_ID}:{SECRET}@leaderboard/x.parquet", benchmark=BENCH, db=db)
    state["server"].stop()
    state["stopped"] = True
    r = _cli(db, "import", "predictions", "--in-place", "s3://leaderboard/runs/", "-b", BENCH, env=env)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "connection refused" in r.stderr, r.stderr
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM prediction_sources").fetchall()[0][0] == 0


# -- hf:// (a fake fsspec filesystem under the hf protocol) ----------------------------------------------------

@pytest.mark.slow
def test_hf_code_path_with_a_fake_filesystem(tmp_path, by_copy, monkeypatch):
    from fsspec.implementations.memory import MemoryFileSystem

    class FakeHub(MemoryFileSystem):
        """Files in memory, listed with a git blob id like the Hub's."""

        protocol = ("hf",)
        store: dict = {}
        pseudo_dirs = [""]

        @classmethod
        def _strip_protocol(cls, path):
            return MemoryFileSystem._strip_protocol(path[len("hf://"):] if path.startswith("hf://") else path)

        def info(self, path, **kw):
            out = dict(super().info(path, **kw))
            if out.get("type") == "file":
                import hashlib

                out["blob_id"] = hashlib.sha1(self.cat_file(path)).hexdigest()
            return out

    import importlib

    monkeypatch.setitem(importlib.import_module("fsspec.registry")._registry, "hf", FakeHub)   # undone after the test
    monkeypatch.setattr(_sources, "CHECK_EVERY", 0.0)
    fs = FakeHub()
    t = _predictions()
    for k, part in enumerate((t.slice(0, 200), t.slice(200))):
        buf = io.BytesIO()
        pq.write_table(part, buf)
        fs.pipe_file(f"/datasets/org/leaderboard/preds/part-{k}.parquet", buf.getvalue())
    db = _base_db(tmp_path, "hf")
    s = register_predictions_in_place("hf://datasets/org/leaderboard/preds", benchmark=BENCH, db=db)
    assert s.files == 2 and s.predictions == t.num_rows
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT protocol FROM prediction_sources").fetchall() == [("hf",)]
    _same_as_copy(db, by_copy)
    buf = io.BytesIO()
    pq.write_table(t.slice(0, 199), buf)
    fs.pipe_file("/datasets/org/leaderboard/preds/part-0.parquet", buf.getvalue())
    with pytest.raises(SourceError, match=r"hf://datasets/org/leaderboard/preds \(benchmark 'toy'\) changed"):
        analyze_benchmark(BENCH, db=db)


def test_a_file_broken_after_the_check_is_named_not_a_traceback(tmp_path, monkeypatch):
    """The listing is trusted for CHECK_EVERY seconds: a file broken inside
    that window fails the read with one line naming the source."""
    monkeypatch.setattr(_sources, "CHECK_EVERY", 3600.0)
    db = _base_db(tmp_path, "broken")
    pq.write_table(_predictions(), tmp_path / "p.parquet")
    register_predictions_in_place(tmp_path / "p.parquet", benchmark=BENCH, db=db)
    (tmp_path / "p.parquet").write_bytes(b"not a parquet file")
    with pytest.raises(SourceError, match=r"^the prediction source\(s\) .*p.parquet cannot be read"):
        with connect(db, read_only=True) as con:
            assert con.execute("SELECT count(*) FROM questions").fetchall()[0][0] == N_Q
            con.execute("SELECT count(*) FROM all_predictions").fetchall()


def test_no_source_costs_one_small_query_per_connection(tmp_path):
    db = _base_db(tmp_path, "plain")
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE temporary AND view_name = 'all_predictions'"
                           ).fetchall()[0][0] == 0
        t0 = time.perf_counter()
        for _ in range(200):
            _sources.attach(con)
        per_call = (time.perf_counter() - t0) / 200
    assert per_call < 0.005, f"{per_call * 1000:.2f} ms per connection"


def test_a_database_from_before_migration_31_reads_through_the_relation(tmp_path):
    """A reader (the workbench opens read-only) of a file no writer has
    migrated yet still finds all_predictions: the stored rows."""
    from tests.conftest import database_before

    db = tmp_path / "old.duckdb"
    con = database_before(db, 31)
    con.execute("INSERT INTO predictions VALUES ('b', 'q1', 'm', 'default', NULL, 'A', 'given', true)")
    con.close()
    with connect(db, read_only=True) as con:
        assert not con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = "
                               "'prediction_sources'").fetchall()[0][0]
        assert con.execute("SELECT model, answer FROM all_predictions").fetchall() == [("m", "A")]


def test_readers_read_the_one_predictions_relation():
    """Every query that reads predictions goes through ``all_predictions``
    (so registered sources are seen); only the writers of the stored rows
    and storage maintenance name the ``predictions`` table."""
    import re

    writers = {"ingest/_predictions.py", "ingest/responses.py", "predict/_run.py", "predict/_reextract.py",
               "ingest/formats/_outputs.py", "ingest/_in_place.py", "store/layout.py", "store/sources.py"}
    pattern = re.compile(r"\b(FROM|JOIN)\s+(main\.)?predictions\b", re.IGNORECASE)
    offenders = []
    for path in sorted((ROOT / "audit").rglob("*.py")):
        rel = path.relative_to(ROOT / "audit").as_posix()
        if rel in writers:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"audit/{rel}:{n}: {line.strip()}")
    assert not offenders, "read all_predictions, not the predictions table:\n" + "\n".join(offenders)
