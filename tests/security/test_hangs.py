"""Work that grows with the number of models, names or files grows
linearly: the look-alike check goes through an index (not every new name
against every known one), report sections scale with the models or say
that they are skipped, a folder of small files costs about what one file
with the same rows costs, and a models file is written in one statement.

Measured before: 10,000 models took 112 s to import, ``report`` was not
done after 240 s, 3,000 one-row files took 75 s.  These tests count the
work itself — skeletons computed, statements sent, connections opened and
files read, the size of the report — at a size where the quadratic code
did thousands of times too much, so a machine's load cannot make them
flaky.  The clock, with a budget per step at full size (100,000 names,
10,000 models, 3,000 files), is ``tests/bench/bench_security_scale.py``."""
from __future__ import annotations

import random
from contextlib import contextmanager

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import audit
from audit._util import files as _files
from audit._util import names as _names
from audit.ingest import list_models

pytestmark = pytest.mark.slow

N = 2000


@pytest.fixture
def skeletons(monkeypatch):
    """Every name skeleton computed (the unit of the look-alike check)."""
    calls: list[str] = []
    real = _names.name_skeleton

    def counting(name):
        calls.append(name)
        return real(name)

    monkeypatch.setattr(_names, "name_skeleton", counting)
    return calls


@pytest.fixture
def bench(tmp_path):
    db = tmp_path / "t.duckdb"
    (tmp_path / "q.csv").write_text("id,question,A,B,C,D,answer\n"
                                    + "".join(f"q{i},Q{i}?,a,b,c,d,A\n" for i in range(10)))
    audit.import_questions(tmp_path / "q.csv", benchmark="b", db=db)
    return db


def linear(calls: list, n: int) -> None:
    """At most a few skeletons per name (each new name once, each known one
    once for the index); the pairwise check needed about n²/2."""
    assert len(calls) <= 3 * n + 50, f"{len(calls):,} skeletons for {n:,} names: not linear"


# ---------------------------------------------------------------- the reported cases

def test_importing_many_new_model_names_is_linear(bench, tmp_path, skeletons):
    """2,000 new model names (before: 10,000 took 112 s; quadratic)."""
    (tmp_path / "p.csv").write_text("question_id,model,answer\n" + "".join(f"q{j % 10},model-{j:06d},B\n"
                                                                          for j in range(N)))
    audit.import_predictions(tmp_path / "p.csv", benchmark="b", db=bench)
    linear(skeletons, N)
    assert len(list_models(db=bench)) == N


def test_registering_an_in_place_parquet_with_many_models_is_linear(bench, tmp_path, skeletons):
    """The in-place form (before: 333,000 models never finished)."""
    from audit.ingest import register_predictions_in_place

    pq.write_table(pa.table({"question_id": [f"q{j % 10}" for j in range(N)],
                             "model": [f"model-{j:06d}" for j in range(N)], "answer": ["B"] * N}),
                   tmp_path / "p.parquet")
    register_predictions_in_place(tmp_path / "p.parquet", benchmark="b", db=bench)
    linear(skeletons, N)
    assert len(list_models(db=bench)) == N


def _report_size(tmp_path, n: int) -> str:
    d = tmp_path / f"r{n}"
    d.mkdir()
    db, q = d / "t.duckdb", 20
    rng = random.Random(1)
    (d / "q.csv").write_text("id,question,A,B,C,D,answer\n" + "".join(f"q{i},Q{i}?,a,b,c,d,A\n" for i in range(q)))
    audit.import_questions(d / "q.csv", benchmark="b", db=db)
    (d / "p.csv").write_text("question_id," + ",".join(f"m{j:05d}" for j in range(n)) + "\n"
                             + "".join(f"q{i}," + ",".join(rng.choice("AABCD") for _ in range(n)) + "\n"
                                       for i in range(q)))
    audit.import_predictions(d / "p.csv", benchmark="b", db=db, layout="wide")
    audit.analyze_benchmark("b", db=db)
    from audit.report import benchmark_report

    text = benchmark_report("b", db=db)
    assert all(f"m{j:05d}" in text for j in range(n)), "a model is missing from the report"
    return text


def test_report_with_many_models_answers_in_time(tmp_path):
    """150 and 300 models (before: 10,000 did not finish in 240 s; the
    pairwise sections grow with the square).  Twice the models make at
    most about twice the report (the square makes four times), and the
    report still names every model in its per-model sections."""
    small, large = _report_size(tmp_path, 150), _report_size(tmp_path, 300)
    assert len(large) <= 2.5 * len(small), (len(small), len(large))


def test_a_folder_of_one_row_files_costs_about_one_file(tmp_path, monkeypatch):
    """400 one-row question files against one file of 400 rows (before:
    3,000 files took 75 s, 25 ms a file: a new DuckDB connection per file
    and every file read twice).  Each file is read once, and the
    connections opened do not grow with the number of files."""
    import duckdb

    n = 400
    (tmp_path / "one").mkdir()
    (tmp_path / "many").mkdir()
    (tmp_path / "one" / "all.csv").write_text("id,question,A,B,answer\n" + "".join(f"x{i},Q{i}?,a,b,A\n"
                                                                                 for i in range(n)))
    for i in range(n):
        (tmp_path / "many" / f"s{i:04d}.csv").write_text(f"id,question,A,B,answer\nx{i},Q{i}?,a,b,A\n")
    reads: list[str] = []
    connects: list[int] = []
    real_header, real_connect = _files.csv_header, duckdb.connect

    def header(path, *a, **k):
        reads.append(str(path))
        return real_header(path, *a, **k)

    def connect(*a, **k):
        connects.append(1)
        return real_connect(*a, **k)

    monkeypatch.setattr(_files, "csv_header", header)
    monkeypatch.setattr(duckdb, "connect", connect)
    db = tmp_path / "t.duckdb"
    audit.import_questions(tmp_path / "one", benchmark="one", db=db)
    one_connects = len(connects)
    reads.clear()
    connects.clear()
    audit.import_questions(tmp_path / "many", benchmark="many", db=db)
    assert len(reads) <= n, f"{len(reads)} reads of {n} files"
    assert len(connects) <= one_connects + 2, f"{len(connects)} connections for {n} files, {one_connects} for one"
    with audit.connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM questions WHERE benchmark = 'many'").fetchone()[0] == n


# ---------------------------------------------------------------- further cases of our own

def test_models_import_of_many_rows_is_linear(tmp_path, monkeypatch):
    """``audit models import`` ran one statement per row (4 ms a row:
    100,000 rows took minutes): 3,000 rows are a handful of statements."""
    import audit.ingest.models as models

    db = tmp_path / "t.duckdb"
    audit.init_db(db)
    (tmp_path / "m.csv").write_text("name,family\n" + "".join(f"mod-{i:06d},fam{i % 7}\n" for i in range(3000)))
    statements: list[str] = []
    real = models.connect

    class Counting:
        def __init__(self, con):
            self._con = con

        def execute(self, sql, *a, **k):
            statements.append(sql)
            return self._con.execute(sql, *a, **k)

        def __getattr__(self, name):
            return getattr(self._con, name)

    @contextmanager
    def counting(*a, **k):
        with real(*a, **k) as con:
            yield Counting(con)

    monkeypatch.setattr(models, "connect", counting)
    assert audit.import_models(tmp_path / "m.csv", db=db) == 3000
    assert len(statements) <= 30, f"{len(statements):,} statements for 3,000 rows"
    assert set(list_models(db=db)["family"]) == {f"fam{i}" for i in range(7)}


def test_many_new_model_names_in_a_wide_file_are_linear(bench, tmp_path, skeletons):
    """The wide layout (one column per model): the same check, another path."""
    (tmp_path / "p.csv").write_text("question_id," + ",".join(f"m{j:05d}" for j in range(N)) + "\n"
                                    + "".join(f"q{i}," + ",".join("B" for _ in range(N)) + "\n" for i in range(3)))
    audit.import_predictions(tmp_path / "p.csv", benchmark="b", db=bench, layout="wide")
    linear(skeletons, N)
    assert len(list_models(db=bench)) == N


def test_look_alike_names_among_many_are_still_found(bench, tmp_path, skeletons):
    """The correct result the index must keep: among 2,000 known models a
    Cyrillic look-alike of one of them is still refused, with one look-up
    (plus the index of the known names), not one comparison per name."""
    (tmp_path / "p.csv").write_text("question_id,model,answer\n" + "".join(f"q{j % 10},model-{j:06d},B\n"
                                                                          for j in range(N)))
    audit.import_predictions(tmp_path / "p.csv", benchmark="b", db=bench)
    (tmp_path / "p2.csv").write_text("question_id,model,answer\nq1,m\u043edel-001234,B\n", encoding="utf-8")
    skeletons.clear()
    with pytest.raises(audit.InputError, match="looks like the existing name 'model-001234'"):
        audit.import_predictions(tmp_path / "p2.csv", benchmark="b", db=bench)
    linear(skeletons, N)
