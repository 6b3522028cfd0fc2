"""audit.sync._pull: what a pull records, on in-memory listings (no server):
``apply_pull`` on the toy benchmark appends one review per new annotation
version (reviewer by the account's email or its linked name, an edit by
another account is that account's verdict), records the rest (unchanged,
adopted from the workbench, conflicts, rejected with the reason, deleted),
and a second identical listing adds nothing."""
from __future__ import annotations

import shutil

import pytest

from audit.review import add_review, list_reviews
from audit.store import connect, transaction
from audit.sync._pull import PullSummary, _none, apply_pull
from audit.sync._state import Project, find_project, save_project
from tests.support.ls_frames import URL, annotation, listing, users
from tests.support.toy_release import BENCH, toy_db

PID = 4
PROJECT = Project(URL, PID, "audit")
WHO = users(u1="admin@example.org", u2="pema@example.org", u3="dawa@example.org")


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("pull"), migrated_template, predictions=False, reviews=False)
    with connect(db) as con:
        save_project(con, URL, PID, "audit", "<View/>")
    return db


@pytest.fixture
def db(template, tmp_path):
    path = tmp_path / "pull.duckdb"
    shutil.copyfile(template, path)
    return path


def _pull(db, remote, who=WHO) -> PullSummary:
    with connect(db) as con, transaction(con):
        return apply_pull(con, PROJECT, remote, who)


def _versions(db):
    with connect(db, read_only=True) as con:
        return con.execute("SELECT annotation_id, updated_at, reviewer, direction, review_id IS NOT NULL, note "
                           "FROM ls_annotations ORDER BY annotation_id, updated_at").fetchall()


def test_none_for_every_spelling_of_null():
    import numpy as np
    import pandas as pd

    assert [_none(v) for v in (None, float("nan"), pd.NA, pd.NaT, np.nan)] == [None] * 5
    assert _none("x") == "x" and _none(0) == 0 and _none([1]) == [1]


def test_new_annotations_become_reviews_once(db):
    remote = listing(annotation(1, "t01", 2, "key_wrong", answer="B", cause="key_slip", rationale="ཀ is right"),
                     annotation(2, "t02", 3, "key_correct"),
                     annotation(3, "t03", 2, "skip", cancelled=True))
    s = _pull(db, remote)
    assert (s.annotations, s.new_versions, s.reviews_added, s.rejected, s.conflicts, s.deleted) == (3, 3, 3, 0, 0, 0)
    r = list_reviews(BENCH, db=db).sort_values("question_id")
    assert r["reviewer"].tolist() == ["pema@example.org", "dawa@example.org", "pema@example.org"]
    assert r["source"].unique().tolist() == ["label_studio"]
    assert r["verdict"].tolist() == ["key_wrong", "key_correct", "skip"]
    assert r.iloc[0]["rationale"] == "ཀ is right"
    assert r.iloc[0]["external_id"] == f"label_studio:{PID}:1@2026-01-01T00:00:00.000000Z"
    again = _pull(db, remote)
    assert (again.new_versions, again.reviews_added) == (0, 0)
    assert len(list_reviews(BENCH, db=db)) == 3
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT last_pull_at IS NOT NULL FROM ls_projects").fetchall() == [(True,)]


def test_a_new_version_with_the_same_content_adds_no_row(db):
    _pull(db, listing(annotation(1, "t01", 2, "key_correct")))
    s = _pull(db, listing(annotation(1, "t01", 2, "key_correct", updated_at="2026-01-02T00:00:00.000000Z")))
    assert (s.new_versions, s.unchanged, s.reviews_added) == (1, 1, 0)
    s = _pull(db, listing(annotation(1, "t01", 2, "ambiguous", updated_at="2026-01-03T00:00:00.000000Z")))
    assert s.reviews_added == 1
    assert list_reviews(BENCH, db=db)["verdict"].tolist() == ["key_correct", "ambiguous"]


@pytest.mark.parametrize("row, reason", [
    (annotation(1, "t01", 2, None), "no verdict chosen"),
    (annotation(1, "t01", 2, "key_wrong", answer="F"), "F"),
    (annotation(1, "t01", 2, "key_wrong"), "corrected"),
    (annotation(1, "t01", 2, "key_correct", answer="B"), "key_wrong"),
    (annotation(1, "t99", 2, "key_correct"), "the item toy/t99 is not in the database"),
])
def test_invalid_annotations_are_rejected_with_the_reason(db, row, reason):
    s = _pull(db, listing(row))
    assert (s.rejected, s.reviews_added) == (1, 0)
    (aid, _, reviewer, direction, has_review, note), = _versions(db)
    assert (aid, reviewer, direction, has_review) == (1, "pema@example.org", "rejected", False)
    assert reason in note
    assert list_reviews(BENCH, db=db).empty


def test_an_edit_by_another_account_is_that_accounts_verdict(db):
    s = _pull(db, listing(annotation(1, "t01", 2, "key_correct", author=1)))
    assert s.reviews_added == 1
    assert list_reviews(BENCH, db=db)["reviewer"].tolist() == ["admin@example.org"]
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT ls_user_id, edited_by FROM ls_annotations").fetchall() == [(2, 1)]


def test_a_linked_account_is_its_workbench_reviewer(db):
    with connect(db) as con:
        con.execute("INSERT INTO ls_users VALUES (?, 2, 'pema@example.org', 'Pema Dorje')", [URL])
    _pull(db, listing(annotation(1, "t01", 2, "key_correct")))
    assert list_reviews(BENCH, db=db)["reviewer"].tolist() == ["Pema Dorje"]


def test_workbench_verdicts_are_adopted_or_kept_in_conflict(db):
    add_review(BENCH, "t01", "pema@example.org", "key_wrong", corrected_answer="C", cause="key_slip", db=db)
    add_review(BENCH, "t02", "pema@example.org", "key_correct", db=db)
    s = _pull(db, listing(annotation(1, "t01", 2, "key_wrong", answer="C", cause="key_slip"),
                          annotation(2, "t02", 2, "ambiguous")))
    assert (s.adopted, s.conflicts, s.reviews_added) == (1, 1, 1)
    directions = {aid: d for aid, _, _, d, _, _ in _versions(db)}
    assert directions == {1: "pushed", 2: "conflict"}
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT question_id, reviewer FROM review_conflicts").fetchall() == [
            ("t02", "pema@example.org")]
    assert len(list_reviews(BENCH, db=db)) == 3          # both of t02 kept


def test_an_annotation_gone_from_the_listing_is_recorded_deleted(db):
    _pull(db, listing(annotation(1, "t01", 2, "key_correct"), annotation(2, "t02", 3, "key_correct")))
    s = _pull(db, listing(annotation(2, "t02", 3, "key_correct")))
    assert s.deleted == 1
    with connect(db, read_only=True) as con:
        assert con.execute("SELECT annotation_id, question_id, reviewer FROM ls_deletions").fetchall() == [
            (1, "t01", "pema@example.org")]
    assert len(list_reviews(BENCH, db=db)) == 2          # its review stays
    assert _pull(db, listing(annotation(2, "t02", 3, "key_correct"))).deleted == 0


def test_a_reused_id_is_the_old_annotations_deletion_and_a_new_one(db):
    _pull(db, listing(annotation(1, "t01", 2, "key_correct")))
    s = _pull(db, listing(annotation(1, "t05", 3, "key_correct", updated_at="2026-02-01T00:00:00.000000Z")))
    assert (s.deleted, s.reviews_added) == (1, 1)
    assert sorted(list_reviews(BENCH, db=db)["reviewer"]) == ["dawa@example.org", "pema@example.org"]


def test_a_reused_user_id_is_attributed_by_its_new_email(db):
    with connect(db) as con:
        con.execute("INSERT INTO ls_users VALUES (?, 2, 'pema@example.org', 'Pema Dorje')", [URL])
    s = _pull(db, listing(annotation(1, "t01", 2, "key_correct")), users(u2="tashi@example.org"))
    assert s.relinked == 1
    assert list_reviews(BENCH, db=db)["reviewer"].tolist() == ["tashi@example.org"]
    note = _versions(db)[0][5]
    assert "was pema@example.org (reviewer 'Pema Dorje') and is now tashi@example.org" in note


def test_an_empty_listing(db):
    s = _pull(db, listing())
    assert s == PullSummary(PID, annotations=0)
    with connect(db, read_only=True) as con:
        assert find_project(con, URL, PID) == PROJECT
