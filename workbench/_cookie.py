"""The workbench's session cookie, written by the server (``HttpOnly``).

Page scripts cannot set an ``HttpOnly`` cookie, so the workbench adds one
route to Streamlit's own web server through Streamlit's supported ASGI entry
point (``st.App(..., routes=...)``, which ``streamlit run workbench/app.py``
finds in :mod:`workbench.app`): ``POST /wb/session``.

When a script run decides the cookie must be written (after sign-in, every
few minutes while the reviewer works) or deleted (sign-out, idle end), it
stores the operation under a fresh single-use **nonce** (random 256 bits,
valid :data:`NONCE_SECONDS`) in this process and sends the page a script
that POSTs the nonce in the request *body* to that route.  The route takes
the nonce (once), and answers ``204`` with ``Set-Cookie: wb_session=…;
HttpOnly; SameSite=Strict; Path=/`` (``Secure`` when the request came over
HTTPS), or an expired cookie for a deletion.  When Streamlit knows the
address of the browser's connection, the nonce works only from it.  The token itself never
travels in an address or in anything a page script can read; a nonce that is
unknown, used or expired gets ``403`` and sets nothing.

>>> n = new_nonce("tok.en", 60)
>>> take(n), take(n)
(('tok.en', 60), None)
>>> take("no-such-nonce") is None, take(new_nonce("tok.en", 60, client="203.0.113.5"), "198.51.100.7") is None
(True, True)
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any
from urllib.parse import urlsplit

COOKIE = "wb_session"
ROUTE = "/wb/session"
NONCE_SECONDS = 60.0
_MAX_PENDING = 10_000

_lock = threading.Lock()
# nonce → (expires at, token or None to delete, max-age, client address or None)
_pending: dict[str, tuple[float, str | None, int, str | None]] = {}


def new_nonce(token: str | None, max_age: int, client: str | None = None) -> str:
    """A single-use nonce that, POSTed to :data:`ROUTE` within
    :data:`NONCE_SECONDS`, sets the cookie to ``token`` for ``max_age``
    seconds (``token`` None: deletes it).  ``client``: the address of the
    browser's connection when Streamlit knows it (``st.context.ip_address``,
    None on localhost); the nonce then works only from that address."""
    nonce = secrets.token_urlsafe(32)
    now = time.monotonic()
    with _lock:
        if len(_pending) >= _MAX_PENDING:   # drop expired ones (never more than a few in practice)
            for k in [k for k, v in _pending.items() if v[0] < now]:
                del _pending[k]
        _pending[nonce] = (now + NONCE_SECONDS, token, int(max_age), client)
    return nonce


def take(nonce: str, client: str | None = None) -> tuple[str | None, int] | None:
    """The operation stored under ``nonce`` (removed: single use), or None
    when it is unknown, used, expired, or bound to another client address."""
    with _lock:
        got = _pending.pop(nonce, None)
    if got is None or got[0] < time.monotonic() or (got[3] is not None and got[3] != client):
        return None
    return got[1], got[2]


def route_path() -> str:
    """:data:`ROUTE` under Streamlit's ``server.baseUrlPath``."""
    try:
        from streamlit import config

        base = str(config.get_option("server.baseUrlPath") or "").strip("/")
    except Exception:  # noqa: BLE001 - outside a Streamlit process
        base = ""
    return (f"/{base}" if base else "") + ROUTE


def script(nonce: str) -> str:
    """The page script that hands ``nonce`` to the route (POST body, same
    origin only)."""
    return ("<script>fetch(" + json.dumps(route_path()) + ", {method: 'POST', body: " + json.dumps(nonce)
            + ", credentials: 'same-origin', cache: 'no-store', headers: {'Content-Type': 'text/plain'}});</script>")


def _https(request: Any) -> bool:
    proto = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme in ("https", "wss") or proto == "https"


def _same_origin(request: Any) -> bool:
    """A browser's POST carries ``Origin``; it must name this host."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


async def endpoint(request: Any) -> Any:
    """``POST`` :data:`ROUTE` with a nonce as the body: set or delete the
    cookie (204), else 403."""
    from starlette.responses import Response

    body = (await request.body())[:200].decode("ascii", "replace").strip()
    got = take(body, request.client.host if request.client else None) if body else None   # used up even when refused
    if got is None or not _same_origin(request):
        return Response(status_code=403, headers={"Cache-Control": "no-store"})
    token, max_age = got
    resp = Response(status_code=204, headers={"Cache-Control": "no-store"})
    secure = _https(request)
    if token:
        resp.set_cookie(COOKIE, token, max_age=max_age, path="/", httponly=True, samesite="strict", secure=secure)
    else:
        resp.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=secure)
    return resp


def routes() -> list:
    """The Starlette routes the workbench adds to Streamlit's server."""
    from starlette.routing import Route

    return [Route(route_path(), endpoint, methods=["POST"])]
