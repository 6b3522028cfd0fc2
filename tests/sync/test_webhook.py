"""audit.sync._webhook: the receiver on loopback against a local stand-in
of the Label Studio endpoints — the secret header checked (constant-time
compare), bodies parsed, only annotation events of its project scheduling a
pull, the pull appending the stand-in's annotations once, a failing pull
kept as an error line while it keeps serving, and no other host allowed."""
from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request

import pytest

from audit.errors import AuditError
from audit.review import list_reviews
from audit.store import connect
from audit.sync._config import verdict_result
from audit.sync._state import save_project
from audit.sync._webhook import PULL_EVENTS, SECRET_ENV, SECRET_HEADER, WebhookReceiver
from tests.support.ls_standin import TOKEN, LabelStudioStandIn
from tests.support.toy_release import BENCH, toy_db

SECRET = "s3cret-ཀ-header".encode().hex()


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_template):
    return toy_db(tmp_path_factory.mktemp("webhook"), migrated_template, predictions=False, reviews=False)


@pytest.fixture
def setup(template, tmp_path, monkeypatch):
    monkeypatch.delenv(SECRET_ENV, raising=False)
    db = tmp_path / "w.duckdb"
    shutil.copyfile(template, db)
    with LabelStudioStandIn() as ls:
        pid = ls.add_project("audit")["id"]
        ls.users.append({"id": 2, "email": "pema@example.org"})
        task = ls.add_task(pid, {"audit_id": "toy::t01", "audit_benchmark": BENCH, "question_id": "t01"})
        ls.annotate(task["id"], 2, verdict_result("key_wrong", "B", "key_slip"))
        with connect(db) as con:
            save_project(con, ls.url, pid, "audit", "<View/>")
        yield ls, pid, db


def _post(port, body, headers=None):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/label-studio", data=raw, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _receiver(ls, db, **kw):
    return WebhookReceiver(port=0, url=ls.url, api_key=TOKEN, db=db, **kw).start()


def test_only_loopback():
    with pytest.raises(AuditError, match="loopback only"):
        WebhookReceiver(host="0.0.0.0", url="http://127.0.0.1:9", api_key=TOKEN)


def test_the_secret_header_is_required_when_set(setup):
    ls, pid, db = setup
    r = _receiver(ls, db, secret=SECRET)
    try:
        event = {"action": "ANNOTATION_CREATED", "project": {"id": pid}}
        assert _post(r.port, event)[0] == 403
        wrong = _post(r.port, event, {SECRET_HEADER: SECRET + "x"})
        assert wrong == (403, {"error": f"bad or missing {SECRET_HEADER}"})
        assert _post(r.port, event, {SECRET_HEADER: SECRET}) == (200, {"status": "pull scheduled",
                                                                       "action": "ANNOTATION_CREATED"})
        assert r.wait_idle(30)
    finally:
        r.stop()


def test_the_secret_from_the_environment(setup, monkeypatch):
    ls, pid, db = setup
    monkeypatch.setenv(SECRET_ENV, SECRET)
    r = _receiver(ls, db)
    try:
        assert r.secret == SECRET
        assert _post(r.port, {"action": "PROJECT_UPDATED"})[0] == 403
    finally:
        r.stop()


def test_events_bodies_and_the_pull(setup):
    ls, pid, db = setup
    r = _receiver(ls, db)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{r.port}/", timeout=10) as resp:
            assert json.loads(resp.read()) == {"status": "ok", "pulls": 0}
        assert _post(r.port, b"{not json") == (400, {"error": "the body is not JSON"})
        assert _post(r.port, {"action": "PROJECT_UPDATED", "project": {"id": pid}})[1]["status"] == "ignored"
        assert _post(r.port, {"action": "ANNOTATION_CREATED", "project": {"id": pid + 1}})[1]["status"] == "ignored"
        assert r.pulls == 0
        for action in ("ANNOTATION_CREATED", "ANNOTATION_UPDATED"):
            assert _post(r.port, {"action": action, "project": {"id": pid}})[1]["status"] == "pull scheduled"
        assert r.wait_idle(60)
        assert 1 <= r.pulls <= 2 and r.errors == []
        rows = list_reviews(BENCH, db=db)
        assert rows[["question_id", "reviewer", "verdict", "corrected_answer"]].values.tolist() == [
            ["t01", "pema@example.org", "key_wrong", "B"]]                     # pulled once, however many events
        assert _post(r.port, {"action": "ANNOTATIONS_DELETED"})[1]["status"] == "pull scheduled"   # no project: ours
        assert r.wait_idle(60)
    finally:
        r.stop()
    assert {"ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_DELETED"} <= PULL_EVENTS


def test_a_failing_pull_is_kept_as_an_error_and_serving_goes_on(setup):
    ls, pid, db = setup
    r = _receiver(ls, db)
    try:
        ls.failures[("GET", f"/api/projects/{pid}/export")] = (500, {"detail": "export broke"})
        _post(r.port, {"action": "ANNOTATION_CREATED", "project": {"id": pid}})
        assert r.wait_idle(60)
        assert r.pulls == 0 and len(r.errors) == 1 and "HTTP 500" in r.errors[0] and TOKEN not in r.errors[0]
        ls.failures.clear()
        _post(r.port, {"action": "ANNOTATION_UPDATED", "project": {"id": pid}})
        assert r.wait_idle(60) and r.pulls == 1
    finally:
        r.stop()
