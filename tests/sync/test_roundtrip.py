"""Two-way Label Studio sync, against a REAL Label Studio server.

One server per test process (``ls_server`` in tests/conftest.py, shared with
the other Label Studio test files run by the same process; started from ``.ls-venv``, or
``$AUDIT_LABEL_STUDIO_BIN``, on a free 127.0.0.1 port with a fresh data
directory copied from a migrated template; stopped by its own process group).
Every test uses its own project and its own DuckDB file.
"""
from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import audit
from audit.ingest.models import register_models
from audit.ingest.storing import store_questions
from audit.store import connect, transaction
from audit.store.records import Option, Question
from audit.sync._config import verdict_result
from tests.conftest import db_snapshot
from tests.support.label_studio_server import free_port

pytestmark = pytest.mark.label_studio
REPO = Path(__file__).resolve().parents[2]
SCRIPTS = [("bo", "Tibt", "ཀ་ཁ་ག་ང་"), ("ug", "Arab", "ئۇيغۇرچە سوئال"), ("mn-Mong", "Mong", "ᠮᠣᠩᠭᠣᠯ"),
           ("zh-Hans", "Hans", "中文问题"), ("en", "Latn", "<script>alert(1)</script> & <img src=x onerror=alert(2)>")]
MODELS = ["qwen2.5-7b", "qwen2.5-72b", "llama-3.1-8b", "llama-3.1-70b", "gpt-4o", "gpt-4o-mini",
          "claude-3-5-sonnet", "gemini-1.5-pro"]


def make_benchmark(db, n: int, *, benchmark: str = "synth", seed: int = 0, analyze: bool = True) -> list[str]:
    """A generated benchmark: ``n`` items in five scripts with 2–6 options and
    answers of eight models of several families, analysed.  Returns the ids."""
    rng = random.Random(seed)
    qs = []
    for i in range(n):
        lang, script, text = SCRIPTS[i % len(SCRIPTS)]
        k = [4, 4, 4, 2, 5, 6][i % 6]
        labels = "ABCDEF"[:k]
        qs.append(Question(benchmark, f"q{i:05d}", f"{text} #{i}", [Option(l, f"{text} {i}-{l}") for l in labels],
                           rng.choice(labels), subject=["math", "history"][i % 2], language=lang, script=script))
    with connect(db) as con, transaction(con):
        store_questions(con, benchmark, "questions", qs)
        register_models(con, MODELS)
        rows = []
        for q in qs:
            labels = [o.label for o in q.options]
            wrong = rng.choice([l for l in labels if l != q.answer_key])
            for m in MODELS:
                a = rng.choice([q.answer_key, wrong, wrong, None])
                rows.append((benchmark, q.question_id, m, a, "given", a is not None))
        con.executemany("INSERT INTO predictions (benchmark, question_id, model, answer, method, valid) "
                        "VALUES (?, ?, ?, ?, ?, ?)", rows)
    if analyze:
        from audit.analyze import analyze_benchmark as run_analyze

        run_analyze(benchmark, db=db)
    return [q.question_id for q in qs]


# --- the server ---------------------------------------------------------------

@pytest.fixture
def ls(ls_server, monkeypatch):
    """Env configured for the server; returns (url, token, admin SDK client)."""
    from label_studio_sdk import LabelStudio

    monkeypatch.setenv("LABEL_STUDIO_URL", ls_server.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    return ls_server.url, ls_server.token, LabelStudio(base_url=ls_server.url, api_key=ls_server.token)


def _project(db, bench="synth"):
    return audit.sync.ls_connect(title=f"test {uuid.uuid4().hex[:10]}", benchmark=bench, db=db)


def _tasks(client, project_id):
    return list(client.tasks.list(project=project_id, fields="task_only", page_size=1000))


def _reviewer(client, email):
    return client.users.create(username=email, email=email)


def _q(db, sql, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


# The CLI with audit.sync's remote-write hook set to kill the process once
# the given number of writes of a kind are done and not yet recorded locally.
KILLED_AFTER = """
import os, signal, sys
from audit.sync import _state
kind, n = sys.argv.pop(1).split(":")
def crash(k, done):
    if k == kind and done >= int(n):
        os.kill(os.getpid(), signal.SIGKILL)
_state.on_remote_write = crash
from audit.cli import main; main()
"""


def _cli(args, db, env_extra=None, timeout=180, killed_after: str | None = None):
    """Run ``audit ARGS --db DB``; ``killed_after="tasks:20"`` (or
    ``annotations:N``): SIGKILL once that many remote writes are done."""
    env = {k: v for k, v in os.environ.items()}
    env.update(env_extra or {})
    program = ["from audit.cli import main; main()"] if killed_after is None else [KILLED_AFTER, killed_after]
    return subprocess.run([sys.executable, "-c", *program, *args, "--db", str(db)],
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=str(REPO))


# --- tests ----------------------------------------------------------------------

def test_push_annotate_pull(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 50)
    proj = _project(db_path)
    s = audit.sync.ls_push("synth", tiers=None, db=db_path)
    assert (s.selected, s.created, s.updated) == (50, 50, 0)
    tasks = _tasks(client, proj.project_id)
    assert len(tasks) == 50
    assert sorted(t.data["audit_id"] for t in tasks) == [f"synth::q{i:05d}" for i in range(50)]

    # Task content: escaped text, script direction, options 2–6 in the config.
    by_q = {t.data["question_id"]: t for t in tasks}
    html_en = by_q["q00004"].data["item_html"]
    assert "<script>" not in html_en and "<img" not in html_en and "&lt;script&gt;alert(1)" in html_en
    assert 'dir="rtl"' in by_q["q00001"].data["item_html"] and 'lang="ug"' in by_q["q00001"].data["item_html"]
    assert "writing-mode: vertical-lr" in by_q["q00002"].data["item_html"]
    assert "gpt" in by_q["q00000"].data["item_html"] and "qwen" in by_q["q00000"].data["item_html"]
    config = client.projects.get(id=proj.project_id).label_config
    assert '<Choice value="F"/>' in config and 'alias="key_wrong"' in config and 'alias="cultural"' in config

    # Push twice → same tasks; a changed question → its task updated.
    s2 = audit.sync.ls_push("synth", tiers=None, db=db_path)
    assert (s2.created, s2.updated, s2.unchanged) == (0, 0, 50)
    with connect(db_path) as con:
        con.execute("UPDATE questions SET stem = 'changed stem' WHERE benchmark = 'synth' AND question_id = 'q00003'")
    s3 = audit.sync.ls_push("synth", tiers=None, db=db_path)
    assert (s3.created, s3.updated, s3.unchanged) == (0, 1, 49)
    tasks = _tasks(client, proj.project_id)
    assert len(tasks) == 50
    assert next(t for t in tasks if t.data["question_id"] == "q00003").data["stem"] == "changed stem"

    # A reviewer annotates 20 tasks in Label Studio.
    user = _reviewer(client, f"pema-{uuid.uuid4().hex[:6]}@example.org")
    rng = random.Random(1)
    expected = {}
    with connect(db_path, read_only=True) as con:
        items = {q: (k, [o["label"] for o in opts]) for q, k, opts in con.execute(
            "SELECT question_id, answer_key, options FROM questions WHERE benchmark = 'synth'").fetchall()}
    for t in sorted(tasks, key=lambda t: t.data["question_id"])[:20]:
        qid = t.data["question_id"]
        key, labels = items[qid]
        verdict = rng.choice(["key_correct", "key_wrong", "ambiguous", "defective"])
        answer = rng.choice([l for l in labels if l != key]) if verdict == "key_wrong" else None
        # a cause only with the verdicts it belongs to, key_slip only with key_wrong (add_review's rule)
        cause = (rng.choice(["translation", "key_slip", None]) if verdict == "key_wrong"
                 else rng.choice(["translation", None]) if verdict in ("ambiguous", "defective") else None)
        rationale = f"because {qid} ཀ"
        client.annotations.create(id=t.id, result=verdict_result(verdict, answer, cause, rationale),
                                  completed_by=user.id)
        expected[qid] = (verdict, answer, cause, rationale)

    p = audit.sync.ls_pull(db=db_path)
    assert (p.reviews_added, p.rejected, p.conflicts) == (20, 0, 0)
    got = audit.review.list_reviews("synth", db=db_path)
    assert len(got) == 20
    assert set(got["reviewer"]) == {user.email} and set(got["source"]) == {"label_studio"}
    for r in got.itertuples():
        v, a, c, why = expected[r.question_id]
        assert tuple(None if pd.isna(x) else x for x in (r.verdict, r.corrected_answer, r.cause, r.rationale)) \
            == (v, a, c, why)
    assert got["external_id"].str.startswith(f"label_studio:{proj.project_id}:").all()

    # Pull twice → nothing new.
    before = db_snapshot(db_path)["reviews"]
    p2 = audit.sync.ls_pull(db=db_path)
    assert (p2.new_versions, p2.reviews_added) == (0, 0)
    assert db_snapshot(db_path)["reviews"] == before

    # An edited annotation → one more row (the earlier one kept); a deleted one → recorded, review kept.
    anns = client.annotations.list(id=next(t.id for t in tasks if t.data["question_id"] == "q00000"))
    client.annotations.update(id=anns[0].id, result=verdict_result("defective", cause="formatting", rationale="edited"))
    anns5 = client.annotations.list(id=next(t.id for t in tasks if t.data["question_id"] == "q00005"))
    client.annotations.delete(id=anns5[0].id)
    p3 = audit.sync.ls_pull(db=db_path)
    assert (p3.reviews_added, p3.deleted) == (1, 1)
    hist = audit.review.list_reviews("synth", "q00000", db=db_path)
    assert list(hist["verdict"]) == [expected["q00000"][0], "defective"]
    assert len(audit.review.list_reviews("synth", "q00005", db=db_path)) == 1
    assert _q(db_path, "SELECT count(*) FROM ls_deletions WHERE annotation_id = ?", [anns5[0].id])[0][0] == 1
    assert audit.sync.ls_pull(db=db_path).reviews_added == 0


def test_workbench_verdicts_become_annotations(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 12)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    email = f"dolma-{uuid.uuid4().hex[:6]}@example.org"
    audit.add_review("synth", "q00000", "Tenzin Dolma", "key_correct", rationale="ok", source="workbench", db=db_path)
    audit.add_review("synth", "q00001", email, "defective", cause="translation", source="workbench", db=db_path)
    audit.add_review("synth", "q00002", "Tenzin Dolma", "ambiguous", rationale="two answers", source="cli", db=db_path)
    s = audit.ls_sync(db=db_path)
    assert (s.push.annotations_created, s.push.annotations_updated) == (3, 0)
    tasks = {t.data["question_id"]: t.id for t in _tasks(client, proj.project_id)}
    users = {u.id: u.email for u in client.users.list()}

    def anns(qid):
        return client.annotations.list(id=tasks[qid])

    a0 = anns("q00000")
    assert len(a0) == 1 and users[a0[0].completed_by].startswith("tenzin-dolma@")
    assert a0[0].result == verdict_result("key_correct", rationale="ok")
    a1 = anns("q00001")
    assert users[a1[0].completed_by] == email
    assert a1[0].result == verdict_result("defective", cause="translation")
    # The reviewer changes their mind in the workbench → the same annotation is updated.
    audit.add_review("synth", "q00000", "Tenzin Dolma", "key_wrong", corrected_answer=_other_label(db_path, "q00000"),
                     cause="key_slip", source="workbench", revision=True, db=db_path)
    s2 = audit.ls_sync(db=db_path)
    assert (s2.push.annotations_created, s2.push.annotations_updated, s2.pull.reviews_added) == (0, 1, 0)
    a0b = anns("q00000")
    assert len(a0b) == 1 and a0b[0].id == a0[0].id and a0b[0].result[0]["value"]["choices"] == ["key_wrong"]
    # Nothing more to do; nothing came back as a duplicate review.
    s3 = audit.ls_sync(db=db_path)
    assert (s3.push.annotations_created, s3.push.annotations_updated, s3.pull.reviews_added) == (0, 0, 0)
    assert len(audit.review.list_reviews("synth", db=db_path)) == 4
    st = audit.sync.ls_status(db=db_path)
    assert (st.tasks, st.verdicts_pushed, st.open_conflicts, st.open_intents) == (12, 4, 0, 0)


def _other_label(db, qid):
    key, labels = _q(db, "SELECT answer_key, [o.label FOR o IN options] FROM questions WHERE question_id = ?", [qid])[0]
    return next(l for l in labels if l != key)


def test_conflict_keeps_both_and_disputes(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 6)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    reviewer = f"karma-{uuid.uuid4().hex[:6]}@example.org"
    audit.add_review("synth", "q00000", reviewer, "key_correct", source="workbench", db=db_path)
    audit.ls_sync(db=db_path)
    task_id = next(t.id for t in _tasks(client, proj.project_id) if t.data["question_id"] == "q00000")
    ann = client.annotations.list(id=task_id)[0]
    # Both sides change the same reviewer's verdict before the next sync.  In Label Studio the
    # change is Karma's own: her annotation replaced by a new one of hers (an edit saved with
    # the admin's token would be the admin's verdict, see test_label_studio_integrity.py).
    client.annotations.delete(id=ann.id)
    client.annotations.create(id=task_id, result=verdict_result("defective", cause="translation", rationale="in LS"),
                              completed_by=ann.completed_by)
    audit.add_review("synth", "q00000", reviewer, "ambiguous", rationale="in workbench", source="workbench",
                     revision=True, db=db_path)
    s = audit.ls_sync(db=db_path)
    assert (s.pull.conflicts, s.pull.reviews_added, s.push.annotations_updated) == (1, 1, 0)
    hist = audit.review.list_reviews("synth", "q00000", db=db_path)
    # in the order recorded; the annotation's own time is kept as claimed_at
    assert list(hist["verdict"]) == ["key_correct", "ambiguous", "defective"]
    assert list(hist["source"]) == ["workbench", "workbench", "label_studio"]
    assert hist["claimed_at"].notna().tolist() == [False, False, True]
    # Label Studio keeps its version; the item is disputed.
    assert client.annotations.list(id=task_id)[0].result[0]["value"]["choices"] == ["defective"]
    assert _q(db_path, "SELECT question_id, reviewer FROM review_conflicts") == [("q00000", reviewer)]
    status = audit.review_status("synth", db=db_path).set_index("question_id")
    assert status.at["q00000", "status"] == "disputed"
    # Another sync changes nothing; a new verdict by the reviewer resolves it and is pushed.
    s2 = audit.ls_sync(db=db_path)
    assert (s2.pull.reviews_added, s2.push.annotations_updated, s2.push.annotations_created) == (0, 0, 0)
    audit.add_review("synth", "q00000", reviewer, "defective", cause="translation", rationale="agreed",
                     source="workbench", revision=True, db=db_path)
    assert _q(db_path, "SELECT count(*) FROM review_conflicts")[0][0] == 0
    s3 = audit.ls_sync(db=db_path)
    assert s3.push.annotations_updated == 1
    assert client.annotations.list(id=task_id)[0].result == verdict_result("defective", cause="translation",
                                                                           rationale="agreed")


def test_killed_sync_converges(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 50)
    proj = _project(db_path)
    r = _cli(["ls", "push", "-b", "synth", "--all-tiers", "--batch-size", "10"], db_path,
             killed_after="tasks:20")
    assert r.returncode == -9, r.stderr
    assert len(_tasks(client, proj.project_id)) == 20       # on the server, not recorded locally
    assert _q(db_path, "SELECT count(*) FROM ls_tasks WHERE state = 'synced'")[0][0] == 10
    r = _cli(["ls", "push", "-b", "synth", "--all-tiers", "--batch-size", "10"], db_path)
    assert r.returncode == 0, r.stderr
    tasks = _tasks(client, proj.project_id)
    assert len(tasks) == 50 and len({t.data["audit_id"] for t in tasks}) == 50
    assert _q(db_path, "SELECT count(*), count(DISTINCT task_id) FROM ls_tasks WHERE state = 'synced'")[0] == (50, 50)

    # Verdict push killed after 4 of 10 annotations → rerun: 10 annotations, no duplicate reviews.
    for i in range(10):
        audit.add_review("synth", f"q{i:05d}", "Lobsang", "key_correct", rationale=f"r{i}", source="workbench",
                         db=db_path)
    r = _cli(["ls", "sync"], db_path, killed_after="annotations:4")
    assert r.returncode == -9, r.stderr
    r = _cli(["ls", "sync"], db_path)
    assert r.returncode == 0, r.stderr
    by_task = {}
    for t in client.tasks.list(project=proj.project_id, fields="all", page_size=1000):
        by_task[t.data["question_id"]] = t.annotations or []
    assert sorted(q for q, a in by_task.items() if a) == [f"q{i:05d}" for i in range(10)]
    assert all(len(a) == 1 for a in by_task.values() if a)
    assert len(audit.review.list_reviews("synth", db=db_path)) == 10
    assert _q(db_path, "SELECT count(*), count(DISTINCT annotation_id) FROM ls_annotations "
                       "WHERE direction = 'pushed'")[0] == (10, 10)
    assert _q(db_path, "SELECT count(*) FROM ls_intents")[0][0] == 0
    r = _cli(["ls", "sync"], db_path)
    assert "annotations_created: 0" in r.stdout and "reviews_added: 0" in r.stdout


@pytest.mark.parametrize("case", ["wrong token", "unreachable"])
def test_connection_errors_one_line_db_unchanged(ls, db_path, case):
    url, token, client = ls
    make_benchmark(db_path, 5, analyze=False)
    audit.sync.ls_connect(title=f"err {uuid.uuid4().hex[:8]}", db=db_path)
    bad = {"LABEL_STUDIO_API_KEY": "wrong-" + token[6:]} if case == "wrong token" else \
          {"LABEL_STUDIO_URL": f"http://127.0.0.1:{free_port()}"}
    before = db_snapshot(db_path)
    for cmd in (["ls", "push", "-b", "synth", "--all-tiers"], ["ls", "sync"], ["ls", "connect", "--title", "x"]):
        r = _cli(cmd, db_path, bad, timeout=60)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "), (cmd, r.stderr)
        assert ("rejected the API token" if case == "wrong token" else "cannot reach Label Studio") in lines[0]
        assert token not in r.stderr + r.stdout and bad.get("LABEL_STUDIO_API_KEY", token) not in r.stderr
    assert db_snapshot(db_path) == before


def test_token_never_stored_or_logged(ls, db_path, caplog, capfd):
    url, token, client = ls
    caplog.set_level(logging.DEBUG)
    make_benchmark(db_path, 8)
    _project(db_path)
    audit.add_review("synth", "q00001", "Sonam", "key_correct", source="workbench", db=db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    audit.ls_sync(db=db_path)
    r = _cli(["ls", "status", "--remote"], db_path)
    assert r.returncode == 0 and "token_set: True" in r.stdout
    out, err = capfd.readouterr()
    logged = "\n".join(rec.getMessage() + repr(rec.args) for rec in caplog.records)
    assert logged and token not in logged
    assert token not in out + err + r.stdout + r.stderr
    raw = Path(db_path).read_bytes()
    assert token.encode() not in raw and token[:16].encode() not in raw
    assert "api_key=<hidden>" in repr(audit.sync._client.resolve_auth(url, token))


def test_webhook_triggers_pull(ls, db_path):
    url, token, client = ls
    from audit.sync._webhook import WebhookReceiver

    make_benchmark(db_path, 4)
    proj = _project(db_path)
    audit.sync.ls_push("synth", tiers=None, db=db_path)
    port = free_port()
    receiver = WebhookReceiver(port=port, db=db_path, secret="s3cret").start()
    try:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/label-studio", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=5)
        assert e.value.code == 403
        client.webhooks.create(
            url=f"http://127.0.0.1:{port}/label-studio",
            project=proj.project_id,
            send_payload=True,
            send_for_all_actions=False,
            headers={"X-Audit-Webhook-Secret": "s3cret"},
            actions=["ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_DELETED"],
        )
        task = _tasks(client, proj.project_id)[0]
        user = _reviewer(client, f"hook-{uuid.uuid4().hex[:6]}@example.org")
        client.annotations.create(
            id=task.id, result=verdict_result("ambiguous", rationale="hook"), completed_by=user.id
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and receiver.pulls == 0:
            time.sleep(0.2)
        assert receiver.wait_idle(30) and receiver.pulls >= 1, receiver.errors
        got = audit.review.list_reviews("synth", db=db_path)
        assert list(got["reviewer"]) == [user.email] and list(got["verdict"]) == ["ambiguous"]
    finally:
        receiver.stop()


def test_labeling_config_valid_on_server(ls):
    url, token, client = ls
    from audit.sync import labeling_config

    for n in (2, 4, 6, 10):
        p = client.projects.create(title=f"cfg {n} {uuid.uuid4().hex[:6]}", label_config=labeling_config(n))
        assert f'<Choice value="{"ABCDEFGHIJ"[n - 1]}"/>' in client.projects.get(id=p.id).label_config
        client.projects.delete(id=p.id)


def _ls_page():
    import sys
    from pathlib import Path

    root = Path.cwd()
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from workbench.views import label_studio

    label_studio.page()


def test_workbench_page_connect_push_pull(ls, db_path, monkeypatch):
    url, token, client = ls
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    make_benchmark(db_path, 8)
    monkeypatch.setenv("AUDIT_DB", str(db_path))
    monkeypatch.chdir(REPO)
    st.cache_resource.clear()
    at = AppTest.from_function(_ls_page, default_timeout=90)
    at.run()
    assert not at.exception, at.exception
    assert any("No Label Studio project" in i.value for i in at.info)
    at.button(key="ls_connect").click().run()
    assert not at.exception and any("Created project" in s.value for s in at.success), at.error
    at.multiselect(key="ls_tiers").set_value([0, 1, 2, 3, 4, 5]).run()
    at.button(key="ls_push").click().run()
    assert any("Tasks: 8 created" in s.value for s in at.success), [e.value for e in at.error]
    proj = audit.sync.ls_status(db=db_path)
    task = _tasks(client, proj.project_id)[0]
    user = _reviewer(client, f"page-{uuid.uuid4().hex[:6]}@example.org")
    client.annotations.create(id=task.id, result=verdict_result("key_correct"), completed_by=user.id)
    at.button(key="ls_pull").click().run()
    assert any("1 new reviews" in s.value for s in at.success), [e.value for e in at.error]
    assert token not in str([m.value for m in at.markdown] + [c.value for c in at.caption])
    st.cache_resource.clear()


def test_push_selection_follows_queue_filters(ls, db_path):
    url, token, client = ls
    make_benchmark(db_path, 40)
    proj = _project(db_path)
    flagged = {q for (q,) in _q(db_path, "SELECT question_id FROM current_audit WHERE tier IN (1, 2)")}
    s = audit.sync.ls_push("synth", db=db_path)                      # default: Tier 1–2, like the queue
    assert s.selected == len(flagged) and s.created == len(flagged)
    assert {t.data["question_id"] for t in _tasks(client, proj.project_id)} == flagged
    math_all = {q for (q,) in _q(db_path, "SELECT question_id FROM questions WHERE subject = 'math'")}
    s2 = audit.sync.ls_push("synth", tiers=None, subjects=["math"], db=db_path)
    assert s2.selected == len(math_all) and s2.created == len(math_all - flagged)
    with pytest.raises(audit.NotFoundError):
        audit.sync.ls_push("nope", db=db_path)


def test_not_a_label_studio_server_is_one_clear_error(db_path):
    """Runs without the Label Studio server: a plain HTTP server at the URL."""
    import http.server
    import socketserver
    import threading

    class Html(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html>not label studio</html>")

        def log_message(self, *args):
            pass

    srv = socketserver.TCPServer(("127.0.0.1", 0), Html)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        before = db_snapshot(db_path)
        r = _cli(["ls", "connect", "--url", f"http://127.0.0.1:{srv.server_address[1]}", "--api-key", "k3y-x"],
                 db_path, {"LABEL_STUDIO_API_KEY": ""}, timeout=60)
        assert r.returncode == 1 and r.stderr.strip().count("\n") == 0
        assert "did not answer like Label Studio" in r.stderr and "k3y-x" not in r.stderr
        assert db_snapshot(db_path) == before
        r = _cli(["ls", "pull"], db_path, {"LABEL_STUDIO_URL": "", "LABEL_STUDIO_API_KEY": ""}, timeout=60)
        assert r.returncode == 1 and r.stderr.startswith("error: no Label Studio URL")
    finally:
        srv.shutdown()
        srv.server_close()


def test_push_killed_at_an_arbitrary_moment_converges(ls, db_path):
    """No fault injection: SIGKILL the CLI as soon as the server holds some of
    its tasks, wherever it is; the rerun must end with each item exactly once."""
    import signal

    url, token, client = ls
    make_benchmark(db_path, 60, analyze=False)
    proj = _project(db_path)
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", "from audit.cli import main; main()", "ls", "push", "-b", "synth",
                             "--all-tiers", "--batch-size", "5", "--db", str(db_path)],
                            env=env, cwd=str(REPO), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    n = 0
    while time.monotonic() < deadline and proc.poll() is None:
        n = client.projects.get(id=proj.project_id).task_number or 0
        if n >= 10:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait(30)
    r = _cli(["ls", "push", "-b", "synth", "--all-tiers", "--batch-size", "5"], db_path)
    assert r.returncode == 0, r.stderr
    tasks = _tasks(client, proj.project_id)
    assert len(tasks) == 60 and len({t.data["audit_id"] for t in tasks}) == 60
    assert _q(db_path, "SELECT count(*), count(DISTINCT task_id) FROM ls_tasks WHERE state = 'synced'")[0] == (60, 60)


def test_personal_access_token_is_exchanged_for_access_tokens(ls, db_path):
    """A personal access token (a JWT refresh token, Label Studio's newer
    kind) works like a legacy one: the client exchanges it at
    ``/api/token/refresh/`` and sends the short-lived access token.  The
    token is made on the real server with the admin's legacy token."""
    import httpx

    url, token, _ = ls
    admin = {"Authorization": f"Token {token}"}
    r = httpx.post(f"{url}/api/jwt/settings", headers=admin, timeout=30,
                   json={"api_tokens_enabled": True, "legacy_api_tokens_enabled": True})
    assert r.status_code < 300, r.text
    r = httpx.post(f"{url}/api/token/", headers=admin, timeout=30)
    assert r.status_code < 300, r.text
    pat = r.json()["token"]
    assert pat.count(".") == 2 and pat != token
    session = audit.sync._client.open_session(url, pat)
    assert session.email and session.user_id > 0
    assert not audit.sync._remote.list_users(session).empty
    summary = audit.sync.ls_connect(url, pat, title=f"pat {uuid.uuid4().hex[:8]}", benchmark="synth", db=db_path)
    assert summary.project_id > 0
    # a token that is not valid for the server is one clear line, without the token
    with pytest.raises(audit.AuditError) as err:
        audit.sync._client.open_session(url, pat[:-4] + "abcd")
    assert "rejected the API token" in str(err.value) and pat[:-4] not in str(err.value)
