"""Recording verdicts: append-only storage, validation (nothing appended on
error), UTC timestamps, lead reviewers, spreadsheet import (all or nothing,
file:line errors) and the history listing — all on real DuckDB files."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from audit.accounts import get_leads, set_leads
from audit.errors import AuditError, InputError, NotFoundError
from audit.review import (
    add_review,
    add_reviews,
    get_required_reviews,
    import_reviews,
    list_reviews,
    set_required_reviews,
)
from audit.store import connect
from tests.conftest import db_snapshot
from tests.support.review_bench import bench_copy


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    return bench_copy(tmp_path)


def test_reviews_are_appended_never_overwritten(db):
    first = add_review("bench", "q01", "Dolma", "key_wrong", corrected_answer="B", cause="key_slip",
                       rationale="models agree on B", db=db)
    second = add_review("bench", "q01", "Dolma", "key_correct", rationale="changed my mind", revision=True, db=db)
    assert second.is_revision and not first.is_revision
    add_review("bench", "q01", "Tenzin", "skip", db=db)
    hist = list_reviews("bench", "q01", db=db)
    assert hist["review_id"].tolist() == [first.review_id, second.review_id, second.review_id + 1]
    assert hist["verdict"].tolist() == ["key_wrong", "key_correct", "skip"]
    assert hist.loc[0, "corrected_answer"] == "B" and hist.loc[0, "rationale"] == "models agree on B"
    # the first row is untouched by the second save
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT verdict, corrected_answer FROM reviews WHERE review_id = ?",
                           [first.review_id]).fetchall() == [("key_wrong", "B")]


def test_review_fields_are_normalised_and_timestamped_in_utc(db):
    before = datetime.now(timezone.utc).replace(tzinfo=None)
    r = add_review("bench", "q02", "  Dolma   Tsering ", "Key Wrong", corrected_answer="ག", cause="Translation",
                   rationale="  ", source="workbench", app_version="9.9", db=db)
    after = datetime.now(timezone.utc).replace(tzinfo=None)
    assert (r.reviewer, r.verdict, r.corrected_answer, r.cause, r.rationale) == (
        "Dolma Tsering", "key_wrong", "C", "translation", None)
    assert (r.source, r.app_version) == ("workbench", "9.9")
    assert before <= r.created_at <= after
    aware = datetime(2026, 1, 2, 15, 0, tzinfo=timezone(timedelta(hours=8)))
    r2 = add_review("bench", "q02", "Tenzin", "ambiguous", created_at=aware, db=db)
    # the given time is the claimed one; created_at is the database clock
    assert r2.claimed_at == datetime(2026, 1, 2, 7, 0) and r2.created_at >= r.created_at
    stored = list_reviews("bench", "q02", reviewer="Tenzin", db=db)
    assert stored["claimed_at"].iloc[0].to_pydatetime() == datetime(2026, 1, 2, 7, 0)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(question_id="nope"), NotFoundError, "unknown question 'nope'"),
        (dict(benchmark="other"), NotFoundError, "unknown benchmark 'other'"),
        (dict(reviewer="   "), InputError, "reviewer name is empty"),
        (dict(verdict="wrong"), InputError, "unknown verdict 'wrong'"),
        (dict(verdict="key_wrong"), InputError, "needs the corrected answer"),
        (dict(verdict="key_wrong", corrected_answer="A"), InputError, "is the current key"),
        (dict(verdict="key_wrong", corrected_answer="E"), InputError, "not one of the item's options"),
        (dict(verdict="key_wrong", corrected_answer="ཅ"), InputError, "not one of the item's options"),
        (dict(verdict="key_correct", corrected_answer="B"), InputError, "only goes with verdict key_wrong"),
        (dict(cause="typo"), InputError, "unknown cause 'typo'"),
        (dict(verdict="skip", is_adjudication=True), InputError, "skip is not an adjudicated verdict"),
        (dict(source="email"), InputError, "unknown review source"),
    ],
)
def test_invalid_review_is_rejected_and_nothing_is_appended(db, kwargs, error, message):
    args = dict(benchmark="bench", question_id="q01", reviewer="Dolma", verdict="key_correct") | kwargs
    before = db_snapshot(db)
    with pytest.raises(error, match=message):
        add_review(db=db, **args)
    assert db_snapshot(db) == before


def test_adjudication_needs_a_lead_when_leads_are_configured(db, monkeypatch):
    # no lead list: anyone may adjudicate
    assert get_leads(db=db) == []
    add_review("bench", "q01", "Dolma", "key_correct", is_adjudication=True, db=db)
    assert set_leads(["Pema", "pema ", "Karma"], db=db) == ["Karma", "Pema"]
    before = db_snapshot(db)
    with pytest.raises(AuditError, match="'Dolma' is not a lead reviewer"):
        add_review("bench", "q02", "Dolma", "key_correct", is_adjudication=True, db=db)
    assert db_snapshot(db) == before
    assert add_review("bench", "q02", "PEMA", "key_correct", is_adjudication=True, db=db).is_adjudication
    # leads from the environment add to the stored ones
    monkeypatch.setenv("WORKBENCH_LEADS", "Sonam, ,karma")
    assert get_leads(db=db) == ["Karma", "Pema", "Sonam"]
    assert add_review("bench", "q03", "sonam", "ambiguous", is_adjudication=True, db=db).reviewer == "sonam"


def test_required_reviews_setting_is_stored_and_checked(db):
    assert get_required_reviews(db=db).flagged == 2 and get_required_reviews(db=db).other == 1
    set_required_reviews(flagged=3, db=db)
    req = get_required_reviews(db=db)
    assert (req.flagged, req.other) == (3, 1) and req.for_tier(2) == 3 and req.for_tier(None) == 1
    with pytest.raises(InputError, match="whole number from 1 to 20"):
        set_required_reviews(other=0, db=db)
    assert get_required_reviews(db=db).other == 1


def test_external_ids_are_not_recorded_twice(db):
    add_review("bench", "q01", "Dolma", "key_correct", external_id="ls:7@1", source="label_studio", db=db)
    with pytest.raises(InputError, match="external id 'ls:7@1' is already recorded"):
        add_review("bench", "q01", "Dolma", "key_correct", external_id="ls:7@1", source="label_studio", db=db)


def test_bulk_add_is_all_or_nothing(db):
    rows = [dict(question_id="q01", reviewer="A", verdict="key_correct"),
            dict(question_id="q02", reviewer="A", verdict="key_wrong", corrected_answer="D"),
            dict(question_id="q03", reviewer="A", verdict="nonsense")]
    before = db_snapshot(db)
    with pytest.raises(InputError, match="unknown verdict 'nonsense'"):
        add_reviews("bench", rows, db=db)
    assert db_snapshot(db) == before
    got = add_reviews("bench", rows[:2], db=db)
    assert [r.question_id for r in got] == ["q01", "q02"] and got[1].corrected_answer == "D"


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_import_csv_appends_every_row_with_source_import(db, tmp_path):
    f = _write(tmp_path / "reviews.csv",
               "question_id,reviewer,verdict,corrected_answer,cause,rationale\n"
               "q01,Dolma,key_wrong,B,translation,\"the Chinese source says B, clearly\"\n"
               "q02,Dolma,key_correct,,,\n"
               "q03,Dolma,ambiguous,,cultural,two readings\n")
    got = import_reviews(f, benchmark="bench", db=db)
    assert [(r.question_id, r.verdict, r.corrected_answer, r.cause) for r in got] == [
        ("q01", "key_wrong", "B", "translation"), ("q02", "key_correct", None, None),
        ("q03", "ambiguous", None, "cultural")]
    hist = list_reviews("bench", db=db)
    assert set(hist["source"]) == {"import"} and len(hist) == 3
    assert hist.loc[hist["question_id"] == "q01", "rationale"].item() == "the Chinese source says B, clearly"


@pytest.mark.parametrize(
    "body, line, message",
    [
        ("q01,Dolma,key_correct,,,\nq02,Dolma,key_wrong,,,\n", 3, "needs the corrected answer"),
        ("q01,Dolma,key_correct,,,\nq99,Dolma,key_correct,,,\n", 3, "unknown question 'q99'"),
        ("q01,Dolma,key_correct,,,\nq02,,key_correct,,,\nq03,Dolma,key_correct,,,\n", 3, "reviewer name is empty"),
        ("q01,Dolma,key_correct,,,\nq02,Dolma,key_correct,,,\nq03,Dolma,maybe,,,\n", 4, "unknown verdict 'maybe'"),
        ("q01,Dolma,key_wrong,F,,\n", 2, "not one of the item's options"),
    ],
)
def test_import_csv_is_all_or_nothing_with_file_and_line(db, tmp_path, body, line, message):
    f = _write(tmp_path / "bad.csv", "question_id,reviewer,verdict,corrected_answer,cause,rationale\n" + body)
    before = db_snapshot(db)
    with pytest.raises(InputError, match=message) as exc:
        import_reviews(f, benchmark="bench", db=db)
    assert exc.value.path == str(f) and exc.value.line == line
    assert str(exc.value).startswith(f"{f}:{line}: ")
    assert db_snapshot(db) == before


def test_import_jsonl_reports_the_physical_line(db, tmp_path):
    lines = [json.dumps({"question_id": "q01", "reviewer": "Dolma", "verdict": "key_correct"}), "",
             json.dumps({"question_id": "q02", "reviewer": "Dolma", "verdict": "key_wrong", "corrected_answer": "A"})]
    f = _write(tmp_path / "r.jsonl", "\n".join(lines) + "\n")
    before = db_snapshot(db)
    with pytest.raises(InputError, match="is the current key") as exc:
        import_reviews(f, benchmark="bench", db=db)
    assert exc.value.line == 3
    assert db_snapshot(db) == before
    _write(f, lines[0] + "\n" + json.dumps({"question_id": "q02", "reviewer": "Dolma", "verdict": "key_wrong",
                                             "corrected_answer": "c", "is_adjudication": False}) + "\n")
    assert [r.corrected_answer for r in import_reviews(f, benchmark="bench", db=db)] == [None, "C"]


def test_import_rejects_unknown_and_missing_columns(db, tmp_path):
    f = _write(tmp_path / "r.csv", "question_id,reviewer,verdict,score\nq01,D,key_correct,3\n")
    with pytest.raises(InputError, match="unknown column"):
        import_reviews(f, benchmark="bench", db=db)
    f = _write(tmp_path / "r.csv", "question_id,verdict\nq01,key_correct\n")
    with pytest.raises(InputError, match="missing required column"):
        import_reviews(f, benchmark="bench", db=db)


def test_append_reviews_joins_the_callers_transaction(db):
    from audit.review.record import append_reviews
    from audit.store import transaction

    before = db_snapshot(db)
    with pytest.raises(RuntimeError):
        with connect(db) as con, transaction(con):
            got = append_reviews(con, "bench", [dict(question_id="q01", reviewer="A", verdict="key_correct",
                                                     source="label_studio", external_id="ls:1@t")])
            assert got[0].source == "label_studio" and got[0].external_id == "ls:1@t"
            raise RuntimeError("the caller's later step failed")
    assert db_snapshot(db) == before  # rolled back with the caller


def test_large_import_keeps_row_order_and_types(db, tmp_path):
    lines = ["question_id,reviewer,verdict,corrected_answer,cause,rationale,created_at"]
    for i in range(150):
        q = f"q{i % 12 + 1:02d}"
        verdict, ans = ("key_wrong", "BCD"[i % 3]) if i % 2 else ("key_correct", "")
        lines.append(f"{q},r{i},{verdict},{ans},,note {i},2026-02-0{1 + i % 9}T10:00:00Z")
    f = _write(tmp_path / "big.csv", "\n".join(lines) + "\n")
    got = import_reviews(f, benchmark="bench", db=db)
    assert [r.reviewer for r in got] == [f"r{i}" for i in range(150)]
    assert [r.review_id for r in got] == sorted(r.review_id for r in got)
    hist = list_reviews("bench", db=db).set_index("reviewer")
    assert hist.loc["r7", ["verdict", "corrected_answer", "rationale"]].tolist() == ["key_wrong", "C", "note 7"]
    assert hist.loc["r7", "claimed_at"].to_pydatetime() == datetime(2026, 2, 8, 10, 0)
    assert not bool(hist.loc["r8", "is_adjudication"]) and hist.loc["r8", "source"] == "import"
