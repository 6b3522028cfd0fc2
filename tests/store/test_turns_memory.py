"""The memory settings that let 100 M predictions fit under 3 GB:
every connection is opened with a bounded ``memory_limit`` and a
``temp_directory`` to spill to, and an import larger than the limit
succeeds by spilling (the same import without anywhere to spill runs out
of memory and leaves the database unchanged)."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import duckdb
import pytest

from audit.errors import AuditError, InputError
from audit.ingest import import_predictions, import_questions
from audit.store import connect
from audit.store import turns as _db

_BENCH = Path(__file__).resolve().parents[1] / "bench" / "scale_data.py"


def _scale_data():
    spec = importlib.util.spec_from_file_location("_scale_data_for_test", _BENCH)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_UNITS = {"B": 1, "BYTES": 1, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40,
          "KB": 10**3, "MB": 10**6, "GB": 10**9}


def _bytes(text: str) -> float:
    """DuckDB's rendering of a size ('1.4 GiB', '286.1 MiB') in bytes."""
    m = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]+)\s*", text)
    assert m, text
    return float(m.group(1)) * _UNITS[m.group(2).upper()]


def _settings(con) -> dict[str, str]:
    return dict(con.execute(
        "SELECT name, value FROM duckdb_settings() WHERE name IN ('memory_limit', 'temp_directory', 'threads')"
    ).fetchall())


@pytest.fixture
def clean_env(monkeypatch):
    for var in (_db.MEMORY_LIMIT_ENV, _db.TEMP_DIR_ENV, _db.THREADS_ENV):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_default_settings_on_writers_and_readers(tmp_path, clean_env):
    db = tmp_path / "x.duckdb"
    for read_only in (False, True):
        with connect(db, read_only=read_only) as con:
            s = _settings(con)
        # 1 GB as DuckDB renders it (953.6 MiB): the designed bound, not DuckDB's 80 % of RAM
        assert abs(_bytes(s["memory_limit"]) - 10**9) / 10**9 < 0.01, s
        assert Path(s["temp_directory"]) == Path(str(db) + ".tmp")
    # an unconfigured DuckDB on this machine would allow more: the setting is ours
    plain = duckdb.connect()
    try:
        assert _bytes(_settings(plain)["memory_limit"]) != pytest.approx(_bytes(s["memory_limit"]), rel=0.05)
    finally:
        plain.close()


def test_environment_overrides(tmp_path, clean_env):
    db = tmp_path / "x.duckdb"
    spill = tmp_path / "spill here"
    clean_env.setenv(_db.MEMORY_LIMIT_ENV, "300MB")
    clean_env.setenv(_db.TEMP_DIR_ENV, str(spill))
    clean_env.setenv(_db.THREADS_ENV, "1")
    with connect(db) as con:
        s = _settings(con)
    assert _bytes(s["memory_limit"]) == pytest.approx(300 * 10**6, rel=0.01)
    assert Path(s["temp_directory"]) == spill
    assert s["threads"] == "1"
    clean_env.setenv(_db.THREADS_ENV, "many")
    with pytest.raises(AuditError, match="AUDIT_DB_THREADS"):
        with connect(tmp_path / "y.duckdb"):
            pass


@pytest.mark.slow
def test_import_spills_under_a_small_memory_limit(tmp_path, clean_env):
    """500,000 predictions (10 % raw responses, extracted on import) under a
    40 MB limit: the import succeeds because DuckDB spills to the temp
    directory; the same import with spilling switched off runs out of
    memory, says so in one line and leaves the database as it was."""
    info = _scale_data().generate_parquet(tmp_path / "data", 5_000, 100, chunk_questions=1_000)
    clean_env.setenv(_db.MEMORY_LIMIT_ENV, "40MB")

    db = tmp_path / "spill.duckdb"
    import_questions(info["questions_path"], benchmark="s", db=db)
    s = import_predictions(info["predictions_path"], benchmark="s", layout="long", db=db, progress=False)
    assert s.predictions == 500_000
    assert s.extracted == info["n_raw"] > 40_000           # the raw-response share went through extraction
    with connect(db, read_only=True) as con:
        n, n_extracted, lim = con.execute(
            "SELECT count(*), count(*) FILTER (method <> 'given'), current_setting('memory_limit') "
            "FROM predictions").fetchone()
    assert (n, n_extracted) == (500_000, info["n_raw"])
    assert _bytes(lim) <= 41 * 10**6

    # the control: no temp directory → the same import cannot fit
    db2 = tmp_path / "nospill.duckdb"
    import_questions(info["questions_path"], benchmark="s", db=db2)
    orig = _db.connection_config
    clean_env.setattr(_db, "connection_config", lambda p: {**orig(p), "temp_directory": ""})
    with pytest.raises(InputError, match="(?i)out of memory"):
        import_predictions(info["predictions_path"], benchmark="s", layout="long", db=db2, progress=False)
    with connect(db2, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM predictions").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM questions").fetchone()[0] == 5_000


def _question_frame(n: int):
    import pandas as pd

    # a pandas index that is not 0..n-1: stored in the file as a column the importer must not see as a field
    return pd.DataFrame({"id": [f"q{i}" for i in range(n)], "question": [f"{i} + 1?" for i in range(n)],
                         "A": [str(i + 1) for i in range(n)], "B": [str(i + 2) for i in range(n)],
                         "C": ["ཀ"] * n, "answer": ["A" if i % 3 else "c" for i in range(n)]},
                        index=range(100, 100 + n))


@pytest.mark.slow
def test_large_parquet_questions_read_in_batches(tmp_path, monkeypatch):
    """A question Parquet file past one batch (20,000 rows) is read batch
    by batch and stores exactly what reading it whole stores; a bad row in
    the second batch is reported with its row number in the file."""
    import audit.ingest._questions as Q
    from audit._util.files import iter_table

    n = 20_005
    f = tmp_path / "q.parquet"
    _question_frame(n).to_parquet(f)
    seen: list[int] = []
    real = Q._table_chunks

    def spy(p, chunk_rows=20_000, **kwargs):
        for df in real(p, chunk_rows, **kwargs):
            seen.append(len(df))
            yield df

    monkeypatch.setattr(Q, "_table_chunks", spy)
    s = import_questions(f, benchmark="b", db=tmp_path / "chunked.duckdb")
    assert s.questions == n and seen == [20_000, 5]
    monkeypatch.setattr(Q, "_table_chunks", lambda p, chunk_rows=0, **kw: iter_table(p, **kw))   # the whole-file reader
    import_questions(f, benchmark="b", db=tmp_path / "whole.duckdb")
    rows = {}
    for name in ("chunked", "whole"):
        with connect(tmp_path / f"{name}.duckdb", read_only=True) as con:
            rows[name] = con.execute(
                "SELECT question_id, seq, stem, options, answer_key, script, flags, raw_text, source_record::VARCHAR "
                "FROM questions ORDER BY seq").fetchall()
    assert len(rows["chunked"]) == n and rows["chunked"] == rows["whole"]

    monkeypatch.setattr(Q, "_table_chunks", real)
    bad = _question_frame(n)
    bad.loc[100 + 20_002, "question"] = " "
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(InputError, match=r"bad\.parquet:20003: empty question text"):
        import_questions(tmp_path / "bad.parquet", benchmark="c", db=tmp_path / "bad.duckdb")
    with connect(tmp_path / "bad.duckdb") as con:
        assert con.execute("SELECT count(*) FROM questions").fetchone()[0] == 0
