"""audit.sync._connection: ``ls_connect`` against a local stand-in of the
Label Studio endpoints — a project created, found again by title or id, its
labeling config sent only when it differs, the task-list tab added once,
the project recorded without the token, admins only once accounts exist —
and ``ls_status`` counts from the sync state."""
from __future__ import annotations

import shutil

import pytest

from audit.accounts import add_account
from audit.errors import PermissionDeniedError
from audit.store import connect
from audit.sync import labeling_config, ls_connect, ls_status
from audit.sync._client import KEY_ENV, URL_ENV, open_session
from audit.sync._config import HIDDEN_COLUMNS
from audit.sync._connection import VIEW_TITLE, ensure_config, ensure_view, max_options
from tests.support.ls_standin import TOKEN, LabelStudioStandIn
from tests.support.toy_release import toy_db


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_template):
    return toy_db(tmp_path_factory.mktemp("connect"), migrated_template, predictions=False, reviews=False)


@pytest.fixture
def db(template, tmp_path, monkeypatch):
    monkeypatch.delenv(URL_ENV, raising=False)
    monkeypatch.delenv(KEY_ENV, raising=False)
    path = tmp_path / "c.duckdb"
    shutil.copyfile(template, path)
    return path


@pytest.fixture
def ls():
    with LabelStudioStandIn() as s:
        yield s


def test_max_options(db, db_path):
    with connect(db, read_only=True) as con:
        assert max_options(con) == 4 and max_options(con, "toy") == 4 and max_options(con, "none") == 4
    with connect(db_path, read_only=True) as con:
        assert max_options(con) == 4                   # no items: the usual four


def test_connect_creates_then_finds_the_project(db, ls):
    s = ls_connect(ls.url, TOKEN, benchmark="toy", db=db)
    assert (s.created, s.project_id, s.title, s.n_options, s.user) == (True, 1, "Answer-key audit: toy", 4,
                                                                        "admin@example.org")
    assert ls.projects[1]["label_config"] == labeling_config(4)
    assert [v["data"]["title"] for v in ls.views] == [VIEW_TITLE]
    assert ls.views[0]["data"]["hiddenColumns"]["explore"] == HIDDEN_COLUMNS
    patches = sum(r["method"] == "PATCH" for r in ls.requests)
    again = ls_connect(ls.url, TOKEN, benchmark="toy", db=db)
    assert (again.created, again.project_id) == (False, 1)
    assert sum(r["method"] == "PATCH" for r in ls.requests) == patches      # config unchanged: not sent
    assert len(ls.views) == 1                                               # the tab is added once
    with connect(db, read_only=True) as con:
        rows = con.execute("SELECT * FROM ls_projects").fetchall()
    assert len(rows) == 1 and TOKEN not in repr(rows)


def test_an_existing_project_by_id_gets_the_current_config(db, ls):
    p = ls.add_project("made by hand", "<View>old</View>")
    s = ls_connect(ls.url, TOKEN, project_id=p["id"], db=db)
    assert (s.created, s.title) == (False, "made by hand")
    assert ls.projects[p["id"]]["label_config"] == labeling_config(4)


def test_ensure_config_and_view_directly(ls):
    session = open_session(ls.url, TOKEN, timeout=5)
    p = ls.add_project("p", "<View/>")["id"]
    ensure_config(session, p, "  <View/>\n")
    assert not any(r["method"] == "PATCH" for r in ls.requests)
    ensure_config(session, p, "<View>new</View>")
    assert ls.projects[p]["label_config"] == "<View>new</View>"
    ls.views.append({"id": 99, "project": p, "data": {"title": VIEW_TITLE}})
    ensure_view(session, p)
    assert len(ls.views) == 1


def test_connecting_is_for_admins_once_accounts_exist(db, ls):
    add_account("root", "a long admin passphrase", role="admin", db=db)
    add_account("pema", "a long reviewer passphrase", role="reviewer", actor="root", db=db)
    with pytest.raises(PermissionDeniedError):
        ls_connect(ls.url, TOKEN, db=db, actor="pema")
    assert ls.requests == []                                   # refused before any request
    assert ls_connect(ls.url, TOKEN, db=db, actor="root").created


def test_status_counts(db, ls, monkeypatch):
    assert ls_status(db=db).project_id is None
    ls_connect(ls.url, TOKEN, title="audit", db=db)
    with connect(db) as con:
        con.execute("INSERT INTO ls_tasks VALUES (?, 1, 'toy::t01', 'toy', 't01', 11, 'h', 'synced', now()), "
                    "(?, 1, 'toy::t02', 'toy', 't02', NULL, 'h', 'pending', now())", [ls.url, ls.url])
        con.execute("INSERT INTO ls_annotations (url, project_id, annotation_id, updated_at, task_id, benchmark, "
                    "question_id, ls_user_id, reviewer, direction, review_id, content_hash, note, recorded_at) "
                    "VALUES (?, 1, 1, 'a', 11, 'toy', 't01', 2, 'p', 'pulled', 1, 'h', NULL, now()), "
                    "(?, 1, 2, 'a', 11, 'toy', 't01', 2, 'p', 'rejected', NULL, 'h', 'bad', now()), "
                    "(?, 1, 3, 'a', 11, 'toy', 't01', 2, 'p', 'pushed', 2, 'h', NULL, now())",
                    [ls.url] * 3)
    st = ls_status(db=db)
    assert (st.url, st.project_id, st.title) == (ls.url, 1, "audit")
    assert (st.tasks, st.tasks_pending, st.annotation_versions, st.reviews_pulled, st.verdicts_pushed,
            st.rejected) == (1, 1, 3, 1, 1, 1)
    assert st.token_set is False and st.remote_tasks is None
    monkeypatch.setenv(KEY_ENV, TOKEN)
    ls.add_task(1, {"audit_id": "x"})
    st = ls_status(ls.url + "/", remote=True, db=db)
    assert st.token_set is True and st.remote_tasks == 1 and st.remote_annotations == 0
