"""Label Studio integrity, against a REAL Label Studio server (the
session server and helpers of ``test_label_studio``): an edit by another
account is that account's verdict; an invalid annotation is refused with the
reason the CLI gives and listed (``audit ls rejected``, the Label Studio
page); verdicts on new tasks go in bulk inside the task import, with timings."""
from __future__ import annotations

import time
import uuid

import pytest

import audit
from audit.store import connect
from audit.sync._config import verdict_result
from tests.sync.test_roundtrip import _cli, _ls_page, _other_label, _project, _q, _reviewer, _tasks, ls, make_benchmark  # noqa: F401 - pytest fixtures

pytestmark = pytest.mark.label_studio


def _task_id(client, project_id, qid):
    return next(t.id for t in _tasks(client, project_id) if t.data["question_id"] == qid)


def test_edit_by_another_account_is_the_editors_verdict(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 6)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    pema = _reviewer(client, f"pema-{uuid.uuid4().hex[:6]}@example.org")
    admin = client.users.whoami()
    task_id = _task_id(client, proj.project_id, "q00001")
    ann = client.annotations.create(id=task_id, result=verdict_result("key_correct"), completed_by=pema.id)
    assert audit.sync.ls_pull(db=db_path).reviews_added == 1
    time.sleep(1.5)   # a later save, as a person editing would make
    # the admin (the API token's account) edits Pema's annotation
    client.annotations.update(id=ann.id, result=verdict_result("defective", cause="translation",
                                                               rationale="admin's view"))
    s = audit.sync.ls_pull(db=db_path)
    assert (s.reviews_added, s.rejected) == (1, 0)
    hist = audit.review.list_reviews("synth", "q00001", db=db_path)
    assert list(zip(hist["reviewer"], hist["verdict"])) == [(pema.email, "key_correct"),
                                                            (admin.email, "defective")]
    assert list(audit.review.list_reviews("synth", "q00001", reviewer=pema.email, db=db_path)["verdict"]) == [
        "key_correct"
    ]
    assert _q(db_path, "SELECT reviewer, ls_user_id, edited_by FROM ls_annotations WHERE annotation_id = ? "
                       "ORDER BY updated_at", [ann.id]) == [(pema.email, pema.id, None),
                                                           (admin.email, pema.id, admin.id)]
    # Pema's next workbench verdict still goes to her own annotation; nothing is lost or skipped
    audit.add_review("synth", "q00001", pema.email, "ambiguous", source="workbench", revision=True, db=db_path)
    s2 = audit.ls_sync(db=db_path)
    assert (s2.push.annotations_updated, s2.push.skipped_changed_remotely) == (1, 0)
    assert client.annotations.get(id=ann.id).result == verdict_result("ambiguous")


def test_invalid_annotation_is_rejected_with_its_reason(ls, db_path, monkeypatch):
    url, token, client = ls
    make_benchmark(db_path, 6)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    user = _reviewer(client, f"dawa-{uuid.uuid4().hex[:6]}@example.org")
    other = _other_label(db_path, "q00002")
    bad = verdict_result("key_correct") + verdict_result("key_wrong", other)[1:]   # key_correct + an answer
    client.annotations.create(id=_task_id(client, proj.project_id, "q00002"), result=bad, completed_by=user.id)
    s = audit.sync.ls_pull(db=db_path)
    assert (s.reviews_added, s.rejected) == (0, 1)
    assert audit.review.list_reviews("synth", "q00002", db=db_path).empty
    # the reason is the one `audit review add` gives for the same verdict
    r = _cli(["review", "add", "-b", "synth", "--question", "q00002", "--reviewer", "x", "--verdict",
              "key_correct", "--answer", other], db_path)
    assert r.returncode == 1
    cli_reason = "a corrected answer only goes with verdict key_wrong, not key_correct"
    assert cli_reason in r.stderr
    rej = audit.sync.ls_rejected(db=db_path)
    assert list(zip(rej["question_id"], rej["reviewer"], rej["reason"])) == [("q00002", user.email, cli_reason)]
    out = _cli(["ls", "rejected"], db_path)
    assert out.returncode == 0 and cli_reason in out.stdout and "q00002" in out.stdout

    # ... and on the Label Studio page
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from tests.sync.test_roundtrip import REPO
    monkeypatch.setenv("AUDIT_DB", str(db_path))
    monkeypatch.chdir(REPO)
    st.cache_resource.clear()
    at = AppTest.from_function(_ls_page, default_timeout=90)
    at.run()
    assert not at.exception, at.exception
    from audit.i18n import label, translate
    why, item = translate("ls.col_reason", "en"), label("column", "question_id", "en")
    frame = next(d.value for d in at.dataframe if why in d.value.columns)
    assert list(frame[why]) == [cli_reason] and list(frame[item]) == ["q00002"]


def test_tasks_carry_plain_text_and_verdicts_go_in_bulk(ls, db_path):
    url, token, client = ls
    ids = make_benchmark(db_path, 40)
    for qid in ids:
        audit.add_review("synth", qid, "Bulk Reviewer", "key_correct", source="workbench", db=db_path)
    proj = _project(db_path)
    t0 = time.perf_counter()
    s = audit.sync.ls_push("synth", tiers=None, db=db_path)
    bulk = time.perf_counter() - t0
    assert (s.created, s.annotations_created, s.annotations_in_import, s.annotations_adopted) == (40, 40, 40, 0)
    anns = audit.sync._remote.list_annotations(audit.sync._client.open_session(), proj.project_id)
    assert len(anns) == 40 and set(anns["verdict"]) == {"key_correct"}
    # recorded as pushed: a second push sends nothing, a pull adds nothing
    s2 = audit.sync.ls_push("synth", tiers=None, db=db_path)
    assert (s2.annotations_created, s2.annotations_updated, s2.annotations_adopted) == (0, 0, 0)
    assert audit.sync.ls_pull(db=db_path).reviews_added == 0
    assert _q(db_path, "SELECT count(*) FROM ls_annotations WHERE direction = 'pushed'")[0][0] == 40
    print(f"bulk push of 40 tasks with 40 verdicts: {bulk:.2f} s")


def test_tasks_carry_the_parallel_source_and_the_list_shows_plain_text(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 4)
    with connect(db_path) as con:
        con.execute("INSERT INTO parallel_links VALUES ('synth', 'q00003', 'cmmlu', 'agronomy.csv:7', 'zh', "
                    "'中文<b>题</b>', [{'label': 'A', 'text': '甲'}, {'label': 'B', 'text': '乙'}], 'B', false)")
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    data = next(t.data for t in _tasks(client, proj.project_id) if t.data["question_id"] == "q00003")
    assert (data["source_name"], data["source_key"]) == ("cmmlu", "B")
    assert data["source_text"] == "中文<b>题</b> — A. 甲 · B. 乙"         # plain text, as typed
    assert data["source_options"] == ["A. 甲", "B. 乙"]
    assert data["text"].startswith("中文问题 #3 — A. 中文问题 3-A · B. ") and "<" not in data["text"]
    assert "中文&lt;b&gt;题&lt;/b&gt;" in data["item_html"] and "Source key: <b>B</b>" in data["item_html"]
    views = [v for v in client.views.list(project=proj.project_id) if (v.data or {}).get("title") == "Audit items"]
    assert len(views) == 1
    hidden = views[0].data["hiddenColumns"]["explore"]
    assert "tasks:data.item_html" in hidden and "tasks:data.text" not in hidden
    audit.sync.ls_connect(project_id=proj.project_id, db=db_path)       # connecting again adds no second tab
    assert sum((v.data or {}).get("title") == "Audit items" for v in client.views.list(project=proj.project_id)) == 1

