"""Data that would be read wrongly is refused with one line (nothing
written) or read right — never stored or reported wrong in silence.

Each case states what it guards; "before" says what today's code did.
Most run the public Python API in-process (``audit.<stage>.<name>``) to
keep the suite short; the ones whose symptom is the command's own output
or exit code run the real ``audit`` command."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import audit
from tests.conftest import db_snapshot
from tests.support.attack import REPO, cli
from tests.support.common import rows

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane


def refused(call, db, *, says: str | None = None):
    """``call()`` raises one AuditError line and leaves the database as it was."""
    before = db_snapshot(db)
    with pytest.raises(audit.AuditError) as e:
        call()
    msg = str(e.value)
    assert "\n" not in msg, msg
    if says:
        assert says in msg, msg
    assert db_snapshot(db) == before
    return msg


@pytest.fixture
def geo(db_path, tmp_path):
    """Four items (key A, options A–D)."""
    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,C,D,answer\n" + "".join(f"q{i},Question {i}?,a{i},b{i},c{i},d{i},A\n"
                                                          for i in range(4)))
    audit.import_questions(q, benchmark="geo", db=db_path)
    return db_path


# ---------------------------------------------------------------- in-place sources

def test_an_in_place_parquet_rewritten_to_the_same_size_and_mtime_is_not_read(geo, tmp_path):
    """The fingerprint was (path, size, mtime): a rewrite of the same size
    with its mtime put back was read as if unchanged."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from audit.ingest import register_predictions_in_place

    f = tmp_path / "p.parquet"
    ids = [f"q{i}" for i in range(4)]
    pq.write_table(pa.table({"question_id": ids, "model": ["ip"] * 4, "answer": ["A", "B", "A", "B"]}), f)
    register_predictions_in_place(f, benchmark="geo", db=geo)
    st = os.stat(f)
    pq.write_table(pa.table({"question_id": ids, "model": ["ip"] * 4, "answer": ["B", "A", "B", "A"]}), f)
    assert os.stat(f).st_size == st.st_size, "the rewrite must keep the size for this case"
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    read = ("import sys; from audit.store import connect\n"
            "with connect(sys.argv[1], read_only=True) as con:\n"
            "    print(con.execute(\"SELECT answer FROM all_predictions WHERE model = 'ip' ORDER BY question_id\")"
            ".fetchall())\n")
    r = subprocess.run([sys.executable, "-c", read, str(geo)], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert "[('B',), ('A',), ('B',), ('A',)]" not in r.stdout, "the changed file was read as the registered one"
    assert r.returncode != 0 and "changed" in r.stderr, (r.stdout, r.stderr[-300:])


def test_predictions_methods_counts_in_place_sources(geo, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from audit.ingest import register_predictions_in_place
    from audit.predict import extraction_methods

    f = tmp_path / "p.parquet"
    pq.write_table(pa.table({"question_id": [f"q{i}" for i in range(4)], "model": ["ip"] * 4,
                             "answer": ["A", "B", "A", "B"]}), f)
    register_predictions_in_place(f, benchmark="geo", db=geo)
    df = extraction_methods("geo", db=geo)
    assert "ip" in set(df["model"]), df


def test_forget_and_refresh_together_are_refused(geo, tmp_path):
    """Two opposite asks: before, ``--forget`` silently won."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from audit.ingest import register_predictions_in_place

    f = tmp_path / "p.parquet"
    pq.write_table(pa.table({"question_id": ["q0"], "model": ["ip"], "answer": ["A"]}), f)
    register_predictions_in_place(f, benchmark="geo", db=geo)
    refused(lambda: register_predictions_in_place(f, benchmark="geo", db=geo, refresh=True, forget=True), geo)


# ---------------------------------------------------------------- ids that break one-id-per-line files

@pytest.mark.parametrize("sep", ["\n", "\r", "\u2028", "\x85"], ids=["newline", "cr", "line-separator", "nel"])
def test_an_id_holding_a_line_break_never_names_other_items_in_excluded_txt(db_path, tmp_path, sep):
    """``excluded.txt`` is one id per line: an id ``q1<newline>q2`` named
    the two other items q1 and q2.  Refused at import, or the lists stay
    exact."""
    from audit.export import create_version

    odd = f"q1{sep}q2"
    f = tmp_path / "q.jsonl"
    f.write_text("".join(json.dumps({"id": i, "question": f"Item {i!r}?", "A": "x", "B": "y", "answer": "A"}) + "\n"
                         for i in ("q1", "q2", odd)), encoding="utf-8")
    try:
        audit.import_questions(f, benchmark="nl", db=db_path)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
        assert not rows(db_path, "SELECT 1 FROM questions WHERE benchmark = 'nl'")
        return
    audit.add_review("nl", odd, "alice", "ambiguous", db=db_path)
    s = create_version("nl", "1.1", db=db_path, exports_dir=tmp_path / "exports")
    text = (s.path / "excluded.txt").read_bytes().decode("utf-8")
    assert text.splitlines() == [odd], text.splitlines()      # as any reader splits lines (\r, U+2028 too)


# ---------------------------------------------------------------- MMLU-Redux keys

def _redux_parquet(path: Path, gts, ets) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(gts)
    pq.write_table(
        pa.table(
            {
                "question": [f"Q{i}?" for i in range(n)],
                "choices": ["['a', 'b', 'c', 'd']"] * n,
                "groundtruth_answer": pa.array(gts, pa.float64()),
                "error_type": pa.array(ets, pa.string()),
                "m1": ["A"] * n,
            }
        ),
        path,
    )
    return path


def test_mmlu_redux_parquet_float_keys_become_letters(db_path, tmp_path):
    """``0.0`` is option A, ``1.0`` option B (before: keys '0.0' and '1.0')."""
    from audit.ingest import import_mmlu_redux

    import_mmlu_redux(_redux_parquet(tmp_path / "s.parquet", [0.0, 1.0], ["ok", "ok"]), benchmark="rx", db=db_path)
    assert rows(db_path, "SELECT answer_key FROM questions WHERE benchmark = 'rx' ORDER BY question_id") == \
        [("A",), ("B",)]


def test_mmlu_redux_parquet_nan_key_and_nan_label_are_not_data(db_path, tmp_path):
    """A missing key is no key (before: key 'nan'), a missing error label is
    no label (before: 'nan' / 'None' counted as an error)."""
    from audit.ingest import import_mmlu_redux

    path = _redux_parquet(tmp_path / "s.parquet", [0.0, float("nan")], ["ok", None])
    try:
        s = import_mmlu_redux(path, benchmark="rx", db=db_path)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
        return
    keys = [k for (k,) in rows(db_path, "SELECT answer_key FROM questions WHERE benchmark = 'rx'")]
    assert "nan" not in keys and "None" not in keys, keys
    labels = [v for (v,) in rows(db_path, "SELECT value FROM reference_labels WHERE benchmark = 'rx'")]
    assert labels == ["ok"], labels
    assert sum(v for k, v in s.error_types.items() if k != "ok") == 0


def test_mmlu_redux_csv_answer_written_as_a_float(db_path, tmp_path):
    """``groundtruth_answer`` ``1.0`` in a CSV is option B, or a refusal —
    never the key '1.0'."""
    from audit.ingest import import_mmlu_redux

    f = tmp_path / "s.csv"
    f.write_text("question,choices,groundtruth_answer,error_type,m1\nWhat?,\"['a', 'b']\",1.0,ok,A\n")
    try:
        import_mmlu_redux(f, benchmark="rx", db=db_path)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
        return
    assert rows(db_path, "SELECT answer_key FROM questions WHERE benchmark = 'rx'") == [("B",)]


def test_mmlu_redux_parquet_null_answer_is_not_the_key_none(db_path, tmp_path):
    """Our own case: an integer column with a null became the key 'nan'."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from audit.ingest import import_mmlu_redux

    f = tmp_path / "s.parquet"
    pq.write_table(
        pa.table(
            {
                "question": ["Q1?"],
                "choices": ["['a', 'b']"],
                "groundtruth_answer": pa.array([None], pa.int64()),
                "error_type": ["ok"],
                "m1": ["A"],
            }
        ),
        f,
    )
    try:
        import_mmlu_redux(f, benchmark="rx", db=db_path)
    except audit.AuditError:
        return
    keys = rows(db_path, "SELECT answer_key FROM questions WHERE benchmark = 'rx'")
    assert keys in ([(None,)],), keys


# ---------------------------------------------------------------- judge verdict files

def _geo_text(db, tmp_path) -> None:
    q = tmp_path / "gq.csv"
    q.write_text("id,question,A,B,C,answer\ng1,Capital of France?,Rome,Paris,Oslo,B\n")
    audit.import_questions(q, benchmark="g", db=db)


def _detector(tmp_path: Path, verdict: str) -> Path:
    f = tmp_path / "binary_mini_mmlu_groundtruth_correctness_zeroshot_gpt4_geo_enwiki-paragraphs.csv"
    f.write_text("question,choices,model_answer,predicted_error_type\n"
                 f"Capital of France?,\"['Rome', 'Paris', 'Oslo']\",hmm,{verdict}\n")
    return f


@pytest.mark.parametrize("verdict", ["maybe", "", "unsure", "OK?"], ids=["maybe", "empty", "unsure", "ok-question"])
def test_a_detector_verdict_that_is_neither_ok_nor_notok(db_path, tmp_path, verdict):
    """Before: anything but 'ok' was read as 'the key is wrong'."""
    from audit.judge import import_detectors

    _geo_text(db_path, tmp_path)
    refused(lambda: import_detectors(_detector(tmp_path, verdict), benchmark="g", db=db_path), db_path,
            says="predicted_error_type")


def test_a_verdict_table_answer_outside_the_options(db_path, tmp_path):
    """``correct_answer`` E on a three-option item is not an answer."""
    from audit.judge import import_detectors

    _geo_text(db_path, tmp_path)
    f = tmp_path / "v.csv"
    f.write_text("question_id,judge,key_correct,correct_answer\ng1,j1,false,E\n")
    try:
        import_detectors(f, benchmark="g", db=db_path)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
        assert not rows(db_path, "SELECT 1 FROM judge_verdicts")
        return
    assert rows(db_path, "SELECT parse_ok FROM judge_verdicts") == [(False,)], \
        rows(db_path, "SELECT correct_answer, parse_ok FROM judge_verdicts")


def test_a_verdict_table_row_that_contradicts_itself(db_path, tmp_path):
    """``key_correct=true`` with another answer named: stored as
    contradictory (parse_ok false), as ``import judge`` does, or refused."""
    from audit.judge import import_detectors

    _geo_text(db_path, tmp_path)
    f = tmp_path / "v.csv"
    f.write_text("question_id,judge,key_correct,correct_answer\ng1,j1,true,C\n")
    try:
        import_detectors(f, benchmark="g", db=db_path)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
        return
    assert rows(db_path, "SELECT parse_ok FROM judge_verdicts") == [(False,)], \
        rows(db_path, "SELECT answer_key_correct, correct_answer, parse_ok FROM judge_verdicts")


def test_a_review_spreadsheet_is_never_read_as_predictions(geo, tmp_path):
    """Before: ``import auto`` read question_id, reviewer, verdict as wide
    predictions of the models 'reviewer' and 'verdict'."""
    f = tmp_path / "reviews.csv"
    f.write_text("question_id,reviewer,verdict,corrected_answer,cause,rationale\n"
                 "q0,Pema,key_correct,,,fine\nq1,Pema,key_wrong,B,key_slip,typo\n")
    try:
        audit.import_auto(f, benchmark="geo", db=geo)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
    names = {n for (n,) in rows(geo, "SELECT name FROM models")}
    assert not names & {"reviewer", "verdict", "corrected_answer", "cause", "rationale"}, names


# ---------------------------------------------------------------- JSON records

@pytest.mark.parametrize("line", [
    '{"id": "d1", "question": "Dup?", "A": "x", "B": "y", "answer": "A", "answer": "B"}',
    '{"id": "d1", "id": "d2", "question": "Dup?", "A": "x", "B": "y", "answer": "A"}',
], ids=["answer-twice", "id-twice"])
def test_a_json_record_with_a_duplicated_key_is_refused(db_path, tmp_path, line):
    f = tmp_path / "q.jsonl"
    f.write_text(line + "\n")
    refused(lambda: audit.import_questions(f, benchmark="dup", db=db_path), db_path, says="twice")


def test_a_judge_record_with_a_duplicated_verdict_is_refused(geo, tmp_path):
    """Our own case: ``answer_key_correct`` given twice, true then false."""
    f = tmp_path / "j.jsonl"
    f.write_text('{"loc": "q1", "llm_validation": {"answer_key_correct": true, "answer_key_correct": false}}\n')
    refused(lambda: audit.import_judge(f, judge="j1", benchmark="geo", db=geo), geo, says="twice")


def test_a_prediction_record_with_a_duplicated_answer_is_refused(geo, tmp_path):
    """Our own case: a JSONL prediction whose ``answer`` appears twice."""
    f = tmp_path / "p.jsonl"
    f.write_text('{"question_id": "q1", "model": "m1", "answer": "A", "answer": "C"}\n')
    refused(lambda: audit.import_predictions(f, benchmark="geo", db=geo), geo, says="twice")


# ---------------------------------------------------------------- model families

def test_models_import_with_two_rows_for_one_model_is_refused(geo, tmp_path):
    f = tmp_path / "fam.csv"
    f.write_text("name,family\nm1,fa\nm1,fb\n")
    refused(lambda: audit.import_models(f, db=geo), geo, says="m1")


def test_models_import_with_a_case_variant_of_a_known_model(geo, tmp_path):
    """Our own case: ``M1`` beside a known ``m1`` never becomes a second model."""
    p = tmp_path / "p.csv"
    p.write_text("question_id,model,answer\nq0,m1,A\n")
    audit.import_predictions(p, benchmark="geo", db=geo)
    f = tmp_path / "fam.csv"
    f.write_text("name,family\nM1,fa\n")
    try:
        audit.import_models(f, db=geo)
    except audit.AuditError as exc:
        assert "\n" not in str(exc)
    assert sorted(n for (n,) in rows(geo, "SELECT name FROM models")) == ["m1"]


# ---------------------------------------------------------------- commands whose output said the wrong thing

def test_rescore_with_an_unknown_reference_is_refused(tmp_path, db_path):
    from tests.support.attack import cli

    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\n" + "".join(f"q{i},Q{i}?,a,b,A\n" for i in range(4)))
    p = tmp_path / "p.csv"
    p.write_text("question_id,m1,m2,m3\n" + "".join(f"q{i},B,B,A\n" for i in range(4)))
    audit.import_questions(q, benchmark="b", db=db_path)
    audit.import_predictions(p, benchmark="b", db=db_path, layout="wide")
    audit.analyze_benchmark("b", db=db_path)
    before = db_snapshot(db_path)
    r = cli(db_path, "rescore", "-b", "b", "--reference", "no-such-label-set")
    assert "refitted" not in r.stdout, r.stdout
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "no-such-label-set" in r.stderr, r.stderr
    assert db_snapshot(db_path) == before


def test_judge_agreement_never_prints_nan(geo, tmp_path):
    from audit.judge import import_detectors

    f = tmp_path / "v.csv"
    f.write_text("question_id,judge,key_correct\nq0,j1,true\nq1,j1,true\nq0,j2,true\nq1,j2,false\nq3,j3,true\n")
    import_detectors(f, benchmark="geo", db=geo)
    r = cli(geo, "judge", "agreement", "-b", "geo")
    assert r.returncode == 0, r.stderr
    assert "nan" not in r.stdout.lower(), r.stdout


_EMPTY = {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}
_NULL = {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "stop"}]}


@pytest.mark.parametrize("behaviour", [("status", 500), ("raw", _EMPTY), ("usage", None, ("raw", _NULL))],
                         ids=["status-500", "no-choices", "no-content-no-usage"])
def test_predict_run_with_max_cost_exits_non_zero_when_every_request_failed(db_path, monkeypatch, behaviour):
    """Before: a provider answering with nothing usable made the cost cap
    stop the run (status max_cost) and the command exit 0."""
    from tests.support.judge_server import JudgeServer, make_benchmark

    make_benchmark(db_path, "jb", n=3)
    key = "sk-test-silent-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with JudgeServer(default_reply=lambda qid: behaviour) as s:
        r = cli(db_path, "predict", "run", "--model", "openai/test-model", "-b", "jb", "--api-base", s.base,
                "--max-retries", "0", "--no-progress", "--max-cost", "1.0", "--input-cost-per-token", "1e-6",
                "--output-cost-per-token", "1e-6", env={"OPENAI_API_KEY": key})
        assert s.total >= 1
    assert not rows(db_path, "SELECT 1 FROM predictions")
    assert r.returncode == 1, (r.returncode, r.stdout[-300:], r.stderr[-300:])


def test_a_reply_listing_choice_one_first_stores_choice_zero(db_path, monkeypatch):
    """``choices`` is a list of objects with an ``index``: the answer is the
    one with index 0, wherever it sits in the list (or the reply is refused)."""
    from tests.support.judge_server import JudgeServer, make_benchmark

    make_benchmark(db_path, "jb", n=1)
    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 1,
        "model": "test-model",
        "choices": [
            {"index": 1, "message": {"role": "assistant", "content": "Answer: B"}, "finish_reason": "stop"},
            {"index": 0, "message": {"role": "assistant", "content": "Answer: C"}, "finish_reason": "stop"},
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-silent-0123456789")
    with JudgeServer(default_reply=lambda qid: ("raw", body)) as s:
        audit.run_predict("openai/test-model", benchmark="jb", db=db_path, api_base=s.base, max_retries=0,
                          progress=False, input_cost_per_token=1e-6, output_cost_per_token=1e-6)
    got = rows(db_path, "SELECT answer FROM predictions WHERE benchmark = 'jb'")
    assert got in ([("C",)], []), got


# ---------------------------------------------------------------- a data file given as the database (our own case)

@pytest.mark.parametrize("kind", ["csv", "parquet", "json"])
def test_an_existing_data_file_as_db_is_refused_not_used_in_memory(tmp_path, kind):
    """DuckDB opens an existing ``.csv``/``.parquet``/``.json`` path as an
    in-memory database with a view of the file: the import said "imported 4
    questions" and nothing was kept anywhere."""
    import hashlib

    q = tmp_path / "q.csv"
    q.write_text("id,question,A,B,answer\n" + "".join(f"q{i},Q{i}?,a,b,A\n" for i in range(4)))
    target = tmp_path / f"data.{kind}"
    if kind == "csv":
        target.write_text("a,b\n1,2\n")
    elif kind == "json":
        target.write_text('[{"a": 1}]\n')
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"a": [1]}), target)
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    r = cli(target, "import", "questions", str(q), "-b", "b")
    assert "imported" not in r.stdout, r.stdout
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before
