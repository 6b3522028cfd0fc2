"""The few Label Studio REST endpoints the sync uses, over ``httpx``.

Why not ``label-studio-sdk``: the sync needs 15 endpoints, and the SDK
brings about 20 packages (OpenCV, NLTK, Faker, black, a code generator …)
that made ``pip install -e .`` take ~45 s longer on a fresh machine.  This
client speaks the same API (Label Studio 1.x, ``/api/…``) and offers the
same call shapes the sync code used with the SDK (``client.projects.get(
id=…)``), returning attribute-accessible records.

Authentication is the SDK's: a legacy API token is sent as
``Authorization: Token …``; a personal access token (a JWT refresh token)
is exchanged at ``/api/token/refresh/`` for a short-lived access token sent
as ``Bearer``, refreshed when it expires.  No retries: a failure is reported
at once (:class:`ApiError` for an HTTP status, ``httpx`` errors otherwise).
"""
from __future__ import annotations

import base64
import json
import threading
import time
from types import SimpleNamespace
from typing import Any, Generator, Iterator, List, Sequence

import httpx


class ApiError(Exception):
    """Label Studio answered with a non-2xx status (or a 2xx that is not
    the JSON it sends)."""

    def __init__(self, status_code: int | None, body: Any) -> None:
        super().__init__(f"HTTP {status_code}")
        self.status_code = status_code
        self.body = body


def record(value: Any) -> Any:
    """JSON as attribute-accessible records (``obj.id``), lists kept as
    lists, dicts under ``data`` kept as dicts (task data is free-form).

    >>> r = record({"id": 3, "data": {"a": 1}, "items": [{"x": 1}]})
    >>> (r.id, r.data["a"], r.items[0].x)
    (3, 1, 1)
    """
    if isinstance(value, list):
        return [record(v) for v in value]
    if isinstance(value, dict):
        return SimpleNamespace(**{k: (v if k == "data" else record(v)) for k, v in value.items()})
    return value


def _jwt_claims(token: str) -> dict[str, Any] | None:
    """The claims of a JWT, unverified (only to tell a personal access
    token from a legacy one and to read its expiry), or None."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


class _Auth(httpx.Auth):
    """Legacy token, or refresh token exchanged for access tokens."""

    def __init__(self, base_url: str, api_key: str, timeout: float) -> None:
        self._base_url, self._key, self._timeout = base_url, api_key, timeout
        claims = _jwt_claims(api_key)
        self._legacy = claims is None
        if claims is not None and claims.get("exp") is not None and claims["exp"] < time.time():
            raise ApiError(401, {"detail": "API key has expired. Please obtain a new refresh token."})
        self._access: str | None = None
        self._access_exp = 0.0
        self._lock = threading.Lock()

    def _access_token(self) -> str:
        with self._lock:
            if self._access is None or self._access_exp - 30 < time.time():
                r = httpx.post(f"{self._base_url}/api/token/refresh/", json={"refresh": self._key},
                               timeout=self._timeout)
                if r.status_code >= 400:
                    raise ApiError(r.status_code, _body(r))
                self._access = str(r.json()["access"])
                self._access_exp = float((_jwt_claims(self._access) or {}).get("exp") or time.time() + 60)
            return self._access

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = (f"Token {self._key}" if self._legacy
                                            else f"Bearer {self._access_token()}")
        yield request


def _body(r: httpx.Response) -> Any:
    try:
        return r.json()
    except ValueError:
        return r.text[:2000]


class _Resource:
    def __init__(self, http: "LabelStudioClient") -> None:
        self._http = http


class _Users(_Resource):
    def whoami(self) -> Any:
        got = self._http.call("GET", "api/current-user/whoami")
        if not isinstance(got, dict) or "id" not in got:   # some other JSON service answers there
            raise ApiError(200, got)
        return record(got)

    def list(self) -> List[Any]:
        got = self._http.call("GET", "api/users/")
        return record(got["results"] if isinstance(got, dict) and "results" in got else got)

    def create(self, **fields: Any) -> Any:
        return record(self._http.call("POST", "api/users/", json=fields))


class _Exports(_Resource):
    def download_sync(self, *, id: int, export_type: str = "JSON", download_all_tasks: bool = False) -> Iterator[bytes]:
        yield self._http.call("GET", f"api/projects/{int(id)}/export", raw=True,
                              params={"export_type": export_type, "download_all_tasks": download_all_tasks})


class _Projects(_Resource):
    def __init__(self, http: "LabelStudioClient") -> None:
        super().__init__(http)
        self.exports = _Exports(http)

    def get(self, *, id: int) -> Any:
        return record(self._http.call("GET", f"api/projects/{int(id)}/"))

    def update(self, *, id: int, **fields: Any) -> Any:
        return record(self._http.call("PATCH", f"api/projects/{int(id)}/", json=fields))

    def create(self, **fields: Any) -> Any:
        return record(self._http.call("POST", "api/projects/", json=fields))

    def list(self, *, title: str | None = None, page_size: int = 100) -> Iterator[Any]:
        page = 1
        while True:
            got = self._http.call("GET", "api/projects/", params={"title": title, "page": page, "page_size": page_size})
            yield from record(got.get("results") or [])
            if not got.get("next"):
                return
            page += 1

    def import_tasks(self, id: int, *, request: Sequence[dict[str, Any]], return_task_ids: bool = True) -> Any:
        return record(self._http.call("POST", f"api/projects/{int(id)}/import", json=list(request),
                                      params={"return_task_ids": return_task_ids}))


class _Tasks(_Resource):
    def list(self, *, project: int, fields: str = "task_only", page_size: int = 100,
             query: str | None = None) -> Iterator[Any]:
        page, seen = 1, 0
        while True:
            try:
                got = self._http.call("GET", "api/tasks/", params={
                    "project": project, "fields": fields, "page": page, "page_size": page_size, "query": query})
            except ApiError as exc:
                if exc.status_code == 404 and page > 1:   # past the last page
                    return
                raise
            tasks = got.get("tasks") or []
            yield from record(tasks)
            seen += len(tasks)
            total = got.get("total")
            if not tasks or (total is not None and seen >= int(total)):
                return
            page += 1

    def update(self, *, id: int | str, data: dict[str, Any]) -> Any:
        return record(self._http.call("PATCH", f"api/tasks/{int(id)}/", json={"data": data}))


class _Annotations(_Resource):
    def create(self, *, id: int, **fields: Any) -> Any:
        return record(self._http.call("POST", f"api/tasks/{int(id)}/annotations/", json=fields))

    def update(self, *, id: int, **fields: Any) -> Any:
        return record(self._http.call("PATCH", f"api/annotations/{int(id)}/", json=fields))


class _Views(_Resource):
    def list(self, *, project: int) -> List[Any]:
        return record(self._http.call("GET", "api/dm/views/", params={"project": project}))

    def create(self, *, project: int, data: dict[str, Any]) -> Any:
        return record(self._http.call("POST", "api/dm/views/", json={"project": project, "data": data}))


class LabelStudioClient:
    """``LabelStudioClient(url, api_key)``: ``.users``, ``.projects`` (with
    ``.exports``), ``.tasks``, ``.annotations``, ``.views``."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(base_url=self.base_url + "/", timeout=timeout, follow_redirects=True,
                                  auth=_Auth(self.base_url, api_key, timeout),
                                  headers={"User-Agent": "answer-key-audit"})
        self.users = _Users(self)
        self.projects = _Projects(self)
        self.tasks = _Tasks(self)
        self.annotations = _Annotations(self)
        self.views = _Views(self)

    def __repr__(self) -> str:   # never the token
        return f"LabelStudioClient({self.base_url!r})"

    def call(self, method: str, path: str, *, params: dict[str, Any] | None = None, json: Any = None,
             raw: bool = False) -> Any:
        """One request; the decoded JSON (or the bytes with ``raw``).
        Raises :class:`ApiError` for a non-2xx status or a body that is not JSON."""
        params = {k: (str(v).lower() if isinstance(v, bool) else v)
                  for k, v in (params or {}).items() if v is not None}
        r = self._http.request(method, path, params=params, json=json)
        if not 200 <= r.status_code < 300:
            raise ApiError(r.status_code, _body(r))
        if raw:
            return r.content
        try:
            return r.json()
        except ValueError:
            raise ApiError(r.status_code, r.text[:300]) from None

    def close(self) -> None:
        self._http.close()
