"""audit.sync._rejected: the annotations a pull refused, listed while their
latest version is the refused one, newest first, per project — fed by
``apply_pull`` on in-memory listings of the toy benchmark."""
from __future__ import annotations

import shutil

import duckdb
import pytest

from audit.store import connect, transaction
from audit.sync import ls_rejected
from audit.sync._pull import apply_pull
from audit.sync._rejected import REJECTED_COLUMNS
from audit.sync._state import Project, save_project
from tests.support.ls_frames import URL, annotation, listing, users
from tests.support.toy_release import toy_db

WHO = users(u2="pema@example.org", u3="dawa@example.org")


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_template):
    db = toy_db(tmp_path_factory.mktemp("rejected"), migrated_template, predictions=False, reviews=False)
    with connect(db) as con:
        save_project(con, URL, 1, "one", "<View/>")
        save_project(con, URL, 2, "two", "<View/>")
    return db


@pytest.fixture
def db(template, tmp_path):
    path = tmp_path / "rejected.duckdb"
    shutil.copyfile(template, path)
    return path


def _pull(db, pid, *rows):
    with connect(db) as con, transaction(con):
        return apply_pull(con, Project(URL, pid, "p"), listing(*rows), WHO)


def test_listed_newest_first_with_the_reason(db):
    _pull(db, 1, annotation(1, "t01", 2, None, updated_at="2026-01-01T00:00:00.000000Z"),
          annotation(2, "t02", 3, "key_wrong", answer="Z", updated_at="2026-01-03T00:00:00.000000Z"),
          annotation(3, "t03", 2, "key_correct"))
    df = ls_rejected(db=db)
    assert list(df.columns) == REJECTED_COLUMNS
    assert df["annotation_id"].tolist() == [2, 1]
    assert df["reviewer"].tolist() == ["dawa@example.org", "pema@example.org"]
    assert df["reason"].iloc[1] == "no verdict chosen" and "Z" in df["reason"].iloc[0]
    assert df[["project_id", "task_id", "benchmark", "question_id"]].values.tolist()[1] == [1, 101, "toy", "t01"]


def test_an_edit_that_fixes_it_takes_it_off_the_list(db):
    _pull(db, 1, annotation(1, "t01", 2, None))
    assert ls_rejected(db=db)["annotation_id"].tolist() == [1]
    _pull(db, 1, annotation(1, "t01", 2, "key_correct", updated_at="2026-01-02T00:00:00.000000Z"))
    assert ls_rejected(db=db).empty
    # and a later bad edit puts it back
    _pull(db, 1, annotation(1, "t01", 2, "key_wrong", updated_at="2026-01-03T00:00:00.000000Z"))
    assert ls_rejected(db=db)["updated_at"].tolist() == ["2026-01-03T00:00:00.000000Z"]


def test_per_project(db):
    _pull(db, 1, annotation(1, "t01", 2, None))
    _pull(db, 2, annotation(1, "t01", 2, None))
    assert len(ls_rejected(db=db)) == 2
    assert ls_rejected(project_id=2, db=db)["project_id"].tolist() == [2]
    assert ls_rejected(project_id=3, db=db).empty


def test_a_fresh_database_file(tmp_path):
    path = tmp_path / "bare.duckdb"
    duckdb.connect(str(path)).close()
    df = ls_rejected(db=path)
    assert df.empty and list(df.columns) == REJECTED_COLUMNS
