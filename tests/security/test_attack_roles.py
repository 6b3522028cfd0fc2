"""Roles bypassed from the shell, and the lead and reviewer rules: the
attack cases on roles and verdicts, each the right result or one line,
exit 1 and the database byte-identical (:func:`tests.conftest.db_snapshot`).

Everything runs on a real DuckDB file; CLI cases run the real ``audit``
command as a subprocess with passwords on standard input."""
from __future__ import annotations

import os

import pytest

import audit
import audit.accounts as acc
from audit.accounts.sessions import SECRET_ENV
from tests.conftest import db_snapshot
from tests.support.attack import cli, fresh_copy
from tests.support.common import rows

pytestmark = pytest.mark.slow  # many real CLI subprocesses: the slow lane

PW = {"Root": "root-password", "Lhamo": "lead-password", "Pema": "pema-password", "Karma": "karma-password",
      "Dawa": "dawa-password"}


@pytest.fixture(scope="module")
def _template(tmp_path_factory):
    from audit.ingest.storing import store_questions
    from audit.store import connect
    from audit.store.records import Option, Question

    os.environ.pop("WORKBENCH_LEADS", None)
    os.environ.pop(SECRET_ENV, None)
    db = tmp_path_factory.mktemp("roles") / "t.duckdb"
    with connect(db) as con:
        store_questions(con, "b", "b", [Question("b", q, "Stem", [Option("A", "x"), Option("B", "y"),
                                                                 Option("C", "z")], "A")
                                        for q in ("q1", "q2", "q3")])
    acc.add_account("Root", PW["Root"], db=db)                       # the first account: admin
    acc.add_account("Lhamo", PW["Lhamo"], role="lead", actor="Root", db=db)
    acc.add_account("Pema", PW["Pema"], role="reviewer", actor="Root", db=db)
    acc.add_account("Karma", PW["Karma"], role="reviewer", actor="Root", db=db)
    acc.add_account("Dawa", PW["Dawa"], role="reviewer", actor="Root", db=db)
    acc.set_disabled("Dawa", actor="Root", db=db)
    return db


@pytest.fixture
def team(_template, tmp_path, monkeypatch):
    """A database with three items (key A), an admin (Root), a lead (Lhamo),
    two reviewers (Pema, Karma) and a disabled reviewer (Dawa)."""
    return fresh_copy(_template, tmp_path, monkeypatch)


def refused(r, db, before, *, says: str) -> None:
    """One line on stderr naming the problem, exit 1, the database unchanged."""
    assert r.returncode == 1, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert says in lines[0], lines[0]
    assert db_snapshot(db) == before


# ---------------------------------------------------------------- who changes who may do what

@pytest.mark.slow
def test_a_reviewer_cannot_make_himself_a_lead(team):
    before = db_snapshot(team)
    r = cli(team, "review", "leads", "--set", "Pema", "--as", "Pema", "--password-stdin", stdin=PW["Pema"] + "\n")
    refused(r, team, before, says="'Pema' is a reviewer; changing the lead reviewers is for administrators")
    r = cli(team, "review", "leads", "--set", "Pema")                  # and nobody without signing in
    refused(r, team, before, says="needs a signed-in account: --as NAME")
    with pytest.raises(audit.PermissionDeniedError):
        audit.accounts.set_leads(["Pema"], db=team)
    with pytest.raises(audit.PermissionDeniedError, match="is a lead reviewer"):
        audit.accounts.set_leads(["Pema"], actor="Lhamo", db=team)
    assert db_snapshot(team) == before
    # ... so he cannot adjudicate either
    with pytest.raises(audit.PermissionDeniedError, match="not a lead"):
        audit.review.add_review("b", "q1", "Pema", "key_correct", is_adjudication=True, db=team)
    r = cli(team, "review", "leads", "--set", "Pema", "--as", "Root", "--password-stdin", stdin=PW["Root"] + "\n")
    assert r.returncode == 0 and "lead reviewers: Pema" in r.stdout, r.stderr
    assert audit.review.add_review("b", "q1", "Pema", "key_correct", is_adjudication=True, db=team).is_adjudication


def test_leads_must_be_enabled_accounts(team):
    before = db_snapshot(team)
    for name in ("nobody-here", "Dawa"):
        with pytest.raises(audit.InputError, match="no enabled account"):
            audit.accounts.set_leads(["Lhamo", name], actor="Root", db=team)
    assert db_snapshot(team) == before


@pytest.mark.slow
def test_required_reviews_is_an_admins_setting_and_never_zero(team):
    before = db_snapshot(team)
    r = cli(team, "review", "required", "--flagged", "1", "--as", "Lhamo", "--password-stdin",
            stdin=PW["Lhamo"] + "\n")
    refused(r, team, before, says="'Lhamo' is a lead reviewer; changing the required reviews is for administrators")
    r = cli(team, "review", "required", "--flagged", "0", "--as", "Root", "--password-stdin", stdin=PW["Root"] + "\n")
    refused(r, team, before, says="must be a whole number from 1 to 20, not 0")
    with pytest.raises(audit.InputError, match="not 0"):      # --other 0 alone used to read, silently
        audit.review.settings.required_reviews(None, 0, actor="Root", db=team)
    with pytest.raises(audit.PermissionDeniedError):
        audit.review.set_required_reviews(flagged=3, db=team)
    assert db_snapshot(team) == before
    r = cli(team, "review", "required", "--flagged", "3", "--as", "Root", "--password-stdin", stdin=PW["Root"] + "\n")
    assert r.returncode == 0 and "Tier 1–2: 3" in r.stdout, r.stderr
    r = cli(team, "review", "required")                        # reading needs no one
    assert r.returncode == 0 and "Tier 1–2: 3" in r.stdout


def test_label_studio_settings_are_an_admins(team):
    before = db_snapshot(team)
    r = cli(team, "ls", "connect", "--url", "http://127.0.0.1:9", "--api-key", "x" * 40)
    refused(r, team, before, says="connecting a Label Studio project needs a signed-in administrator")
    r = cli(team, "ls", "connect", "--url", "http://127.0.0.1:9", "--api-key", "x" * 40, "--as", "Lhamo",
            "--password-stdin", stdin=PW["Lhamo"] + "\n")
    refused(r, team, before, says="is for administrators")


def test_workbench_leads_applies_only_without_accounts(team, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_LEADS", "Pema,nobody-here")
    assert (
        acc.roles.account_role("Pema", db=team) == "reviewer" and acc.roles.account_role("nobody-here", db=team) is None
    )
    before = db_snapshot(team)
    for who in ("Pema", "nobody-here"):
        with pytest.raises(audit.PermissionDeniedError):
            audit.review.add_review("b", "q1", who, "key_correct", is_adjudication=True, db=team)
    assert db_snapshot(team) == before
    assert audit.accounts.lead_reviewers(db=team).from_env == []
    # a database without accounts keeps the variable
    from audit.ingest.storing import store_questions
    from audit.store import connect
    from audit.store.records import Option, Question

    solo = tmp_path / "solo.duckdb"
    with connect(solo) as con:
        store_questions(con, "b", "b", [Question("b", "q1", "S", [Option("A", "x"), Option("B", "y")], "A")])
    assert acc.roles.account_role("Pema", db=solo) == "lead"
    audit.review.add_review("b", "q1", "Karma", "key_correct", db=solo)
    with pytest.raises(audit.PermissionDeniedError, match="not a lead"):
        audit.review.add_review("b", "q1", "Karma", "key_correct", is_adjudication=True, revision=True, db=solo)


# ---------------------------------------------------------------- recording verdicts as a signed account

@pytest.mark.slow
def test_cli_adjudication_without_the_leads_password_records_nothing(team):
    before = db_snapshot(team)
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--reviewer", "Lhamo", "--verdict", "key_wrong",
            "--answer", "B", "--adjudicate")
    refused(r, team, before, says="recording a verdict needs a signed-in account: --as NAME")
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Lhamo", "--verdict", "key_wrong",
            "--answer", "B", "--adjudicate", "--password-stdin", stdin="not-her-password\n")
    assert r.returncode == 1 and r.stderr.strip() == "error: the name or the password is not right", r.stderr
    assert rows(team, "SELECT count(*) FROM reviews") == [(0,)]
    # a reviewer signing in as himself cannot put the lead's name on a verdict
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Pema", "--reviewer", "Lhamo", "--verdict",
            "key_wrong", "--answer", "B", "--adjudicate", "--password-stdin", stdin=PW["Pema"] + "\n")
    assert r.returncode == 1 and "'Pema' is a reviewer; recording another reviewer's verdicts is for lead" in r.stderr
    assert rows(team, "SELECT count(*) FROM reviews") == [(0,)]
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Lhamo", "--verdict", "key_wrong",
            "--answer", "B", "--adjudicate", "--password-stdin", stdin=PW["Lhamo"] + "\n")
    assert r.returncode == 0 and "by Lhamo (adjudication)" in r.stdout, r.stderr


def test_names_without_an_enabled_account_are_refused(team):
    before = db_snapshot(team)
    for who, says in (("nobody-here", "no enabled account"), ("Dawa", "no enabled account")):
        with pytest.raises(audit.PermissionDeniedError, match=says):
            audit.review.add_review("b", "q1", who, "key_correct", db=team)
        with pytest.raises(audit.PermissionDeniedError, match=says):
            audit.review.add_review("b", "q1", who, "key_correct", is_adjudication=True, db=team)
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Dawa", "--verdict", "key_correct",
            "--password-stdin", stdin=PW["Dawa"] + "\n")
    assert r.returncode == 1 and "the name or the password is not right" in r.stderr
    assert {k: v for k, v in db_snapshot(team).items() if k != "login_failures"} == \
        {k: v for k, v in before.items() if k != "login_failures"}
    assert db_snapshot(team)["reviews"] == []
    # the name is matched without regard to case and stored as the account spells it
    assert audit.review.add_review("b", "q1", "  pema ", "key_correct", db=team).reviewer == "Pema"


def test_a_disabled_account_cannot_save_from_an_open_session(team):
    token = acc.issue_session("Pema", db=team)
    me = acc.verify_session(token, db=team).name         # the workbench signed Pema in
    acc.set_disabled("Pema", actor="Root", db=team)        # the admin disables her while the item is open
    before = db_snapshot(team)
    with pytest.raises(audit.PermissionDeniedError, match="'Pema' has no enabled account"):
        audit.review.add_review("b", "q1", me, "key_correct", source="workbench", db=team)  # Save
    assert db_snapshot(team) == before


@pytest.mark.slow
def test_importing_verdicts_is_a_leads_act_recorded_as_such(team, tmp_path):
    f = tmp_path / "v.csv"
    f.write_text("question_id,reviewer,verdict,corrected_answer\nq1,Pema,key_wrong,B\nq1,Karma,key_wrong,B\n")
    before = db_snapshot(team)
    r = cli(team, "review", "import", str(f), "-b", "b")
    refused(r, team, before, says="importing verdicts needs a signed-in account")
    r = cli(team, "review", "import", str(f), "-b", "b", "--as", "Pema", "--password-stdin",
            stdin=PW["Pema"] + "\n")
    refused(r, team, before, says="'Pema' is a reviewer; importing verdicts from a file is for lead reviewers")
    with pytest.raises(audit.PermissionDeniedError):
        audit.review.import_reviews(f, benchmark="b", db=team)
    bad = tmp_path / "bad.csv"      # a row naming someone without an account: all or nothing
    bad.write_text("question_id,reviewer,verdict,corrected_answer,is_adjudication\nq1,Pema,key_wrong,B,\n"
                   "q1,nobody-here,key_wrong,B,true\n")
    r = cli(team, "review", "import", str(bad), "-b", "b", "--as", "Lhamo", "--password-stdin",
            stdin=PW["Lhamo"] + "\n")
    refused(r, team, before, says="bad.csv:3: 'nobody-here' has no enabled account")
    r = cli(team, "review", "import", str(f), "-b", "b", "--as", "Lhamo", "--password-stdin",
            stdin=PW["Lhamo"] + "\n")
    assert r.returncode == 0 and "2 review(s) imported into b" in r.stdout and "by Lhamo" in r.stdout, r.stderr
    got = audit.review.list_reviews("b", db=team)
    assert got[["reviewer", "source", "recorded_by"]].values.tolist() == [
        ["Pema", "import", "Lhamo"], ["Karma", "import", "Lhamo"]]


def test_an_export_applies_only_corrections_settled_by_accounts(team, tmp_path):
    """The issue's chain: verdicts under names without accounts settled q1 and
    an export applied them.  Now those verdicts are refused, so the version
    changes nothing; with two real reviewers the correction is applied."""
    for who in ("ghost-1", "ghost-2"):
        with pytest.raises(audit.PermissionDeniedError):
            audit.review.add_review("b", "q1", who, "key_wrong", corrected_answer="B", db=team)
    assert audit.review.settled_verdicts("b", db=team).empty
    out = tmp_path / "exports"
    s = audit.create_version("b", "1.1", db=team, exports_dir=out, actor="Lhamo")
    assert s.counts["corrected"] == 0, s.counts
    for who in ("Pema", "Karma"):
        audit.review.add_review("b", "q1", who, "key_wrong", corrected_answer="B", db=team)
    s = audit.create_version("b", "1.2", db=team, exports_dir=out, actor="Lhamo")
    assert s.counts["corrected"] == 1, s.counts


# ---------------------------------------------------------------- one verdict per reviewer per item

@pytest.mark.slow
def test_a_second_verdict_needs_an_explicit_revision(team):
    audit.review.add_review("b", "q1", "Pema", "key_wrong", corrected_answer="B", db=team)
    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match="'Pema' already gave a verdict on question 'q1'"):
        audit.review.add_review("b", "q1", "Pema", "key_wrong", corrected_answer="B", db=team)  # a stale tab
    with pytest.raises(audit.InputError, match="explicit revision"):
        audit.review.add_reviews("b", [{"question_id": "q2", "reviewer": "Karma", "verdict": "key_correct"},
                                       {"question_id": "q2", "reviewer": "karma", "verdict": "ambiguous"}], db=team)
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Pema", "--verdict", "key_correct",
            "--password-stdin", stdin=PW["Pema"] + "\n")
    refused(r, team, before, says="a second one is recorded only as an explicit revision (--revise")
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Pema", "--verdict", "key_correct", "--revise",
            "--password-stdin", stdin=PW["Pema"] + "\n")
    assert r.returncode == 0 and "(revision)" in r.stdout, r.stderr
    hist = audit.review.list_reviews("b", "q1", db=team)
    assert hist[["verdict", "is_revision"]].values.tolist() == [["key_wrong", False], ["key_correct", True]]
    # a skip replaces nothing and needs no revision; other reviewers are unaffected
    assert not audit.review.add_review("b", "q1", "Pema", "skip", db=team).is_revision
    assert not audit.review.add_review("b", "q1", "Karma", "key_correct", db=team).is_revision
    view = audit.review.item_view("b", "q1", reviewer="Pema", db=team)
    assert [h.is_revision for h in view.history] == [False, True, False, False]


def test_migration_marks_earlier_revisions(tmp_path):
    """Rows stored before one-verdict-per-reviewer are marked by migration 019."""
    from audit.store import connect
    from tests.conftest import database_before

    db = tmp_path / "old.duckdb"
    con = database_before(db, 19)
    con.execute("INSERT INTO benchmarks (name, source) VALUES ('b', 'b')")
    con.executemany("INSERT INTO reviews (benchmark, question_id, reviewer, created_at, verdict, corrected_answer, "
                    "source, app_version, is_adjudication) VALUES ('b', ?, ?, now(), ?, ?, 'cli', '0', ?)",
                    [("q1", "ann", "key_wrong", "B", False), ("q1", "ann", "skip", None, False),
                     ("q1", "ann", "key_correct", None, False), ("q1", "bo", "key_correct", None, False),
                     ("q1", "lead", "key_correct", None, True), ("q1", "lead", "key_wrong", "B", True)])
    con.close()
    with connect(db) as c:   # a writing connection migrates the file
        got = c.execute("SELECT reviewer, verdict, is_revision FROM reviews ORDER BY review_id").fetchall()
    assert got == [("ann", "key_wrong", False), ("ann", "skip", False), ("ann", "key_correct", True),
                   ("bo", "key_correct", False), ("lead", "key_correct", False), ("lead", "key_wrong", True)]


# ---------------------------------------------------------------- consistent verdicts

@pytest.mark.parametrize(
    "verdict,cause,answer,says",
    [
        (
            "key_correct",
            "key_slip",
            None,
            "a cause only goes with verdict key_wrong, ambiguous, defective, not key_correct",
        ),
        ("key_correct", "translation", None, "not key_correct"),
        ("skip", "other", None, "not skip"),
        ("ambiguous", "key_slip", None, "cause key_slip (an answer-key slip) only goes with verdict key_wrong"),
        ("defective", None, "B", "a corrected answer only goes with verdict key_wrong, not defective"),
        ("key_correct", None, "B", "a corrected answer only goes with verdict key_wrong, not key_correct"),
    ],
)
def test_causes_and_answers_only_with_their_verdicts(team, verdict, cause, answer, says):
    import re

    before = db_snapshot(team)
    with pytest.raises(audit.InputError, match=re.escape(says)):
        audit.review.add_review("b", "q1", "Pema", verdict, cause=cause, corrected_answer=answer, db=team)
    assert db_snapshot(team) == before


def test_the_reviewer_who_switched_to_key_correct_keeps_no_cause_cli(team):
    before = db_snapshot(team)
    r = cli(team, "review", "add", "-b", "b", "-q", "q1", "--as", "Pema", "--verdict", "key_correct",
            "--cause", "key_slip", "--password-stdin", stdin=PW["Pema"] + "\n")
    refused(r, team, before, says="a cause only goes with verdict key_wrong, ambiguous, defective, not key_correct")
    ok = audit.review.add_review("b", "q2", "Pema", "defective", cause="translation", db=team)
    assert ok.cause == "translation"


def test_inconsistent_rows_stored_earlier_are_reported(team):
    from audit.store import connect

    audit.review.add_review("b", "q1", "Pema", "key_wrong", corrected_answer="B", cause="key_slip", db=team)
    with connect(team) as con:   # rows as older code stored them (the table's checks allow them)
        con.execute("INSERT INTO reviews (benchmark, question_id, reviewer, created_at, verdict, cause, source, "
                    "app_version) VALUES ('b', 'q2', 'Karma', now(), 'key_correct', 'key_slip', 'workbench', '0'), "
                    "('b', 'q3', 'Karma', now(), 'ambiguous', 'key_slip', 'workbench', '0'), "
                    "('b', 'q3', 'Pema', now(), 'skip', 'other', 'workbench', '0')")
    df = audit.review.record.inconsistent_reviews("b", db=team)
    assert df[["question_id", "reviewer", "verdict", "cause"]].values.tolist() == [
        ["q2", "Karma", "key_correct", "key_slip"], ["q3", "Karma", "ambiguous", "key_slip"],
        ["q3", "Pema", "skip", "other"]]
    assert df["problem"].str.contains("recorded with verdict").all()
    # an independent check: every stored row either passes add_review's rule or is listed
    from audit.review.record import _cause_problem
    allr = audit.review.list_reviews("b", db=team)
    listed = set(df["review_id"])
    for r in allr.itertuples():
        assert (_cause_problem(r.verdict, r.cause) is not None) == (r.review_id in listed)


# ---------------------------------------------------------------- further cases of our own
# Each: (what, call on the team database, expected) — expected is "ok" (the right result, checked by
# the call itself) or (error class, words of the one-line message).  The totals are in the report.

def _import(tmp_path, text, actor):
    f = tmp_path / "more.csv"
    f.write_text(text)
    return lambda db: audit.review.import_reviews(f, benchmark="b", actor=actor, db=db)


def _ok(check):
    def run(db):
        assert check(db)
    return run


ROLE_CASES = [
    ("reviewer name in another case is stored as the account spells it",
     _ok(lambda db: audit.review.add_review("b", "q1", "PEMA", "key_correct", db=db).reviewer == "Pema"), "ok"),
    ("reviewer name with a zero-width space is nobody",
     lambda db: audit.review.add_review("b", "q1", "Pe\u200bma", "key_correct", db=db),
     (audit.PermissionDeniedError, "no enabled account")),
    ("reviewer name with a Cyrillic look-alike letter is nobody",
     lambda db: audit.review.add_review("b", "q1", "Рema", "key_correct", db=db),
     (audit.PermissionDeniedError, "no enabled account")),
    ("a lead records a disabled reviewer's verdict",
     lambda db: audit.review.add_review("b", "q1", "Dawa", "key_correct", actor="Lhamo", db=db),
     (audit.PermissionDeniedError, "'Dawa' has no enabled account")),
    ("a disabled account acts for someone else",
     lambda db: audit.review.add_review("b", "q1", "Pema", "key_correct", actor="Dawa", db=db),
     (audit.PermissionDeniedError, "'Dawa' has no enabled account")),
    ("a reviewer acts for another reviewer",
     lambda db: audit.review.add_review("b", "q1", "Karma", "key_correct", actor="Pema", db=db),
     (audit.PermissionDeniedError, "recording another reviewer's verdicts is for lead")),
    ("a lead records a reviewer's verdict, kept as recorded_by",
     _ok(lambda db: audit.review.add_review("b", "q1", "Karma", "key_correct", actor="lhamo", db=db).recorded_by
         == "Lhamo"), "ok"),
    ("an admin adjudicates, then again without --revise",
     lambda db: [audit.review.add_review("b", "q2", "Root", "key_correct", is_adjudication=True, db=db),
                 audit.review.add_review("b", "q2", "Root", "key_wrong", corrected_answer="B",
                                         is_adjudication=True, db=db)],
     (audit.InputError, "'Root' already gave an adjudication on question 'q2'")),
    ("an adjudication revised explicitly is marked",
     _ok(lambda db: [audit.review.add_review("b", "q2", "Root", "key_correct", is_adjudication=True, db=db),
                     audit.review.add_review("b", "q2", "Root", "key_wrong", corrected_answer="B",
                                             is_adjudication=True, revision=True, db=db)][1].is_revision), "ok"),
    ("revision=True on a first verdict records a plain verdict",
     _ok(lambda db: not audit.review.add_review("b", "q3", "Pema", "ambiguous", revision=True, db=db).is_revision),
     "ok"),
    ("a lead who reviewed the item adjudicates it",
     lambda db: [audit.review.add_review("b", "q3", "Lhamo", "key_correct", db=db),
                 audit.review.add_review("b", "q3", "Lhamo", "key_correct", is_adjudication=True, db=db)],
     (audit.PermissionDeniedError, "gave a verdict on question 'q3' and so may not adjudicate it")),
    ("a lead list naming a look-alike of an account",
     lambda db: audit.accounts.set_leads(["Рema"], actor="Root", db=db),
     (audit.InputError, "no enabled account")),
    ("the lead list cleared by an admin",
     _ok(lambda db: audit.accounts.lead_reviewers("", actor="Root", db=db).stored == []), "ok"),
    ("required reviews as a bool",
     lambda db: audit.review.set_required_reviews(flagged=True, actor="Root", db=db),
     (audit.InputError, "whole number from 1 to 20")),
    ("required reviews 21",
     lambda db: audit.review.set_required_reviews(other=21, actor="Root", db=db),
     (audit.InputError, "whole number from 1 to 20")),
    ("required reviews by a disabled admin-to-be",
     lambda db: audit.review.set_required_reviews(flagged=2, actor="Dawa", db=db),
     (audit.PermissionDeniedError, "'Dawa' has no enabled account")),
    ("a Label Studio edit of the same reviewer is a revision by itself",
     _ok(lambda db: [audit.review.add_review("b", "q1", "Pema", "key_correct", source="label_studio", db=db),
                     audit.review.add_review("b", "q1", "Pema", "ambiguous", source="label_studio", db=db)][1]
         .is_revision), "ok"),
    ("a cause given in another spelling with key_correct",
     lambda db: audit.review.add_review("b", "q1", "Pema", "Key Correct", cause="Key-Slip", db=db),
     (audit.InputError, "a cause only goes with verdict")),
]


@pytest.mark.parametrize("what,call,expected", ROLE_CASES, ids=[c[0] for c in ROLE_CASES])
def test_further_role_cases(team, what, call, expected):
    before = db_snapshot(team)
    if expected == "ok":
        call(team)
        return
    cls, words = expected
    with pytest.raises(cls, match=words.replace("(", r"\(").replace(")", r"\)")) as e:
        call(team)
    assert "\n" not in str(e.value)
    # a refused call changed nothing that the refusal concerns: every verdict written in the
    # same call before the refused one belongs to the case itself
    after = db_snapshot(team)
    assert after["review_settings"] == before["review_settings"] and after["accounts"] == before["accounts"]


IMPORT_CASES = [
    ("a revision column that is neither true nor false",
     "question_id,reviewer,verdict,revision\nq1,Pema,key_correct,maybe\n", "Lhamo",
     (audit.InputError, "more.csv:2: revision must be true or false, not 'maybe'")),
    ("the same reviewer twice on an item in one file",
     "question_id,reviewer,verdict\nq1,Pema,key_correct\nq1,pema,ambiguous\n", "Lhamo",
     (audit.InputError, "more.csv:3: 'Pema' already gave a verdict on question 'q1'")),
    ("a file row revising explicitly", "question_id,reviewer,verdict,revision\nq1,Pema,key_correct,\n"
     "q1,Pema,ambiguous,true\n", "Lhamo", "ok"),
    ("a file row with a cause on key_correct",
     "question_id,reviewer,verdict,cause\nq1,Pema,key_correct,translation\n", "Root",
     (audit.InputError, "more.csv:2: a cause only goes with verdict")),
    ("an import by a disabled account", "question_id,reviewer,verdict\nq1,Pema,key_correct\n", "Dawa",
     (audit.PermissionDeniedError, "'Dawa' has no enabled account")),
]


@pytest.mark.parametrize("what,text,actor,expected", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_further_import_cases(team, tmp_path, what, text, actor, expected):
    before = db_snapshot(team)
    call = _import(tmp_path, text, actor)
    if expected == "ok":
        got = call(team)
        assert [r.is_revision for r in got] == [False, True] and {r.recorded_by for r in got} == {actor}
        return
    cls, words = expected
    with pytest.raises(cls, match=words.replace("(", r"\(").replace(")", r"\)")):
        call(team)
    assert db_snapshot(team) == before
