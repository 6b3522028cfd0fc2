"""audit.sync._remote: who made an annotation version, canonical times, Data
Manager filters, and the bulk reads (tasks, annotations from the export,
users) against a local stand-in of the Label Studio endpoints."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from audit.sync._client import LabelStudioError, open_session
from audit.sync._config import verdict_hash, verdict_result
from audit.sync._remote import (
    ANNOTATION_COLUMNS,
    data_filter,
    list_annotations,
    list_tasks,
    list_users,
    norm_ts,
    version_author,
)
from tests.support.ls_standin import TOKEN, LabelStudioStandIn


@pytest.mark.parametrize("annotation, want", [
    ({"completed_by": 2, "updated_by": 2}, 2),
    ({"completed_by": {"id": 2}, "updated_by": None}, 2),
    ({"completed_by": 2, "updated_by": 1, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:01Z"},
     2),                                                           # within the grace second: the creation itself
    ({"completed_by": 2, "updated_by": {"id": 1}, "created_at": "2026-01-01T00:00:00Z",
      "updated_at": "2026-01-01T00:00:01.5Z"}, 1),
    ({"completed_by": 2, "updated_by": 1}, 2),                     # no creation time: the owner
    ({"completed_by": None, "updated_by": None}, -1),
    ({"completed_by": None, "updated_by": 1, "created_at": "2026-01-01T00:00:00Z",
      "updated_at": "2026-01-01T00:00:00Z"}, -1),
])
def test_version_author(annotation, want):
    assert version_author(annotation) == want


def test_norm_ts_is_canonical_utc():
    assert norm_ts("2026-11-21T21:36:51.5+02:00") == "2026-11-21T19:36:51.500000Z"
    assert norm_ts(datetime(2026, 1, 1, 12)) == "2026-01-01T12:00:00.000000Z"               # naive = UTC
    assert norm_ts(datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=-5)))) == "2026-01-01T17:00:00.000000Z"


def test_data_filter():
    assert data_filter("audit_id", "b::q") == {"filter": "filter:tasks:data.audit_id", "operator": "equal",
                                               "type": "String", "value": "b::q"}


@pytest.fixture(scope="module")
def remote():
    with LabelStudioStandIn() as ls:
        p = ls.add_project("audit")["id"]
        ls.users.append({"id": 2, "email": "pema@example.org"})
        ls.users.append({"id": 3, "email": None})
        t1 = ls.add_task(p, {"audit_id": "toy::t01", "audit_benchmark": "toy", "question_id": "t01",
                             "audit_hash": "h1"})
        t2 = ls.add_task(p, {"audit_id": "other::q1", "audit_benchmark": "other",
                             "question_id": "ཀ\u0f71\u0f72", "audit_hash": "h2"})        # stored not NFC
        ls.add_task(p, {"text": "a task someone made by hand"})
        ls.annotate(t1["id"], 2, verdict_result("key_wrong", "B", "key_slip", " why "),
                    updated_at="2026-01-02T10:00:00.5Z")
        ls.annotate(t1["id"], 2, [], cancelled=True, updated_at="2026-01-02T11:00:00Z")
        ls.annotate(t2["id"], 1, verdict_result("ambiguous"), created_at="2026-01-01T00:00:00Z",
                    updated_at="2026-01-03T00:00:00Z", updated_by=2)
        yield ls, p, open_session(ls.url, TOKEN, timeout=5)


def test_list_tasks_only_audit_tasks_and_filters(remote):
    ls, p, session = remote
    df = list_tasks(session, p)
    assert list(df.columns) == ["task_id", "external_id", "benchmark", "question_id", "audit_hash"]
    assert df["external_id"].tolist() == ["toy::t01", "other::q1"]
    import unicodedata

    assert df["question_id"].iloc[1] == unicodedata.normalize("NFC", "ཀ\u0f71\u0f72")
    assert list_tasks(session, p, benchmark="toy")["external_id"].tolist() == ["toy::t01"]
    assert list_tasks(session, p, external_id="other::q1")["task_id"].tolist() == [2]
    assert list_tasks(session, p, benchmark="toy", external_id="other::q1").empty


def test_list_annotations_parses_each_version(remote):
    ls, p, session = remote
    df = list_annotations(session, p)
    assert list(df.columns) == ANNOTATION_COLUMNS and len(df) == 3
    first = df.iloc[0]
    assert (first.updated_at, first.verdict, first.corrected_answer, first.cause, first.rationale) == (
        "2026-01-02T10:00:00.500000Z", "key_wrong", "B", "key_slip", "why")
    assert first.content_hash == verdict_hash("key_wrong", "B", "key_slip", "why")
    assert (df.iloc[1].verdict, bool(df.iloc[1].was_cancelled)) == ("skip", True)
    third = df.iloc[2]
    assert (third.benchmark, third.ls_user_id, third.author_id) == ("other", 1, 2)     # edited by user 2
    assert isinstance(df.attrs["listed_at"], datetime) and df.attrs["listed_at"].tzinfo is None


def test_list_users(remote):
    _, _, session = remote
    df = list_users(session)
    assert df.values.tolist() == [[1, "admin@example.org"], [2, "pema@example.org"], [3, ""]]


def test_an_export_that_is_not_json_is_one_clear_error(remote):
    ls, p, session = remote
    ls.failures[("GET", f"/api/projects/{p}/export")] = (200, b"<html>login</html>")
    try:
        with pytest.raises(LabelStudioError, match=f"sent an export that is not JSON \\(project {p}\\)"):
            list_annotations(session, p)
    finally:
        ls.failures.clear()
    ls.failures[("GET", "/api/tasks/")] = (403, {"detail": "forbidden"})
    try:
        with pytest.raises(LabelStudioError, match="rejected the API token"):
            list_tasks(session, p)
    finally:
        ls.failures.clear()
