"""The server-side writer of the workbench's session cookie
(``workbench._cookie``, the route ``POST /wb/session``), through Starlette's
test client on the same route Streamlit serves: the cookie is ``HttpOnly;
SameSite=Strict``, ``Secure`` only over HTTPS; a nonce works once, only in
a POST body, only before it expires, only from the same origin and the
connection's address when it is known; a
deletion nonce expires the cookie."""
from __future__ import annotations

import pytest

from workbench import _cookie

pytest.importorskip("httpx")


@pytest.fixture
def client_for():
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    app = Starlette(routes=_cookie.routes())
    return lambda base: TestClient(app, base_url=base)


def _set_cookie(resp) -> str:
    return "; ".join(v for k, v in resp.headers.multi_items() if k == "set-cookie")


def test_cookie_is_httponly_strict_and_secure_only_over_https(client_for):
    c = client_for("http://127.0.0.1:8501")
    nonce = _cookie.new_nonce("abc.def", 1800)
    r = c.post("/wb/session", content=nonce)
    header = _set_cookie(r)
    assert r.status_code == 204
    assert header.startswith("wb_session=abc.def;")
    assert "HttpOnly" in header and "SameSite=strict" in header and "Max-Age=1800" in header and "Path=/" in header
    assert "Secure" not in header
    again = c.post("/wb/session", content=nonce)          # single use
    assert again.status_code == 403 and not _set_cookie(again)

    s = client_for("https://review.example.org")
    r = s.post("/wb/session", content=_cookie.new_nonce("abc.def", 60))
    assert r.status_code == 204 and "Secure" in _set_cookie(r)
    behind_proxy = c.post("/wb/session", content=_cookie.new_nonce("abc.def", 60),
                          headers={"X-Forwarded-Proto": "https"})
    assert "Secure" in _set_cookie(behind_proxy)


def test_deletion_nonce_expires_the_cookie(client_for):
    r = client_for("http://127.0.0.1:8501").post("/wb/session", content=_cookie.new_nonce(None, 0))
    header = _set_cookie(r)
    assert r.status_code == 204 and header.startswith('wb_session="";') and "Max-Age=0" in header
    assert "HttpOnly" in header


def test_what_sets_nothing(client_for, monkeypatch):
    c = client_for("http://127.0.0.1:8501")
    nonce = _cookie.new_nonce("abc.def", 60)
    assert c.get(f"/wb/session?nonce={nonce}").status_code == 405          # never through an address
    assert c.post("/wb/session", content="made-up").status_code == 403
    assert c.post("/wb/session", content=nonce, headers={"Origin": "https://evil.example"}).status_code == 403
    assert c.post("/wb/session", content=nonce).status_code == 403          # the refused attempt used it up
    elsewhere = _cookie.new_nonce("abc.def", 60, client="203.0.113.5")     # bound to another connection's address
    assert c.post("/wb/session", content=elsewhere).status_code == 403
    here = _cookie.new_nonce("abc.def", 60, client="testclient")           # Starlette's test client's address
    assert c.post("/wb/session", content=here).status_code == 204
    late = _cookie.new_nonce("abc.def", 60)
    monkeypatch.setattr(_cookie, "NONCE_SECONDS", -1.0)
    expired = _cookie.new_nonce("abc.def", 60)
    assert c.post("/wb/session", content=expired).status_code == 403
    assert c.post("/wb/session", content=late).status_code == 204
