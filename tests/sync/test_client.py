"""audit.sync._client: credentials from flags or the environment, the
token hidden from reprs and error lines (even when a server echoes it
back), each HTTP failure turned into one clear line, and a session opened
against a local stand-in of the Label Studio endpoints."""
from __future__ import annotations

import httpx
import pytest

from audit.sync._client import (
    KEY_ENV,
    URL_ENV,
    LabelStudioAuth,
    LabelStudioError,
    _detail,
    ls_errors,
    open_session,
    resolve_auth,
)
from audit.sync._rest import ApiError
from tests.support.ls_standin import TOKEN, LabelStudioStandIn

AUTH = LabelStudioAuth("http://ls.example:8080", "s3cret-token-value")


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv(URL_ENV, raising=False)
    monkeypatch.delenv(KEY_ENV, raising=False)


def test_flags_first_then_the_environment(monkeypatch):
    assert resolve_auth(" http://a:1/ ", " k ") == LabelStudioAuth("http://a:1", "k")
    monkeypatch.setenv(URL_ENV, "https://env.example/")
    monkeypatch.setenv(KEY_ENV, "envkey")
    assert resolve_auth() == LabelStudioAuth("https://env.example", "envkey")
    assert resolve_auth("http://flag", None).url == "http://flag"


@pytest.mark.parametrize("url, key, message", [
    (None, "k", "no Label Studio URL"), ("ftp://x", "k", "must start with http:// or https://"),
    ("localhost:8080", "k", "must start with http"), ("http://x", None, "no Label Studio API token"),
    ("http://x", "   ", "no Label Studio API token"),
])
def test_missing_or_bad_credentials(url, key, message):
    with pytest.raises(LabelStudioError, match=message):
        resolve_auth(url, key)


def test_the_token_is_hidden_from_the_repr():
    assert repr(AUTH) == "LabelStudioAuth(url='http://ls.example:8080', api_key=<hidden>)"
    assert "s3cret" not in repr(AUTH) and "s3cret" not in str(AUTH)


def test_detail_of_a_body():
    assert _detail({"detail": "nope", "x": 1}) == '"nope"'
    assert _detail({"validation_errors": {"a": ["b"]}}) == '{"a": ["b"]}'
    assert _detail({"other": "ཀ"}) == '{"other": "ཀ"}'
    assert _detail("x" * 500) == "x" * 300 and _detail(None) == "" and _detail("") == ""


def _raise(exc):
    with ls_errors(AUTH, "doing a thing"):
        raise exc


@pytest.mark.parametrize("exc, want", [
    (ApiError(401, None), "Label Studio at http://ls.example:8080 rejected the API token (HTTP 401) while doing a "
                          "thing; check LABEL_STUDIO_API_KEY"),
    (ApiError(404, None), "Label Studio at http://ls.example:8080: not found (HTTP 404) while doing a thing"),
    (ApiError(200, "<html>"), "the server at http://ls.example:8080 did not answer like Label Studio while doing a "
                              "thing (is the URL right?)"),
    (ApiError(500, {"detail": "db down"}), 'Label Studio at http://ls.example:8080 answered HTTP 500 while doing a '
                                           'thing: "db down"'),
    (httpx.ReadTimeout("slow"), "Label Studio at http://ls.example:8080 did not answer in time while doing a thing"),
    (httpx.ConnectError("refused"), "cannot reach Label Studio at http://ls.example:8080 (ConnectError: refused)"),
    (KeyError("id"), "the server at http://ls.example:8080 did not answer like Label Studio while doing a thing"),
])
def test_each_failure_is_one_line(exc, want):
    with pytest.raises(LabelStudioError) as e:
        _raise(exc)
    assert str(e.value).startswith(want) and "\n" not in str(e.value)


def test_a_server_echoing_the_token_is_redacted():
    with pytest.raises(LabelStudioError) as e:
        _raise(ApiError(400, {"detail": f"bad header Authorization: Token {AUTH.api_key}"}))
    assert AUTH.api_key not in str(e.value) and "HTTP 400" in str(e.value)


def test_other_exceptions_pass_through_and_ours_are_kept():
    with pytest.raises(ZeroDivisionError):
        _raise(ZeroDivisionError())
    with pytest.raises(LabelStudioError, match="^mine$"):
        _raise(LabelStudioError("mine"))


def test_open_session_against_the_stand_in():
    with LabelStudioStandIn() as ls:
        s = open_session(ls.url + "/", TOKEN, timeout=5)
        assert (s.url, s.user_id, s.email) == (ls.url, 1, "admin@example.org")
        with pytest.raises(LabelStudioError, match="rejected the API token") as e:
            open_session(ls.url, "wrong-token", timeout=5)
        assert "wrong-token" not in str(e.value)


def test_open_session_when_nothing_listens():
    with pytest.raises(LabelStudioError, match="cannot reach Label Studio at http://127.0.0.1:9"):
        open_session("http://127.0.0.1:9", TOKEN, timeout=2)
