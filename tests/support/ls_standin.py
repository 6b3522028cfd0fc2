"""A small in-memory stand-in for the Label Studio REST endpoints the sync
uses, on 127.0.0.1 (stdlib only), for the fast tests of the REST client, the
connection, the bulk reads and the webhook.  It keeps projects, tasks,
annotations, users and views in dicts, answers the calls of
:mod:`audit.sync._rest`, records every request (method, path, query,
Authorization header, JSON body) and can be told to fail a path with a
status and body.

Not Label Studio: no validation of labeling configs, no permissions, no
Data Manager filtering beyond ``data.audit_benchmark`` / ``data.audit_id``
equality.  The real server's behaviour is tested with ``ls_server``.
"""
from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

from tests.support.local_http import LocalHttpServer

TOKEN = "legacy-token-0123456789abcdef"


def jwt(claims: dict) -> str:
    """An unsigned JWT with *claims* (the client only reads them)."""
    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


class LabelStudioStandIn(LocalHttpServer):
    def __init__(self, token: str = TOKEN):
        self.token = token
        self.refresh_tokens: set[str] = set()
        self.access_tokens: set[str] = set()
        self.requests: list[dict] = []
        self.failures: dict[tuple[str, str], tuple[int, object]] = {}   # (method, path) → (status, body)
        self.users = [{"id": 1, "email": "admin@example.org"}]
        self.projects: dict[int, dict] = {}
        self.tasks: dict[int, dict] = {}          # id → {"id", "project", "data", "annotations": [...]}
        self.views: list[dict] = []
        self._ids = {"project": 0, "task": 0, "annotation": 0, "view": 0}
        self._lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _do(self, method):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                stand_in._handle(self, method, raw)

            def do_GET(self):
                self._do("GET")

            def do_POST(self):
                self._do("POST")

            def do_PATCH(self):
                self._do("PATCH")

        super().__init__(Handler)

    # ---- data helpers -------------------------------------------------------------------------------------------
    def _next(self, kind: str) -> int:
        self._ids[kind] += 1
        return self._ids[kind]

    def add_project(self, title: str, label_config: str = "<View/>") -> dict:
        pid = self._next("project")
        self.projects[pid] = {"id": pid, "title": title, "label_config": label_config, "task_number": 0,
                              "total_annotations_number": 0}
        return self.projects[pid]

    def add_task(self, project: int, data: dict) -> dict:
        tid = self._next("task")
        self.tasks[tid] = {"id": tid, "project": project, "data": data, "annotations": []}
        return self.tasks[tid]

    def annotate(self, task: int, user: int, result: list, *, cancelled: bool = False,
                 updated_at: str = "2026-01-01T00:00:00.000000Z", created_at: str | None = None,
                 updated_by: int | None = None) -> dict:
        aid = self._next("annotation")
        a = {"id": aid, "completed_by": user, "updated_by": updated_by if updated_by is not None else user,
             "result": result, "was_cancelled": cancelled, "created_at": created_at or updated_at,
             "updated_at": updated_at}
        self.tasks[task]["annotations"].append(a)
        return a

    # ---- HTTP ---------------------------------------------------------------------------------------------------
    def _authorised(self, header: str) -> bool:
        if header == f"Token {self.token}":
            return True
        return header.startswith("Bearer ") and header[7:] in self.access_tokens

    def _handle(self, h, method: str, raw: bytes) -> None:
        u = urlparse(h.path)
        path, query = u.path, {k: v[0] for k, v in parse_qs(u.query).items()}
        body = json.loads(raw) if raw else None
        auth = h.headers.get("Authorization", "")
        with self._lock:
            self.requests.append({"method": method, "path": path, "query": query, "auth": auth, "json": body})
            fail = self.failures.get((method, path))
            if fail is not None:
                return self._send(h, *fail)
            if path == "/api/token/refresh/" and method == "POST":
                if (body or {}).get("refresh") not in self.refresh_tokens:
                    return self._send(h, 401, {"detail": "Token is invalid or expired"})
                access = jwt({"exp": time.time() + 300, "n": len(self.access_tokens)})
                self.access_tokens.add(access)
                return self._send(h, 200, {"access": access})
            if not self._authorised(auth):
                return self._send(h, 401, {"detail": "Invalid token."})
            return self._route(h, method, path, query, body)

    def _route(self, h, method, path, query, body):
        parts = [p for p in path.split("/") if p]
        if path == "/api/current-user/whoami":
            return self._send(h, 200, {**self.users[0], "username": "admin"})
        if path == "/api/users/" and method == "GET":
            return self._send(h, 200, self.users)
        if path == "/api/users/" and method == "POST":
            user = {"id": max(u["id"] for u in self.users) + 1, **body}
            self.users.append(user)
            return self._send(h, 201, user)
        if path == "/api/projects/" and method == "GET":
            found = [p for p in self.projects.values() if not query.get("title") or p["title"] == query["title"]]
            return self._send(h, 200, {"count": len(found), "next": None, "results": found})
        if path == "/api/projects/" and method == "POST":
            p = self.add_project(body["title"], body.get("label_config", ""))
            p.update({k: v for k, v in body.items() if k not in p})
            return self._send(h, 201, p)
        if len(parts) == 3 and parts[:2] == ["api", "projects"]:
            p = self.projects.get(int(parts[2]))
            if p is None:
                return self._send(h, 404, {"detail": "Not found."})
            if method == "PATCH":
                p.update(body)
            p["task_number"] = sum(t["project"] == p["id"] for t in self.tasks.values())
            p["total_annotations_number"] = sum(len(t["annotations"]) for t in self.tasks.values()
                                                if t["project"] == p["id"])
            return self._send(h, 200, p)
        if len(parts) == 4 and parts[:2] == ["api", "projects"] and parts[3] == "import":
            ids = [self.add_task(int(parts[2]), t["data"] if "data" in t else t)["id"] for t in body]
            return self._send(h, 201, {"task_count": len(ids), "task_ids": ids})
        if len(parts) == 4 and parts[:2] == ["api", "projects"] and parts[3] == "export":
            out = [t for t in self.tasks.values() if t["project"] == int(parts[2]) and t["annotations"]]
            return self._send(h, 200, out)
        if path == "/api/tasks/" and method == "GET":
            return self._tasks(h, query)
        if len(parts) == 3 and parts[:2] == ["api", "tasks"] and method == "PATCH":
            self.tasks[int(parts[2])]["data"] = body["data"]
            return self._send(h, 200, {k: v for k, v in self.tasks[int(parts[2])].items() if k != "annotations"})
        if path == "/api/dm/views/" and method == "GET":
            return self._send(h, 200, [v for v in self.views if v["project"] == int(query["project"])])
        if path == "/api/dm/views/" and method == "POST":
            view = {"id": self._next("view"), **body}
            self.views.append(view)
            return self._send(h, 201, view)
        return self._send(h, 404, {"detail": "Not found."})

    def _tasks(self, h, query):
        rows = [t for t in self.tasks.values() if t["project"] == int(query["project"])]
        for item in (json.loads(query["query"])["filters"]["items"] if query.get("query") else []):
            field = item["filter"].split("data.", 1)[1]
            rows = [t for t in rows if t["data"].get(field) == item["value"]]
        size, page = int(query.get("page_size", 100)), int(query.get("page", 1))
        chunk = rows[(page - 1) * size: page * size]
        if page > 1 and not chunk:
            return self._send(h, 404, {"detail": "Invalid page."})
        return self._send(h, 200, {"total": len(rows), "tasks": [
            {k: v for k, v in t.items() if k != "annotations"} for t in chunk]})

    @staticmethod
    def _send(h, status: int, body) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json" if not isinstance(body, bytes) else "text/html")
        h.send_header("Content-Length", str(len(raw)))
        h.end_headers()
        h.wfile.write(raw)
