"""Optional webhook receiver: Label Studio calls it when an annotation is
created, updated or deleted, and it runs a pull.

It listens on a loopback address only (127.0.0.1 by default, port
configurable).  Label Studio settings (project → Settings → Webhooks → Add
Webhook):

* URL ``http://127.0.0.1:<port>/label-studio`` (the path is free);
* "Send payload" on; events *Annotation created*, *Annotation updated*,
  *Annotations deleted* (others are acknowledged and ignored);
* optionally a header ``X-Audit-Webhook-Secret: <secret>`` matching
  ``--secret`` / ``$AUDIT_WEBHOOK_SECRET``;
* a server on the same machine must run with
  ``SSRF_PROTECTION_ENABLED=false``, otherwise Label Studio refuses to call
  127.0.0.1.

Pulls run one at a time in a worker thread; events arriving during a pull
coalesce into one more pull.  The Label Studio token comes from the
environment like every other command and is never logged.
"""
from __future__ import annotations

import hmac
import json
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from audit.errors import AuditError
from audit.store import DbPath, connect
from audit.sync._client import open_session
from audit.sync._pull import pull_project
from audit.sync._state import find_project

log = logging.getLogger("audit.sync")
PULL_EVENTS = {"ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_CREATED", "ANNOTATIONS_DELETED",
               "ANNOTATION_DELETED", "TASKS_DELETED"}
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
SECRET_ENV = "AUDIT_WEBHOOK_SECRET"
SECRET_HEADER = "X-Audit-Webhook-Secret"


class WebhookReceiver:
    """The receiver: ``start()`` serves in a thread, ``stop()`` shuts it down.
    ``pulls`` counts completed pulls, ``errors`` keeps the last error lines."""

    def __init__(
        self,
        *,
        port: int = 8765,
        host: str = "127.0.0.1",
        url: str | None = None,
        api_key: str | None = None,
        project_id: int | None = None,
        db: DbPath = None,
        secret: str | None = None,
    ):
        if host not in LOOPBACK:
            raise AuditError(f"the webhook receiver listens on loopback only (127.0.0.1), not {host!r}")
        self.session = open_session(url, api_key)
        with connect(db, read_only=True) as con:
            self.project = find_project(con, self.session.url, project_id)
        self.db = db
        self.secret = secret if secret is not None else os.environ.get(SECRET_ENV) or None
        self.pulls = 0
        self.errors: list[str] = []
        self._wanted = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Condition()
        self._busy = False
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.port = self.httpd.server_address[1]
        self._threads: list[threading.Thread] = []

    def _handler(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt, *args):  # requests are logged by us, without headers
                log.debug("webhook %s", fmt % args)

            def _reply(self, code: int, body: dict):
                raw = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self):
                self._reply(200, {"status": "ok", "pulls": receiver.pulls})

            def do_POST(self):
                if receiver.secret is not None:
                    got = self.headers.get(SECRET_HEADER, "")
                    if not hmac.compare_digest(got, receiver.secret):
                        return self._reply(403, {"error": "bad or missing " + SECRET_HEADER})
                n = int(self.headers.get("Content-Length") or 0)
                try:
                    payload = json.loads(self.rfile.read(n) or b"{}")
                except ValueError:
                    return self._reply(400, {"error": "the body is not JSON"})
                action = str(payload.get("action", ""))
                project = (payload.get("project") or {}).get("id")
                if action in PULL_EVENTS and project in (None, receiver.project.project_id):
                    receiver.request_pull()
                    return self._reply(200, {"status": "pull scheduled", "action": action})
                return self._reply(200, {"status": "ignored", "action": action})

        return Handler

    def request_pull(self) -> None:
        with self._idle:
            self._busy = True
        self._wanted.set()

    def _worker(self) -> None:
        while not self._stop.is_set():
            if not self._wanted.wait(0.2):
                continue
            self._wanted.clear()
            try:
                pull_project(self.session, self.project, db=self.db)
                self.pulls += 1
            except AuditError as exc:   # keep serving; the next event retries
                self.errors.append(str(exc))
                log.warning("webhook pull failed: %s", exc)
            with self._idle:
                if not self._wanted.is_set():
                    self._busy = False
                    self._idle.notify_all()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no pull is scheduled or running (for tests)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._busy, timeout)

    def start(self) -> "WebhookReceiver":
        for target in (self.httpd.serve_forever, self._worker):
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self._threads.append(t)
        log.info("webhook receiver on http://127.0.0.1:%s for project %s", self.port, self.project.project_id)
        return self

    def stop(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        for t in self._threads:
            t.join(timeout=10)


def serve_webhook(*, port: int = 8765, host: str = "127.0.0.1", url: str | None = None, api_key: str | None = None,
                  project_id: int | None = None, db: DbPath = None, secret: str | None = None) -> None:
    """Run the webhook receiver until interrupted (``audit ls webhook``)."""
    receiver = WebhookReceiver(port=port, host=host, url=url, api_key=api_key, project_id=project_id, db=db,
                               secret=secret).start()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        receiver.stop()
