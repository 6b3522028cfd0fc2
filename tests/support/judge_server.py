"""A scripted OpenAI-compatible chat server on 127.0.0.1 for judge tests and
the judge benchmark (stdlib only).  Reached through litellm's real request
path with ``model="openai/<name>"`` and ``api_base=server.base``.

Each request's prompt is matched to an item by the marker ``QID=<id>`` in
the question stem.  ``script[qid]`` is a list of behaviours, one per attempt
for that item (the last one repeats):

* ``("json", dict)``   — 200 with the dict as the reply content (JSON text)
* ``("text", str)``    — 200 with the given reply content
* ``("status", code)`` — an error status with an OpenAI-style error body
* ``("slow", seconds, behaviour)`` — sleep, then the behaviour
* ``("reason", reasoning, text)`` — 200 with ``text`` as the content and
  ``reasoning`` as the message's separate ``reasoning_content`` (as
  DeepSeek / vLLM reasoning parsers return it)
* ``("raw", body)`` — 200 with ``body`` (a dict) as the whole response
  (a misbehaving provider: ``choices: []``, ``content: null`` …)
* ``("echo", template)`` — 200 whose content is ``template`` with
  ``{auth}`` replaced by the request's Authorization header (a provider
  echoing the key back)
* ``("usage", usage, behaviour)`` — the behaviour with ``usage`` (a dict, or
  None: no usage at all) instead of the server's token counts
* ``("finish", reason, behaviour)`` — the behaviour with another ``finish_reason``

Items without a script get ``default(qid)`` (a valid "key correct" reply),
or ``default_reply(qid)`` when the server was made with one (the predict
tests answer with text); a server made with ``respond`` answers every
request with ``respond(prompt text)`` (a behaviour), so a test can play a
judge that reads the prompt (the key as shown, the options' order).  ``sent`` counts the 200 replies fully written to
the client; ``sent_qids`` lists their items in order and ``open`` holds the
requests received and not yet answered, so that :meth:`snapshot` can say,
at one instant, which replies the client had been sent and how many of its
requests were still waiting at the server (the SIGKILL tests).
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .common import migrated_if_new, run_cli  # noqa: F401  (the judge tests import run_cli from here)

QID = re.compile(r"QID=([A-Za-z0-9_.-]+)")


class JudgeServer:
    def __init__(self, *, delay: float = 0.0, prompt_tokens: int = 100, completion_tokens: int = 20,
                 default_reply=None, respond=None):
        self.script: dict[str, list] = {}
        self.default_reply = default_reply
        self.respond = respond
        self.sent = 0
        self.delay = delay
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self.requests: Counter = Counter()   # per qid
        self.total = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.sent_qids: list[str] = []
        self.open: Counter = Counter()       # per qid: requests received, reply not yet written
        self.prompts: list[str] = []
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm holds the body
            # until the client's delayed ACK (about 40 ms on Linux), a stall no real server (uvicorn, vLLM) has
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server._handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        # shutdown() waits for the serving loop's next poll: 0.5 s by default, at the end of every test
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def default(qid: str) -> tuple:
        return ("json", {"answer_key_correct": True, "correct_answer": None, "explanation": "fine", "confidence": 0.8})

    def _handle(self, h, body):
        content = "".join(m.get("content") or "" for m in body.get("messages", []))
        m = QID.search(content)
        qid = m.group(1) if m else "?"
        with self._lock:
            attempt = self.requests[qid]
            self.requests[qid] += 1
            self.total += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.open[qid] += 1
            self.prompts.append(content)
            self.auth_headers.append(h.headers.get("authorization", ""))
        answered: list = []
        try:
            steps = [self.respond(content)] if self.respond is not None else \
                self.script.get(qid) or [(self.default_reply or self.default)(qid)]
            step = steps[min(attempt, len(steps) - 1)]
            if self.delay:
                time.sleep(self.delay)
            usage: dict | None = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                                  "total_tokens": self.prompt_tokens + self.completion_tokens}
            finish = "stop"
            while step[0] in ("slow", "usage", "finish"):
                if step[0] == "slow":
                    time.sleep(step[1])
                elif step[0] == "usage":
                    usage = step[1]
                else:
                    finish = step[1]
                step = step[2]
            if step[0] == "echo":
                step = ("text", step[1].replace("{auth}", h.headers.get("authorization", "")))
            if step[0] == "raw":
                self._send(h, 200, step[1], lock=self._lock, on_sent=lambda: self._mark_sent(qid, answered))
                return
            if step[0] == "status":
                self._send(h, step[1], {"error": {"message": f"scripted {step[1]}", "type": "server_error"}})
                return
            message = {"role": "assistant"}
            if step[0] == "reason":
                message["reasoning_content"] = step[1]
                message["content"] = step[2]
            else:
                message["content"] = json.dumps(step[1]) if step[0] == "json" else step[1]
            reply = {
                "id": f"chatcmpl-{qid}-{attempt}", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", "judge"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            }
            if usage is not None:
                reply["usage"] = usage
            self._send(h, 200, reply, lock=self._lock, on_sent=lambda: self._mark_sent(qid, answered))
        finally:
            with self._lock:
                self.in_flight -= 1
                if not answered:        # an error status or a client that went away
                    self.open[qid] -= 1

    def _mark_sent(self, qid: str, answered: list) -> None:  # under the lock, with the last byte written
        self.sent += 1
        self.sent_qids.append(qid)
        self.open[qid] -= 1
        answered.append(True)

    def snapshot(self) -> tuple[list[str], int]:
        """(items whose 200 reply was fully written, requests received and
        not yet answered) at one instant."""
        with self._lock:
            return list(self.sent_qids), sum(self.open.values())

    @staticmethod
    def _send(h, status, obj, lock=None, on_sent=None):
        data = json.dumps(obj).encode()
        try:
            h.send_response(status)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(data)))
            h.end_headers()
            if lock is None:
                h.wfile.write(data)
                h.wfile.flush()
            else:       # the last byte and the count at one instant (snapshot)
                h.wfile.write(data[:-1])
                h.wfile.flush()
                with lock:
                    h.wfile.write(data[-1:])
                    h.wfile.flush()
                    on_sent()
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False  # the client gave up (timeout test)


def make_benchmark(db, name: str = "jb", n: int = 10, *, n_options: int = 4, key: str = "A",
                   explanation: str | None = None) -> list[str]:
    """Store ``n`` questions ``q000``… whose stems carry the ``QID=`` marker."""
    from audit.ingest.storing import store_questions
    from audit.store import connect, transaction
    from audit.store.records import Option, Question

    labels = "ABCDEF"[:n_options]
    qs = [Question(benchmark=name, question_id=f"q{i:03d}", stem=f"Question QID=q{i:03d}: what is {i}?",
                   options=[Option(l, f"option {l} of {i}") for l in labels], answer_key=key,
                   subject="s1" if i % 2 == 0 else "s2", explanation=explanation)
          for i in range(n)]
    migrated_if_new(db)
    with connect(db) as con, transaction(con):
        store_questions(con, name, "test", qs)
    return [q.question_id for q in qs]
