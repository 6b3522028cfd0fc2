"""Connecting to a Label Studio server.

The URL and API token come from flags or from the environment variables
``LABEL_STUDIO_URL`` and ``LABEL_STUDIO_API_KEY``.  The token lives only in
memory: it is never written to the database, an export or a log line, and
every error message built here names the URL, never the token
(``LabelStudioAuth.__repr__`` hides it too).

The client is a small REST client over ``httpx`` (:mod:`audit.sync._rest`,
the endpoints and authentication of ``label-studio-sdk`` 2.x without its ~20
dependencies); HTTP failures are turned into one-line
:class:`~audit.errors.AuditError` messages.
"""
from __future__ import annotations

import json
import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from audit._util.redact import redact
from audit.errors import AuditError

if TYPE_CHECKING:   # httpx is imported only when a sync talks to a server
    from audit.sync._rest import LabelStudioClient

URL_ENV = "LABEL_STUDIO_URL"
KEY_ENV = "LABEL_STUDIO_API_KEY"
DEFAULT_TIMEOUT = 60.0

log = logging.getLogger("audit.sync")


class LabelStudioError(AuditError):
    """Label Studio could not be reached or refused a request."""


@dataclass(frozen=True)
class LabelStudioAuth:
    """Where the server is and the token to use.  ``repr`` hides the token."""

    url: str
    api_key: str = field(repr=False)

    def __repr__(self) -> str:  # never show the token, even in tracebacks
        return f"LabelStudioAuth(url={self.url!r}, api_key=<hidden>)"


def resolve_auth(url: str | None = None, api_key: str | None = None) -> LabelStudioAuth:
    """Flags first, then ``$LABEL_STUDIO_URL`` / ``$LABEL_STUDIO_API_KEY``.

    >>> resolve_auth("http://127.0.0.1:8080/", "t0k")
    LabelStudioAuth(url='http://127.0.0.1:8080', api_key=<hidden>)
    """
    url = (url or os.environ.get(URL_ENV) or "").strip()
    api_key = (api_key or os.environ.get(KEY_ENV) or "").strip()
    if not url:
        raise LabelStudioError(f"no Label Studio URL: pass --url or set {URL_ENV}")
    if not url.startswith(("http://", "https://")):
        raise LabelStudioError(f"the Label Studio URL must start with http:// or https:// (got {url!r})")
    if not api_key:
        raise LabelStudioError(f"no Label Studio API token: set {KEY_ENV} (or pass --api-key)")
    return LabelStudioAuth(url=url.rstrip("/"), api_key=api_key)


def make_client(auth: LabelStudioAuth, *, timeout: float = DEFAULT_TIMEOUT) -> LabelStudioClient:
    """A REST client (no automatic retries: a failure is reported at once)."""
    from audit.sync._rest import LabelStudioClient

    return LabelStudioClient(auth.url, auth.api_key, timeout=timeout)


def _detail(body) -> str:
    if isinstance(body, dict):
        for key in ("detail", "validation_errors", "message", "error"):
            if key in body:
                return json.dumps(body[key], ensure_ascii=False)[:300]
        return json.dumps(body, ensure_ascii=False)[:300]
    return str(body)[:300] if body else ""


@contextmanager
def ls_errors(auth: LabelStudioAuth, doing: str) -> Iterator[None]:
    """Turn HTTP exceptions raised inside the block into one clear
    :class:`LabelStudioError` line naming the URL (never the token: every
    message, including a server body that echoes the request's headers back,
    goes through :func:`audit._util.redact.redact` with the token as a secret)."""
    try:
        yield
    except LabelStudioError:
        raise
    except Exception as exc:
        msg = _message(exc, auth, doing)
        if msg is None:
            raise
        raise LabelStudioError(redact(msg, [auth.api_key]) or "") from None


def _message(exc: Exception, auth: LabelStudioAuth, doing: str) -> str | None:
    import httpx

    from audit.sync._rest import ApiError

    if isinstance(exc, ApiError):
        code = exc.status_code
        if code in (401, 403):
            return (f"Label Studio at {auth.url} rejected the API token (HTTP {code}) while {doing}; "
                    f"check {KEY_ENV} (a legacy token needs legacy tokens enabled on the server)")
        if code is not None and 200 <= code < 300:   # an answer that is not the JSON Label Studio sends
            return f"the server at {auth.url} did not answer like Label Studio while {doing} (is the URL right?)"
        if code == 404:
            return f"Label Studio at {auth.url}: not found (HTTP 404) while {doing}"
        return f"Label Studio at {auth.url} answered HTTP {code} while {doing}: {_detail(exc.body)}"
    if isinstance(exc, httpx.TimeoutException):
        return f"Label Studio at {auth.url} did not answer in time while {doing}"
    if isinstance(exc, httpx.HTTPError):
        return f"cannot reach Label Studio at {auth.url} ({type(exc).__name__}: {str(exc)[:160]})"
    if isinstance(
        exc, (ValueError, KeyError, AttributeError)
    ):  # JSON of another shape: something else answers at that URL
        return f"the server at {auth.url} did not answer like Label Studio while {doing} (is the URL right?)"
    return None


@dataclass(frozen=True)
class Session:
    """An authenticated client plus who we are on the server."""

    auth: LabelStudioAuth
    client: "LabelStudioClient"
    user_id: int
    email: str

    @property
    def url(self) -> str:
        return self.auth.url


def open_session(url: str | None = None, api_key: str | None = None, *, timeout: float = DEFAULT_TIMEOUT) -> Session:
    """Resolve the credentials, build the client and check them with one
    ``whoami`` request (so a wrong token or a down server fails here, before
    anything is written)."""
    auth = resolve_auth(url, api_key)
    with ls_errors(auth, "checking the connection"):
        client = make_client(auth, timeout=timeout)   # an expired access token is refused here
        me = client.users.whoami()
    log.info("connected to Label Studio at %s as user %s", auth.url, me.id)
    return Session(auth=auth, client=client, user_id=int(me.id), email=str(me.email or ""))
