"""A small stand-in for the Hugging Face Hub's HTTP API on 127.0.0.1 (stdlib
only), for the publish tests: ``huggingface_hub`` is pointed at it with
``HF_ENDPOINT``.  It answers what a dataset push needs — create a
repository, list its refs, the pre-upload check (every file "regular", so
contents come inline in the commit), the commit, a tag — and records every
call (method, path, the Authorization header) and every file received.

Not a Hub: no LFS, no permissions, one branch.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler

from tests.support.local_http import LocalHttpServer


class HubStandIn(LocalHttpServer):
    def __init__(self):
        self.calls: list[tuple[str, str]] = []
        self.auth: list[str] = []
        self.repos: dict[str, dict] = {}      # repo → {"commits": [...], "tags": {name: oid}, "files": {path: bytes}}
        self.bodies: list[bytes] = []
        self.cards: list[str] = []            # the card texts sent to /api/validate-yaml
        self._lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _body(self) -> bytes:
                n = int(self.headers.get("content-length") or 0)
                return self.rfile.read(n) if n else b""

            def do_GET(self):
                hub._handle(self, "GET", b"")

            def do_HEAD(self):
                hub._handle(self, "HEAD", b"")

            def do_POST(self):
                hub._handle(self, "POST", self._body())

            def do_PUT(self):
                hub._handle(self, "PUT", self._body())

        super().__init__(Handler)
        self.endpoint = self.url

    # ------------------------------------------------------------------ API

    def _send(self, h, status: int, obj=None, headers: dict | None = None) -> None:
        data = b"" if obj is None else json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(data)

    def _handle(self, h, method: str, body: bytes) -> None:
        path = h.path.split("?", 1)[0]
        with self._lock:
            self.calls.append((method, path))
            self.auth.append(h.headers.get("authorization", ""))
            self.bodies.append(body)
        m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)(/.*)?", path)
        if method == "POST" and path == "/api/repos/create":
            req = json.loads(body or b"{}")
            repo = f"{req.get('organization') or 'user'}/{req['name']}" if "/" not in req["name"] else req["name"]
            with self._lock:
                existed = repo in self.repos
                self.repos.setdefault(repo, {"commits": [], "tags": {}, "files": {}})
            if existed:
                return self._send(h, 409, {"error": "You already created this dataset repo",
                                           "url": f"{self.endpoint}/datasets/{repo}"})
            return self._send(h, 200, {"url": f"{self.endpoint}/datasets/{repo}", "name": repo})
        if method == "POST" and path == "/api/validate-yaml":
            # the card's metadata must be a YAML mapping (the Hub checks much more)
            import yaml

            text = json.loads(body or b"{}").get("content", "")
            meta = text.split("---", 2)[1] if text.startswith("---") else ""
            ok = isinstance(yaml.safe_load(meta), dict)
            with self._lock:
                self.cards.append(text)
            return self._send(h, 200 if ok else 400, {"errors": [] if ok else [{"message": "bad metadata"}]})
        if m is None:
            return self._send(h, 404, {"error": "not found"})
        repo, rest = m.group(1), m.group(2) or ""
        state = self.repos.get(repo)
        if state is None:
            return self._send(h, 404, {"error": "Repository not found"}, {"x-error-code": "RepoNotFound"})
        if method == "GET" and rest == "/refs":
            head = state["commits"][-1]["oid"] if state["commits"] else "0" * 40
            return self._send(h, 200, {
                "branches": [{"name": "main", "ref": "refs/heads/main", "targetCommit": head}],
                "tags": [{"name": t, "ref": f"refs/tags/{t}", "targetCommit": o} for t, o in state["tags"].items()],
                "converts": []})
        if method == "POST" and rest.startswith("/preupload/"):
            req = json.loads(body or b"{}")
            return self._send(h, 200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                                 for f in req.get("files", [])]})
        if method == "POST" and rest.startswith("/commit/"):
            files, summary = {}, ""
            for line in body.decode("utf-8").splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                if item["key"] == "header":
                    summary = item["value"].get("summary", "")
                elif item["key"] == "file":
                    v = item["value"]
                    files[v["path"]] = base64.b64decode(v["content"]) if v.get("encoding") == "base64" else \
                        v["content"].encode()
            oid = hashlib.sha1(json.dumps(sorted((p, hashlib.sha256(b).hexdigest()) for p, b in files.items())
                                          + [summary, len(state["commits"])]).encode()).hexdigest()
            with self._lock:
                state["commits"].append({"oid": oid, "summary": summary, "files": sorted(files)})
                state["files"].update(files)
            return self._send(h, 200, {"commitUrl": f"{self.endpoint}/datasets/{repo}/commit/{oid}",
                                       "commitOid": oid, "pullRequestUrl": None})
        if method == "POST" and rest.startswith("/tag/"):
            req = json.loads(body or b"{}")
            revision = rest[len("/tag/"):]
            if req["tag"] in state["tags"]:
                return self._send(h, 409, {"error": f"Tag {req['tag']} already exists"})
            with self._lock:
                state["tags"][req["tag"]] = revision
            return self._send(h, 200, {})
        if method in ("GET", "HEAD") and (rest == "" or rest.startswith("/revision/")):
            head = state["commits"][-1]["oid"] if state["commits"] else "0" * 40
            return self._send(h, 200, {"id": repo, "sha": head, "siblings": [{"rfilename": p} for p in state["files"]],
                                       "private": False})
        return self._send(h, 404, {"error": f"the stand-in does not serve {method} {path}"})
