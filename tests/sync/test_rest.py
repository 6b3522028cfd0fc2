"""audit.sync._rest: the REST client against a local in-memory stand-in of
the Label Studio endpoints — records, the legacy-token and personal-access-
token schemes (JWT claims read, expiry refused, access token refreshed),
paging of the task list, errors as ApiError, and no token in the repr."""
from __future__ import annotations

import time

import httpx
import pytest

from audit.sync._rest import ApiError, LabelStudioClient, _jwt_claims, record
from tests.support.ls_standin import TOKEN, LabelStudioStandIn, jwt


@pytest.fixture(scope="module")
def ls():
    with LabelStudioStandIn() as s:
        yield s


@pytest.fixture
def client(ls):
    c = LabelStudioClient(ls.url + "/", TOKEN, timeout=5)
    yield c
    c.close()


def test_record_makes_attributes_but_keeps_data_as_a_dict():
    r = record({"id": 3, "data": {"x": {"y": 1}}, "items": [{"a": {"b": 2}}], "none": None})
    assert r.id == 3 and r.data == {"x": {"y": 1}} and r.items[0].a.b == 2 and r.none is None
    assert record([1, "a"]) == [1, "a"]


def test_jwt_claims_are_read_unverified_and_garbage_is_none():
    assert _jwt_claims(jwt({"exp": 5, "token_type": "refresh"})) == {"exp": 5, "token_type": "refresh"}
    for bad in ("legacy", "a.b", "a.!!!.c", "a." + "W10" + ".c", ""):   # "W10" is base64 of "[]": not a dict
        assert _jwt_claims(bad) is None


def test_legacy_token_whoami_and_no_token_in_repr(ls, client):
    me = client.users.whoami()
    assert (me.id, me.email) == (1, "admin@example.org")
    assert ls.requests[-1]["auth"] == f"Token {TOKEN}"
    assert repr(client) == f"LabelStudioClient({ls.url!r})" and TOKEN not in repr(client)


def test_personal_access_token_is_exchanged_once_and_sent_as_bearer(ls):
    refresh = jwt({"exp": time.time() + 3600, "token_type": "refresh"})
    ls.refresh_tokens.add(refresh)
    c = LabelStudioClient(ls.url, refresh, timeout=5)
    try:
        before = len(ls.requests)
        c.users.whoami()
        c.users.list()
        reqs = ls.requests[before:]
        assert [r["path"] for r in reqs] == ["/api/token/refresh/", "/api/current-user/whoami", "/api/users/"]
        assert reqs[1]["auth"].startswith("Bearer ") and reqs[1]["auth"] == reqs[2]["auth"]
        assert refresh not in reqs[1]["auth"]
    finally:
        c.close()


def test_an_expired_personal_access_token_is_refused_before_any_request(ls):
    with pytest.raises(ApiError) as e:
        LabelStudioClient(ls.url, jwt({"exp": time.time() - 10}), timeout=5)
    assert e.value.status_code == 401 and "expired" in e.value.body["detail"]


def test_a_refused_refresh_is_an_api_error(ls):
    c = LabelStudioClient(ls.url, jwt({"exp": time.time() + 60}), timeout=5)
    with pytest.raises(ApiError) as e:
        c.users.whoami()
    assert e.value.status_code == 401
    c.close()


def test_projects_tasks_paging_and_filters(ls, client):
    p = client.projects.create(title="paging", label_config="<View/>")
    got = client.projects.import_tasks(p.id, request=[{"audit_id": f"b::q{i}", "audit_benchmark": "b" if i % 2 else "c"}
                                                      for i in range(7)])
    assert len(got.task_ids) == 7
    tasks = list(client.tasks.list(project=p.id, page_size=3))
    assert [t.data["audit_id"] for t in tasks] == [f"b::q{i}" for i in range(7)]
    q = '{"filters": {"conjunction": "and", "items": [{"filter": "filter:tasks:data.audit_benchmark", ' \
        '"operator": "equal", "type": "String", "value": "b"}]}}'
    assert len(list(client.tasks.list(project=p.id, page_size=2, query=q))) == 3
    assert [x.title for x in client.projects.list(title="paging")] == ["paging"]
    client.projects.update(id=p.id, label_config="<View>2</View>")
    assert client.projects.get(id=p.id).label_config == "<View>2</View>"
    page_calls = [r for r in ls.requests if r["path"] == "/api/tasks/" and r["query"].get("page_size") == "3"]
    assert [r["query"]["page"] for r in page_calls] == ["1", "2", "3"]


def test_http_errors_and_non_json_answers(ls, client):
    ls.failures[("GET", "/api/users/")] = (500, {"detail": "boom"})
    ls.failures[("GET", "/api/current-user/whoami")] = (200, b"<html>not label studio</html>")
    try:
        with pytest.raises(ApiError) as e:
            client.users.list()
        assert (e.value.status_code, e.value.body) == (500, {"detail": "boom"})
        with pytest.raises(ApiError) as e:
            client.users.whoami()
        assert e.value.status_code == 200
    finally:
        ls.failures.clear()
    with pytest.raises(ApiError) as e:
        client.projects.get(id=999)
    assert e.value.status_code == 404


def test_a_json_service_that_is_not_label_studio(ls, client):
    ls.failures[("GET", "/api/current-user/whoami")] = (200, {"hello": "world"})
    try:
        with pytest.raises(ApiError) as e:
            client.users.whoami()
        assert e.value.body == {"hello": "world"}
    finally:
        ls.failures.clear()


def test_nothing_listens(tmp_path):
    c = LabelStudioClient("http://127.0.0.1:9", TOKEN, timeout=2)
    with pytest.raises(httpx.HTTPError):
        c.users.whoami()
