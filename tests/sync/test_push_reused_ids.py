"""Label Studio restored from an older backup hands out annotation and user
ids again — against the REAL Label Studio server of ``test_label_studio``.

The restore is real: the server's SQLite database is copied with SQLite's
online backup API before the work to lose, and copied back over the live
database afterwards (what an admin restoring a nightly backup does).  Label
Studio (Django, ``AUTOINCREMENT`` ids) never reuses an id within one run;
after the restore its id counters are back at the backup's values, so the
next account and the next annotation get the ids of the lost ones.

Before the fix (``audit/sync/_pull.py`` of main, run once against this
test): the pull crashed on the "same verdict as before" path (a numpy int64
review id, from a column with NULLs, that DuckDB cannot bind); with only that
crash mended, it appended 1 review instead of 2 — Dawa's annotation with the lost annotation's id and
content was taken as "same verdict as before" (lost: q00001 held only
Pema's verdict), and her q00002 verdict was recorded as "Pema Lhamo"'s
through the stale ``ls_users`` link.
"""
from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path

import pytest

import audit
from audit.sync._config import verdict_result
from tests.sync.test_roundtrip import _project, _q, _tasks, ls, make_benchmark  # noqa: F401 - pytest fixtures

pytestmark = pytest.mark.label_studio


def _copy_db(src: Path, dst: Path) -> None:
    """SQLite online backup of ``src`` into ``dst`` (consistent while the server runs)."""
    a, b = sqlite3.connect(str(src), timeout=60), sqlite3.connect(str(dst), timeout=60)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()


def _sign_up(url: str, email: str):
    """A person signing up on the server's own sign-up page (as Dawa would);
    returns her user id and an SDK client acting as her (her own token)."""
    import httpx
    from label_studio_sdk import LabelStudio

    with httpx.Client(base_url=url, follow_redirects=True, timeout=60) as h:
        h.get("/user/signup/")
        r = h.post("/user/signup/", data={"email": email, "password": f"pw-{uuid.uuid4().hex}",
                                          "csrfmiddlewaretoken": h.cookies.get("csrftoken"), "how_find_us": "",
                                          "allow_newsletters": "false"}, headers={"Referer": url + "/user/signup/"})
        r.raise_for_status()
        me = h.get("/api/current-user/whoami").json()
        token = h.get("/api/current-user/token").json()["token"]
    assert me["email"] == email
    return int(me["id"]), LabelStudio(base_url=url, api_key=token)


def _task_id(client, project_id, qid):
    return next(t.id for t in _tasks(client, project_id) if t.data["question_id"] == qid)


def test_reused_ids_after_a_restore_lose_nothing_and_misattribute_nothing(ls, ls_server, db_path, tmp_path):
    url, token, client = ls
    live = Path(ls_server.data_dir) / "label_studio.sqlite3"
    make_benchmark(db_path, 6)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    t1, t2 = _task_id(client, proj.project_id, "q00001"), _task_id(client, proj.project_id, "q00002")

    backup = tmp_path / "backup.sqlite3"
    _copy_db(live, backup)                        # the nightly backup

    # After the backup: Pema's workbench verdict goes to Label Studio (her account and annotation are new)
    audit.add_review("synth", "q00001", "Pema Lhamo", "key_correct", source="workbench", db=db_path)
    s = audit.sync.ls_sync(db=db_path)
    assert (s.push.users_created, s.push.annotations_created) == (1, 1)
    (pema_id, pema_email), = _q(db_path, "SELECT ls_user_id, email FROM ls_users WHERE reviewer = 'Pema Lhamo'")
    (pema_ann,), = _q(db_path, "SELECT annotation_id FROM ls_annotations WHERE reviewer = 'Pema Lhamo'")

    _copy_db(backup, live)                        # Label Studio restored: Pema's account and annotation are gone
    assert pema_email not in {u.email for u in client.users.list()}

    # Dawa signs up and gets Pema's user id; her first annotation gets Pema's annotation id and content
    dawa_email = f"dawa-{uuid.uuid4().hex[:6]}@example.org"
    dawa_id, as_dawa = _sign_up(url, dawa_email)
    a1 = as_dawa.annotations.create(id=t1, result=verdict_result("key_correct"))
    a2 = as_dawa.annotations.create(id=t2, result=verdict_result("defective", cause="translation",
                                                                 rationale="Dawa's view"))
    assert (dawa_id, a1.id) == (pema_id, pema_ann), "the restore did not make Label Studio hand out the ids again"

    s1 = audit.sync.ls_pull(db=db_path)
    # both of Dawa's verdicts are recorded, to Dawa; Pema's stays hers
    assert (s1.new_versions, s1.reviews_added, s1.unchanged, s1.rejected) == (2, 2, 0, 0)
    assert (s1.relinked, s1.deleted) == (1, 1)
    h1 = audit.review.list_reviews("synth", "q00001", db=db_path)
    assert sorted(zip(h1["reviewer"], h1["verdict"], h1["source"])) == sorted(
        [("Pema Lhamo", "key_correct", "workbench"), (dawa_email, "key_correct", "label_studio")])
    h2 = audit.review.list_reviews("synth", "q00002", db=db_path)
    assert list(zip(h2["reviewer"], h2["verdict"])) == [(dawa_email, "defective")]
    assert audit.review.list_reviews("synth", "q00002", reviewer="Pema Lhamo", db=db_path).empty
    # the change is recorded: the link now names Dawa's account, the version says why, Pema's annotation is gone
    assert _q(db_path, "SELECT ls_user_id, email, reviewer FROM ls_users") == [(dawa_id, dawa_email, dawa_email)]
    notes = _q(db_path, "SELECT note FROM ls_annotations WHERE annotation_id = ? AND reviewer = ?", [a2.id, dawa_email])
    assert pema_email in notes[0][0] and dawa_email in notes[0][0]
    assert _q(db_path, "SELECT annotation_id, reviewer FROM ls_deletions") == [(pema_ann, "Pema Lhamo")]

    # idempotent: a second pull records nothing new
    s2 = audit.sync.ls_pull(db=db_path)
    assert (s2.new_versions, s2.reviews_added, s2.relinked, s2.deleted) == (0, 0, 0, 0)
    # Dawa saves her annotation again unchanged (the same verdict by the same person adds nothing)
    # and annotates one more item, in the same pull
    time.sleep(1.1)
    as_dawa.annotations.update(id=a1.id, result=verdict_result("key_correct"))
    as_dawa.annotations.create(id=_task_id(client, proj.project_id, "q00003"), result=verdict_result("key_correct"))
    s2b = audit.sync.ls_pull(db=db_path)
    assert (s2b.new_versions, s2b.unchanged, s2b.reviews_added) == (2, 1, 1)

    # Pema's next workbench verdict gets a new account of hers, never Dawa's annotation
    audit.add_review("synth", "q00001", "Pema Lhamo", "ambiguous", source="workbench", revision=True, db=db_path)
    s3 = audit.sync.ls_sync(db=db_path)
    assert (s3.pull.reviews_added, s3.push.users_created, s3.push.annotations_created,
            s3.push.annotations_updated) == (0, 1, 1, 0)
    assert client.annotations.get(id=a1.id).result == verdict_result("key_correct")
    (new_pema,), = _q(db_path, "SELECT ls_user_id FROM ls_users WHERE reviewer = 'Pema Lhamo'")
    assert new_pema != dawa_id
    mine = [a for a in client.annotations.list(id=t1) if a.completed_by == new_pema]
    assert [a.result for a in mine] == [verdict_result("ambiguous")]
    s4 = audit.sync.ls_sync(db=db_path)
    assert (s4.pull.new_versions, s4.pull.reviews_added, s4.push.annotations_created,
            s4.push.annotations_updated) == (0, 0, 0, 0)
    assert len(audit.review.list_reviews("synth", "q00001", db=db_path)) == 3


def test_an_annotation_id_recorded_deleted_is_not_an_earlier_version(ls, ls_server, db_path, tmp_path):
    """Pema's annotation is lost in a restore (the pull records it deleted);
    her new annotation on the same item gets the same id and content: it is
    a new verdict of hers (a revision), not "same verdict as before".
    Before the fix (main, with the crash mended): 0 reviews added, 1 "unchanged"."""
    url, token, client = ls
    live = Path(ls_server.data_dir) / "label_studio.sqlite3"
    make_benchmark(db_path, 6)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    t3 = _task_id(client, proj.project_id, "q00003")
    pema_email = f"pema-{uuid.uuid4().hex[:6]}@example.org"
    pema_id, as_pema = _sign_up(url, pema_email)
    backup = tmp_path / "backup.sqlite3"
    _copy_db(live, backup)

    first = as_pema.annotations.create(id=t3, result=verdict_result("key_correct"))
    assert audit.sync.ls_pull(db=db_path).reviews_added == 1
    _copy_db(backup, live)                        # restored: her annotation is gone, her account is not
    s = audit.sync.ls_pull(db=db_path)
    assert (s.deleted, s.reviews_added, s.relinked) == (1, 0, 0)

    again = as_pema.annotations.create(id=t3, result=verdict_result("key_correct"))
    assert again.id == first.id, "the restore did not make Label Studio hand out the annotation id again"
    s1 = audit.sync.ls_pull(db=db_path)
    assert (s1.new_versions, s1.reviews_added, s1.unchanged, s1.deleted) == (1, 1, 0, 0)
    hist = audit.review.list_reviews("synth", "q00003", db=db_path)
    assert list(zip(hist["reviewer"], hist["verdict"], hist["is_revision"])) == [
        (pema_email, "key_correct", False), (pema_email, "key_correct", True)]
    assert all(r == pema_id for (r,) in _q(db_path, "SELECT DISTINCT ls_user_id FROM ls_annotations"))
    s2 = audit.sync.ls_pull(db=db_path)
    assert (s2.new_versions, s2.reviews_added, s2.deleted) == (0, 0, 0)


def test_a_push_alone_after_a_restore_does_not_send_verdicts_as_another_person(ls, ls_server, db_path, tmp_path):
    """The push checks the user links too (not only the pull): right after a
    restore, with no pull in between, Pema's new verdict must not go out as
    an annotation of Dawa, who now holds Pema's old user id."""
    url, token, client = ls
    live = Path(ls_server.data_dir) / "label_studio.sqlite3"
    pema = f"Pema {uuid.uuid4().hex[:6]}"          # the server is shared with the other tests: a reviewer of its own
    make_benchmark(db_path, 6)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    backup = tmp_path / "backup.sqlite3"
    _copy_db(live, backup)
    audit.add_review("synth", "q00001", pema, "key_correct", source="workbench", db=db_path)
    assert audit.sync.ls_sync(db=db_path).push.users_created == 1
    (pema_id,), = _q(db_path, "SELECT ls_user_id FROM ls_users WHERE reviewer = ?", [pema])
    _copy_db(backup, live)                        # restored: Pema's account is gone
    dawa_id, _ = _sign_up(url, f"dawa-{uuid.uuid4().hex[:6]}@example.org")
    assert dawa_id == pema_id, "the restore did not make Label Studio hand out the user id again"

    audit.add_review("synth", "q00003", pema, "ambiguous", source="workbench", db=db_path)
    s = audit.sync.ls_push("synth", tiers=None, db=db_path)       # a push on its own, no pull first
    assert (s.relinked, s.users_created) == (1, 1)
    on_t3 = client.annotations.list(id=_task_id(client, proj.project_id, "q00003"))
    assert [a.completed_by for a in on_t3] != [dawa_id] and len(on_t3) == 1
    (new_pema,), = _q(db_path, "SELECT ls_user_id FROM ls_users WHERE reviewer = ?", [pema])
    assert on_t3[0].completed_by == new_pema != dawa_id
