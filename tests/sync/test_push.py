"""audit.sync._push: which items a push selects, the task data built from
the database (answers grouped by family, tier, escaped text), the evidence
words per language, reviewer emails, adopting what an interrupted push
wrote (on in-memory listings), and ``push_tasks`` against a local stand-in
of the Label Studio endpoints: created once, unchanged on a rerun, updated
when an item changes."""
from __future__ import annotations

import shutil
from datetime import timedelta

import pytest

from audit.analyze import analyze_benchmark
from audit.errors import InputError, NotFoundError
from audit.review import add_review
from audit.store import connect, transaction
from audit.sync._client import open_session
from audit.sync._config import verdict_hash
from audit.sync._push import (
    adopt_intents,
    build_tasks,
    evidence_words,
    push_tasks,
    reviewer_email,
    select_items,
    task_evidence,
)
from audit.sync._state import Project, save_project, utc_now
from tests.support.ls_frames import URL, annotation, listing
from tests.support.ls_standin import TOKEN, LabelStudioStandIn
from tests.support.toy_release import BENCH, ITEMS, toy_db

PROJECT = Project(URL, 1, "audit")


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("push"), migrated_template, reviews=False)
    analyze_benchmark(BENCH, db=db)
    with connect(db) as con:
        save_project(con, URL, 1, "audit", "<View/>")
    return db


@pytest.fixture
def db(template, tmp_path):
    path = tmp_path / "push.duckdb"
    shutil.copyfile(template, path)
    return path


@pytest.mark.parametrize("name, want", [
    ("dolma@example.org", "dolma@example.org"), (" Dolma@Example.ORG ", "dolma@example.org"),
    ("Tenzin Dolma", "tenzin-dolma@reviewers.audit.invalid"), ("tenzin  dolma", "tenzin-dolma@reviewers.audit.invalid"),
])
def test_reviewer_email(name, want):
    assert reviewer_email(name) == want


def test_reviewer_email_keeps_non_ascii_names_apart():
    a, b = reviewer_email("བསོད་ནམས"), reviewer_email("ཚེ་རིང")
    assert a != b and a.endswith("@reviewers.audit.invalid") and a.startswith("reviewer-")
    assert reviewer_email("o'brien") != reviewer_email("o brien")


def test_select_items(db):
    sel = select_items(db, PROJECT, BENCH, question_ids=["t03", "t01"])
    assert sel["question_id"].tolist() == ["t01", "t03"] and (sel["benchmark"] == BENCH).all()
    with pytest.raises(InputError, match="unknown question\\(s\\) in benchmark 'toy': t99"):
        select_items(db, PROJECT, BENCH, question_ids=["t01", "t99"])
    with pytest.raises(NotFoundError, match="unknown benchmark 'nope'"):
        select_items(db, PROJECT, "nope")
    assert sorted(select_items(db, PROJECT, BENCH, tiers=None)["question_id"]) == sorted(ITEMS)
    with connect(db, read_only=True) as con:
        flagged = {r[0] for r in con.execute("SELECT question_id FROM current_audit WHERE benchmark = ? "
                                             "AND tier IN (1, 2)", [BENCH]).fetchall()}
    assert set(select_items(db, PROJECT, BENCH)["question_id"]) == flagged
    assert select_items(db, PROJECT, None).empty                         # nothing pushed yet: nothing to refresh


def test_build_tasks_from_the_database(db):
    sel = select_items(db, PROJECT, BENCH, question_ids=["t10", "t04"])
    with connect(db, read_only=True) as con:
        tasks = build_tasks(con, sel, {(BENCH, "t10"): ("Why", ["<b>reason</b>"])})
        tier = dict(con.execute("SELECT question_id, tier FROM current_audit WHERE benchmark = ?", [BENCH]).fetchall())
    assert [t["question_id"] for t in tasks] == ["t04", "t10"]           # import order
    t04, t10 = tasks
    assert t04["audit_id"] == "toy::t04" and t04["answer_key"] == "C" and t04["options"] == ["A", "B", "C", "D"]
    assert t04["tier"] == tier["t04"] and t04["stem"] == "@SUM(1)"
    # answers by family: the three m-* models, t10 answered D, A, D
    assert "<b>D</b>×2 <small>(m-alpha, m-gamma)</small>" in t10["item_html"]
    assert "<b>A</b>×1 <small>(m-beta)</small>" in t10["item_html"]
    assert "<script>" not in t10["item_html"] and "&lt;script&gt;" in t10["item_html"]
    assert t10["evidence"] == "<b>reason</b>" and "&lt;b&gt;reason&lt;/b&gt;" in t10["item_html"]
    assert "evidence" not in t04


def test_evidence_words_and_task_evidence(db):
    assert evidence_words("en")["item.why_here"] != evidence_words("zh-Hans")["item.why_here"]
    with pytest.raises(InputError, match="unknown language 'fr'"):
        evidence_words("fr")
    sel = select_items(db, PROJECT, BENCH, tiers=None)
    ev = task_evidence(db, sel, "bo")
    assert ev and all(h == evidence_words("bo")["item.why_here"] and s for h, s in ev.values())
    assert set(ev) <= {(BENCH, q) for q in ITEMS}


def test_adopt_intents_records_what_an_interrupted_push_wrote(db):
    add_review(BENCH, "t01", "pema", "key_correct", db=db)
    with connect(db, read_only=True) as con:
        rid = con.execute("SELECT max(review_id) FROM reviews").fetchall()[0][0]
    h = verdict_hash("key_correct")
    before = utc_now()
    with connect(db) as con:
        con.executemany("INSERT INTO ls_intents (url, project_id, task_id, ls_user_id, annotation_id, review_id, "
                        "content_hash, created_at) VALUES (?, 1, ?, 2, NULL, ?, ?, ?)",
                        [(URL, 101, rid, h, before - timedelta(seconds=5)),
                         (URL, 102, rid, h, before - timedelta(seconds=5)),      # never reached the server
                         (URL, 101, rid, h, before + timedelta(hours=1))])        # after the listing: kept
    remote = listing(annotation(7, "t01", 2, "key_correct", task_id=101),
                     annotation(8, "t01", 2, "ambiguous", task_id=101))          # other content: not ours
    with connect(db) as con, transaction(con):
        assert adopt_intents(con, PROJECT, remote, before) == 1
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT annotation_id, direction, review_id, reviewer FROM ls_annotations").fetchall() == [
            (7, "pushed", rid, "pema")]
        assert con.execute("SELECT task_id FROM ls_intents").fetchall() == [(101,)]
    with connect(db) as con, transaction(con):
        assert adopt_intents(con, PROJECT, remote, before) == 0              # once only


def test_push_tasks_creates_once_then_updates_what_changed(db):
    with LabelStudioStandIn() as ls:
        ls.add_project("audit", "<View/>")
        with connect(db) as con:
            save_project(con, ls.url, 1, "audit", "<View/>")
        project = Project(ls.url, 1, "audit")
        session = open_session(ls.url, TOKEN, timeout=5)
        s = push_tasks(session, project, BENCH, tiers=None, db=db, progress=False)
        assert (s.selected, s.created, s.updated, s.unchanged) == (10, 10, 0, 0)
        assert sorted(t["data"]["audit_id"] for t in ls.tasks.values()) == sorted(f"toy::{q}" for q in ITEMS)
        assert "<Choice value=\"D\"/>" in ls.projects[1]["label_config"]
        s = push_tasks(session, project, BENCH, tiers=None, db=db, progress=False)
        assert (s.created, s.updated, s.unchanged) == (0, 0, 10)
        with connect(db) as con:
            con.execute("UPDATE questions SET stem = 'edited <i>stem</i>' WHERE benchmark = ? AND question_id = 't05'",
                        [BENCH])
        s = push_tasks(session, project, None, db=db, progress=False)          # refresh what was pushed
        assert (s.selected, s.created, s.updated, s.unchanged) == (10, 0, 1, 9)
        assert next(t for t in ls.tasks.values() if t["data"]["question_id"] == "t05")["data"]["stem"] == \
            "edited <i>stem</i>"
        with connect(db, read_only=True) as con:
            assert con.execute("SELECT count(*), count(*) FILTER (WHERE state = 'synced') FROM ls_tasks "
                               "WHERE url = ?", [ls.url]).fetchall() == [(10, 10)]
