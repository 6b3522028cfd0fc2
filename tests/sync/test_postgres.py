"""A crowd of reviewers on a Label Studio backed by PostgreSQL.

A REAL PostgreSQL server (Debian's ``postgresql`` package: ``initdb`` into a
temporary directory, run as the ``postgres`` user when the test runs as
root, on a free 127.0.0.1 port, removed afterwards) and ONE real Label Studio
server on it (``tests.support.label_studio_server.start_local_server(env=...)``: the
first start migrates the empty database).  Five annotators sign up in Label
Studio with their own password and token; the project asks for two
annotations per task (``maximum_annotations=2``), and each annotator takes
tasks from Label Studio's own queue (``/api/projects/<id>/next/``) and
annotates them as themselves.  The workbench pushes the tasks, pulls the
verdicts (each attributed to the workbench account named by the annotator's
e-mail), stays append-only and idempotent, refuses a newcomer without an
account until an admin makes one, and pushes a lead's adjudication back.
What the database holds is checked in PostgreSQL directly (``psql``), not
only through Label Studio's API.

Skips with a message when the PostgreSQL binaries (``.ci/install-postgres``)
or the Label Studio server (``.ci/install-label-studio``) are not installed.
"""
from __future__ import annotations

import os
import pwd
import random
import shutil
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx
import pytest

import audit
from audit.sync._config import verdict_result
from tests.conftest import db_snapshot
from tests.support.label_studio_server import (
    BIN_ENV,
    DEFAULT_BIN,
    free_port,
    server_binary,
    start_local_server,
    template_dir,
)
from tests.sync.test_roundtrip import _q, make_benchmark

pytestmark = [pytest.mark.label_studio, pytest.mark.postgres, pytest.mark.slow]

PG_USER = "audit_ls"
PG_DB = "labelstudio"
ANNOTATORS = ["pema", "tenzin", "aygul", "saule", "bat"]
PASSWORD = "crowd-pass-2024"     # workbench and Label Studio test accounts (throw-away servers)
OVERLAP = 2                      # annotations per task, in Label Studio and in the workbench
N_ITEMS = 24
# docs/how-to/label-studio-postgres.md, "Backups": every id sequence a million ahead after a restore
BUMP_SEQUENCES = """SELECT count(*) FROM (
    SELECT setval(format('%I.%I', schemaname, sequencename), coalesce(last_value, 0) + 1000000)
    FROM pg_sequences WHERE schemaname = 'public') s"""


def pg_bindir() -> Path | None:
    """The newest /usr/lib/postgresql/<major>/bin holding initdb (Debian's
    layout), or the directory of an ``initdb`` on the PATH."""
    found = sorted((p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/initdb")),
                   key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0)
    if found:
        return found[-1]
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


class Postgres:
    """A throw-away PostgreSQL cluster on 127.0.0.1 (password auth over TCP)."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="audit-pg-"))
        self.data = self.root / "data"
        self.password = uuid.uuid4().hex
        self.port = free_port()
        if self.as_root:   # initdb and postgres refuse to run as root
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self.as_root:
            os.chown(pwfile, pw.pw_uid, pw.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", PG_USER, f"--pwfile={pwfile}", "-E", "UTF8",
                  "--locale=C.UTF-8", "--auth-host=scram-sha-256", "--auth-local=peer")
        pwfile.unlink()
        # fsync off: a throw-away test cluster (never in production, see the how-to)
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "postgres.log"), "-w", "-t", "60",
                  "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        self.psql("CREATE DATABASE " + PG_DB, db="postgres")

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.root)
        assert r.returncode == 0, f"{tool} failed: {r.stdout[-1500:]}{r.stderr[-1500:]}"

    def client(self, tool: str, *args: str) -> subprocess.CompletedProcess:
        """A client tool (psql, pg_dump, pg_restore) over TCP with the password."""
        return subprocess.run([str(self.bindir / tool), "-h", "127.0.0.1", "-p", str(self.port), "-U", PG_USER, *args],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PGPASSWORD": self.password})

    def psql(self, sql: str, db: str = PG_DB) -> list[list[str]]:
        """Rows of one statement as lists of strings."""
        r = self.client("psql", "-d", db, "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql)
        assert r.returncode == 0, r.stderr
        return [line.split("\t") for line in r.stdout.splitlines() if line]

    def major(self) -> str:
        out = subprocess.run([str(self.bindir / "postgres"), "--version"], capture_output=True, text=True).stdout
        return out.split()[-1].split(".")[0]

    def env(self) -> dict:
        """What Label Studio reads to use this database."""
        return {"DJANGO_DB": "default", "POSTGRE_NAME": PG_DB, "POSTGRE_USER": PG_USER,
                "POSTGRE_PASSWORD": self.password, "POSTGRE_HOST": "127.0.0.1", "POSTGRE_PORT": str(self.port)}

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def crowd_server(tmp_path_factory):
    """(Postgres, LocalServer, timings) — one PostgreSQL and one Label Studio for the module."""
    bindir = pg_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; run .ci/install-postgres)")
    if server_binary() is None:
        pytest.skip(f"the Label Studio server is not installed ({DEFAULT_BIN}; run .ci/install-label-studio "
                    f"or set {BIN_ENV})")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root needs a 'postgres' user to run the PostgreSQL server")
    t0 = time.monotonic()
    pg = Postgres(bindir)
    t1 = time.monotonic()
    try:
        # Like the SQLite template of start_local_server: the first start migrates the empty
        # database (about a minute) and its dump is kept next to the server install; later
        # starts restore it (seconds).  AUDIT_LS_PG_MIGRATE=1 migrates afresh anyway.
        template = template_dir(server_binary()).with_name(f"audit-template-postgres{pg.major()}.dump")
        restored = (template.is_file() and os.environ.get("AUDIT_LS_PG_MIGRATE") != "1"
                    and pg.client("pg_restore", "-d", PG_DB, "--no-owner", str(template)).returncode == 0)
        if not restored and template.is_file():   # a half-restored database: start from an empty one
            pg.psql(f"DROP DATABASE {PG_DB}", db="postgres")
            pg.psql(f"CREATE DATABASE {PG_DB}", db="postgres")
        t2 = time.monotonic()
        server = start_local_server(tmp_path_factory.mktemp("ls-postgres"), timeout=600,
                                    env={**pg.env(), "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true"})
        t3 = time.monotonic()
        if not restored:
            tmp = template.with_name(template.name + f".tmp{os.getpid()}")
            if pg.client("pg_dump", "-Fc", "-f", str(tmp), PG_DB).returncode == 0:
                tmp.replace(template)
            else:   # e.g. a read-only install: later runs migrate again, nothing else changes
                tmp.unlink(missing_ok=True)
        try:
            yield pg, server, {"postgres_start_s": t1 - t0, "restore_s": t2 - t1, "label_studio_start_s": t3 - t2,
                               "migrated": not restored}
        finally:
            server.stop()
    finally:
        pg.stop()
    assert not pg.root.exists()


def signup(url: str, invite: str, email: str, password: str) -> str:
    """Sign up in Label Studio as a crowd member would (the web form at the
    invite link), and return the account's own API token."""
    with httpx.Client(base_url=url, timeout=60) as c:
        c.get(invite).raise_for_status()
        r = c.post(invite, data={"email": email, "password": password, "csrfmiddlewaretoken": c.cookies["csrftoken"]},
                   headers={"Referer": url + invite})
        assert r.status_code == 302, (r.status_code, r.text[-500:])
        r = c.get("/api/current-user/token")
        r.raise_for_status()
        return r.json()["token"]


def as_user(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Token {token}"}, timeout=60)


def test_crowd_on_postgres(crowd_server, db_path, monkeypatch):
    pg, server, timings = crowd_server
    url = server.url
    t_test = time.monotonic()
    # Label Studio really runs on PostgreSQL: its tables are there, no SQLite file.
    assert not (server.data_dir / "label_studio.sqlite3").exists()
    assert pg.psql("SELECT count(*) FROM htx_user")[0][0] == "1"   # the admin of start_local_server

    # The workbench: the benchmark, an admin, a lead, and an account per annotator (named by e-mail).
    make_benchmark(db_path, N_ITEMS, benchmark="crowd", seed=24)
    audit.accounts.add_account("Dolma", PASSWORD, db=db_path)                          # first account: admin
    audit.accounts.add_account("Karma", PASSWORD, role="lead", actor="Dolma", db=db_path)
    emails = {n: f"{n}-{uuid.uuid4().hex[:6]}@crowd.example.org" for n in ANNOTATORS + ["newcomer"]}
    for n in ANNOTATORS:
        audit.accounts.add_account(emails[n], PASSWORD, actor="Dolma", db=db_path)
    audit.review.set_required_reviews(flagged=OVERLAP, other=OVERLAP, actor="Dolma", db=db_path)

    # Push: the admin connects a project (an admin's act) and pushes every item; LS overlap = 2.
    monkeypatch.setenv("LABEL_STUDIO_URL", url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", server.token)
    proj = audit.sync.ls_connect(title="crowd on postgres", benchmark="crowd", actor="Dolma", db=db_path)
    admin = as_user(url, server.token)
    admin.patch(f"/api/projects/{proj.project_id}/",
                json={"maximum_annotations": OVERLAP, "overlap_cohort_percentage": 100}).raise_for_status()
    s = audit.sync.ls_push("crowd", tiers=None, db=db_path)
    assert (s.selected, s.created) == (N_ITEMS, N_ITEMS)
    assert pg.psql(f"SELECT count(*) FROM task WHERE project_id = {proj.project_id}")[0][0] == str(N_ITEMS)

    # The crowd: each annotator signs up at the invite link, and takes tasks from Label Studio's queue in turn.
    invite = admin.get("/api/invite").json()["invite_url"]
    with httpx.Client(base_url=url, timeout=60) as c:       # no sign-up without the link
        c.get("/user/signup/")
        assert c.post("/user/signup/", data={"email": "intruder@example.org", "password": PASSWORD,
                                             "csrfmiddlewaretoken": c.cookies["csrftoken"]},
                      headers={"Referer": url + "/user/signup/"}).status_code == 403
    tokens = {n: signup(url, invite, emails[n], PASSWORD) for n in ANNOTATORS + ["newcomer"]}
    assert len(set(tokens.values())) == len(tokens) and server.token not in tokens.values()
    with audit.store.connect(db_path, read_only=True) as con:
        items = {q: (k, [o["label"] for o in opts]) for q, k, opts in con.execute(
            "SELECT question_id, answer_key, options FROM questions WHERE benchmark = 'crowd'").fetchall()}
    rng = random.Random(24)
    expected: dict[tuple[str, str], tuple] = {}     # (question, reviewer) → verdict, answer
    clients = {n: as_user(url, tokens[n]) for n in ANNOTATORS + ["newcomer"]}
    active = list(ANNOTATORS)
    while active:
        for n in list(active):
            r = clients[n].get(f"/api/projects/{proj.project_id}/next/")
            if r.status_code == 404:      # nothing left for this annotator
                active.remove(n)
                continue
            r.raise_for_status()
            task = r.json()
            qid = task["data"]["question_id"]
            key, labels = items[qid]
            verdict = rng.choice(["key_correct", "key_wrong"])
            answer = rng.choice([lb for lb in labels if lb != key]) if verdict == "key_wrong" else None
            a = clients[n].post(f"/api/tasks/{task['id']}/annotations/",
                                json={"result": verdict_result(verdict, answer, rationale=f"{n} on {qid}"),
                                      "lead_time": 3.0})
            a.raise_for_status()
            expected[(qid, emails[n])] = (verdict, answer)
    per_task = Counter(q for q, _ in expected)
    assert len(per_task) == N_ITEMS and set(per_task.values()) == {OVERLAP}, per_task
    per_user = Counter(e for _, e in expected)
    assert len(per_user) >= 3, per_user       # the queue spread the work across the crowd

    # A newcomer without a workbench account annotates one task directly.
    newcomer_task = pg.psql(f"SELECT min(id) FROM task WHERE project_id = {proj.project_id}")[0][0]
    nq = clients["newcomer"].get(f"/api/tasks/{newcomer_task}/").json()["data"]["question_id"]
    na = clients["newcomer"].post(f"/api/tasks/{newcomer_task}/annotations/",
                                  json={"result": verdict_result("key_correct", rationale="new here")})
    na.raise_for_status()

    # Pull: every verdict lands, attributed to the account named by the annotator's e-mail.
    t_pull = time.monotonic()
    p = audit.sync.ls_pull(db=db_path)
    pull_s = time.monotonic() - t_pull
    assert (p.reviews_added, p.rejected, p.conflicts) == (N_ITEMS * OVERLAP, 1, 0)
    got = audit.review.list_reviews("crowd", db=db_path)
    assert set(got["source"]) == {"label_studio"}
    assert {(r.question_id, r.reviewer): (r.verdict, None if r.corrected_answer is None or r.corrected_answer
            != r.corrected_answer else r.corrected_answer) for r in got.itertuples()} == expected
    # ... the same counts as PostgreSQL holds, per annotator (an independent look at the server's data)
    in_pg = {e: int(c) for e, c in pg.psql(
        "SELECT u.email, count(*) FROM task_completion a JOIN htx_user u ON u.id = a.completed_by_id "
        f"WHERE a.project_id = {proj.project_id} GROUP BY u.email")}
    assert in_pg == {**dict(Counter(got["reviewer"])), emails["newcomer"]: 1}
    rejected = audit.sync.ls_rejected(db=db_path)
    assert len(rejected) == 1 and "has no enabled account" in rejected["reason"].iloc[0]

    # Idempotent: a second sync adds nothing, pushes nothing back, changes no review.
    before = db_snapshot(db_path)["reviews"]
    s2 = audit.sync.ls_sync(db=db_path)
    assert (s2.pull.reviews_added, s2.push.created, s2.push.annotations_created,
            s2.push.annotations_updated) == (0, 0, 0, 0)
    assert db_snapshot(db_path)["reviews"] == before

    # The admin makes the newcomer's account; the newcomer's next edit is taken.
    audit.accounts.add_account(emails["newcomer"], PASSWORD, actor="Dolma", db=db_path)
    clients["newcomer"].patch(f"/api/annotations/{na.json()['id']}/",
                              json={"result": verdict_result("key_correct", rationale="new here, now counted")}
                              ).raise_for_status()
    p3 = audit.sync.ls_pull(db=db_path)
    assert (p3.reviews_added, p3.rejected) == (1, 0)
    assert list(audit.review.list_reviews("crowd", nq, db=db_path)["reviewer"]).count(emails["newcomer"]) == 1

    # Append-only: an annotator changes their mind in Label Studio → a new row, the old one kept.
    (q0, e0), (v0, _) = next(iter(expected.items()))
    n0 = next(n for n in ANNOTATORS if emails[n] == e0)
    aid = int(pg.psql(f"SELECT a.id FROM task_completion a JOIN task t ON t.id = a.task_id JOIN htx_user u "
                      f"ON u.id = a.completed_by_id WHERE a.project_id = {proj.project_id} AND u.email = '{e0}' "
                      f"AND t.data->>'question_id' = '{q0}'")[0][0])
    v1 = "ambiguous" if v0 != "ambiguous" else "defective"
    clients[n0].patch(f"/api/annotations/{aid}/", json={"result": verdict_result(v1, rationale="on reflection")}
                      ).raise_for_status()
    assert audit.sync.ls_pull(db=db_path).reviews_added == 1
    hist = audit.review.list_reviews("crowd", q0, db=db_path)
    assert list(hist.loc[hist["reviewer"] == e0, "verdict"]) == [v0, v1]
    assert [r for (r,) in _q(db_path, "SELECT is_revision FROM reviews WHERE question_id = ? AND reviewer = ? "
                             "ORDER BY review_id", [q0, e0])] == [False, True]

    # Disagreements are disputed in the workbench; the lead adjudicates there, and the
    # adjudication goes back to Label Studio as the lead's annotation — once.
    status = audit.review.review_status("crowd", db=db_path).set_index("question_id")
    disputed = sorted(status.index[status["status"] == "disputed"])
    split = sorted({q for q in per_task if len({expected[(q, e)][0] for (qq, e) in expected if qq == q}) > 1})
    assert disputed and set(disputed) >= set(split) - {q0, nq}
    dq = next(q for q in disputed if q not in (q0, nq))
    audit.add_review("crowd", dq, "Karma", "key_correct", rationale="lead decides", is_adjudication=True,
                     source="workbench", db=db_path)
    assert audit.review.review_status("crowd", db=db_path).set_index("question_id").loc[dq, "status"] == "done"
    s4 = audit.sync.ls_sync(db=db_path)
    assert (s4.push.annotations_created, s4.pull.reviews_added) == (1, 0)
    lead_rows = pg.psql(f"SELECT u.email FROM task_completion a JOIN task t ON t.id = a.task_id JOIN htx_user u "
                        f"ON u.id = a.completed_by_id WHERE t.data->>'question_id' = '{dq}' "
                        f"AND a.project_id = {proj.project_id}")
    assert sorted(e for (e,) in lead_rows if not e.endswith("@crowd.example.org")) == ["karma@reviewers.audit.invalid"]
    s5 = audit.sync.ls_sync(db=db_path)
    assert (s5.push.annotations_created, s5.push.annotations_updated, s5.pull.reviews_added) == (0, 0, 0)
    total = N_ITEMS * OVERLAP + 1 + 1 + 1    # the crowd, the newcomer, one revision, one adjudication
    assert len(audit.review.list_reviews("crowd", db=db_path)) == total

    # Backup and restore (the how-to's commands): a verdict made after the dump is gone from
    # Label Studio but stays in the workbench; with the id sequences moved ahead, a new
    # annotation never takes the id of the lost one, and is taken.
    t_restore = time.monotonic()
    dump = server.data_dir.parent / "labelstudio.dump"
    assert pg.client("pg_dump", "-Fc", "-f", str(dump), PG_DB).returncode == 0
    tq = next(q for q in sorted(per_task) if q not in (q0, nq, dq))
    x, y = [n for n in ANNOTATORS if (tq, emails[n]) not in expected][:2]
    tid = int(
        pg.psql(f"SELECT id FROM task WHERE project_id = {proj.project_id} AND data->>'question_id' = '{tq}'")[0][0]
    )
    lost = verdict_result("defective", rationale="made after the backup")
    lost_id = clients[x].post(f"/api/tasks/{tid}/annotations/", json={"result": lost}).json()["id"]
    assert audit.sync.ls_pull(db=db_path).reviews_added == 1
    server.stop()
    pg.psql(f"DROP DATABASE {PG_DB}", db="postgres")
    pg.psql(f"CREATE DATABASE {PG_DB}", db="postgres")
    assert pg.client("pg_restore", "-d", PG_DB, str(dump)).returncode == 0
    assert int(pg.psql(BUMP_SEQUENCES)[0][0]) > 10
    server = start_local_server(server.data_dir.parent / "again", port=int(url.rsplit(":", 1)[1]),
                                env={**pg.env(), "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true"})
    try:
        assert server.url == url
        s6 = audit.sync.ls_sync(db=db_path)
        assert (s6.pull.deleted, s6.pull.reviews_added, s6.push.created) == (1, 0, 0)
        assert (tq, emails[x]) in {
            (r.question_id, r.reviewer) for r in audit.review.list_reviews("crowd", db=db_path).itertuples()
        }
        again = clients[y].post(f"/api/tasks/{tid}/annotations/", json={"result": lost}).json()["id"]
        assert again > 1_000_000 > lost_id
        p7 = audit.sync.ls_pull(db=db_path)
        assert (p7.reviews_added, p7.unchanged) == (1, 0)
        last = audit.review.list_reviews("crowd", tq, db=db_path).iloc[-1]
        assert (last["reviewer"], last["verdict"]) == (emails[y], "defective")
        assert len(audit.review.list_reviews("crowd", db=db_path)) == total + 2
    finally:
        server.stop()
    restore_s = time.monotonic() - t_restore
    print(f"\nPostgreSQL start {timings['postgres_start_s']:.1f} s; template restored in {timings['restore_s']:.1f} s; "
          f"Label Studio start ({'migrating the empty database' if timings['migrated'] else 'from the template'}) "
          f"{timings['label_studio_start_s']:.1f} s; pull of {N_ITEMS * OVERLAP + 1} "
          f"annotations {pull_s:.1f} s; test body {time.monotonic() - t_test:.1f} s; tasks per annotator "
          f"{sorted(per_user.values())}, disputed {len(disputed)} of {N_ITEMS}; backup, restore and "
          f"restart {restore_s:.1f} s")
