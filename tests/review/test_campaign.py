"""The library side of a review campaign, on a real DuckDB file:
a lead's "needs my verdict" holds the disputes first, queue entry settings
and assignments shape the queue (checked against plain pandas over
``review_status`` and the item table), progress per subject matches an
independent count, and only admins change any of it."""
from __future__ import annotations

import pytest

import audit
from audit.accounts import add_account, set_role
from audit.errors import AuditError, PermissionDeniedError
from audit.review import add_review, review_queue, review_status
from audit.review.campaign import assign, get_queue_entry, list_assignments, set_queue_entry, unassign
from audit.review.dashboard import progress_by_subject
from audit.review.queue import next_for_reviewer
from tests.support.common import copy_db
from tests.support.review_bench import bench_copy

PW = "a-long-password"


def _team(path, folder):
    copy_db(bench_copy(folder), path)
    add_account("Dolma", PW, db=path)                                  # the first account: admin
    for name, role in (("ann", "reviewer"), ("bo", "reviewer"), ("Lhamo", "lead"), ("cat", "reviewer")):
        add_account(name, PW, role=role, actor="Dolma", db=path)


@pytest.fixture
def db(tmp_path, monkeypatch, db_template):
    """The review bench with an admin, a lead and three reviewers (a copy of
    one built once: five Argon2 hashes per test cost seconds)."""
    monkeypatch.delenv("WORKBENCH_LEADS", raising=False)
    return copy_db(db_template(_team), tmp_path / "test.duckdb")


def ids(df):
    return df["question_id"].tolist()


def _dispute(db, qid):
    add_review("bench", qid, "ann", "key_correct", db=db)
    add_review("bench", qid, "bo", "key_wrong", corrected_answer="B", db=db)


def test_a_leads_needs_me_holds_the_disputes_first(db):
    _dispute(db, "q05")
    _dispute(db, "q02")
    status = review_status("bench", db=db).set_index("question_id")["status"]
    assert status["q05"] == status["q02"] == "disputed"
    lead_q = ids(review_queue("bench", status="needs_me", reviewer="Lhamo", db=db))
    order = ids(review_queue("bench", db=db))
    disputed = [q for q in order if status[q] == "disputed"]
    others = [q for q in order if status[q] in ("unreviewed", "needs_second_review")]
    assert lead_q == disputed + others                      # disputes first, each part in queue order
    assert next_for_reviewer("bench", "Lhamo", db=db) == disputed[0]
    assert next_for_reviewer("bench", "Lhamo", after=disputed[0], db=db) == disputed[1]
    # settling the first leaves the second as the next
    add_review("bench", disputed[0], "Lhamo", "key_correct", is_adjudication=True, db=db)
    assert next_for_reviewer("bench", "Lhamo", after=disputed[0], db=db) == disputed[1]
    # a reviewer never sees disputes in needs-me, and the admin (who may settle) does
    assert not set(disputed) & set(ids(review_queue("bench", status="needs_me", reviewer="cat", db=db)))
    assert disputed[1] in ids(review_queue("bench", status="needs_me", reviewer="Dolma", db=db))


def test_queue_entry_by_tier_or_score_and_subject(db):
    everything = review_queue("bench", tiers=None, db=db)
    assert len(everything) == 12
    set_queue_entry(tiers=[2], subjects=["grammar", "history"], actor="Dolma", db=db)
    got = ids(review_queue("bench", tiers=None, db=db))
    want = ids(everything[(everything["tier"] == 2) & everything["subject"].isin(["grammar", "history"])])
    assert got == want and got
    # by the key-error score (tier 5 OR score >= threshold)
    k = everything["key_error"].dropna()
    if len(k):
        thr = float(k.median())
        set_queue_entry(tiers=[5], min_key_error=thr, actor="Dolma", db=db)
        want = ids(everything[(everything["tier"] == 5) | (everything["key_error"] >= thr)])
        assert ids(review_queue("bench", tiers=None, db=db)) == want
    set_queue_entry(actor="Dolma", db=db)                       # nothing set: every item again
    assert not get_queue_entry(db=db).is_set
    assert len(review_queue("bench", tiers=None, db=db)) == 12


def test_assignments_limit_a_reviewers_queue_not_a_leads(db):
    assert assign("bench", "ann", subjects=["medicine"], question_ids=["q02"], actor="Dolma", db=db) == 2
    assert assign("bench", "ann", subjects=["medicine"], actor="Dolma", db=db) == 0   # nothing new
    everything = review_queue("bench", tiers=None, db=db)
    want = ids(everything[(everything["subject"] == "medicine") | (everything["question_id"] == "q02")])
    assert ids(review_queue("bench", tiers=None, reviewer="ann", db=db)) == want
    assert len(review_queue("bench", tiers=None, reviewer="bo", db=db)) == 12          # no assignment: all
    assert len(review_queue("bench", tiers=None, reviewer="Lhamo", db=db)) == 12       # leads see all
    assert next_for_reviewer("bench", "ann", tiers=None, db=db) in want
    assert sorted(list_assignments("bench", db=db)["reviewer"]) == ["ann", "ann"]
    assert unassign("bench", "ann", actor="Dolma", db=db) == 2
    assert len(review_queue("bench", tiers=None, reviewer="ann", db=db)) == 12


def test_progress_by_subject_matches_an_independent_count(db):
    _dispute(db, "q01")
    add_review("bench", "q04", "ann", "key_correct", db=db)
    add_review("bench", "q04", "bo", "key_correct", db=db)
    add_review("bench", "q07", "ann", "key_correct", db=db)
    got = progress_by_subject("bench", db=db).set_index("subject")
    st = review_status("bench", db=db)
    for subject, g in st.groupby("subject"):
        row = got.loc[subject]
        assert row["total"] == len(g)
        for s in ("done", "disputed", "needs_second_review", "unreviewed"):
            assert row[s] == (g["status"] == s).sum(), (subject, s)
        assert row["reviewed"] == (g["status"] != "unreviewed").sum()


def test_only_an_admin_changes_the_campaign(db):
    for call in (lambda: set_queue_entry(tiers=[1], actor="Lhamo", db=db),
                 lambda: assign("bench", "ann", subjects=["grammar"], actor="ann", db=db),
                 lambda: unassign("bench", "ann", actor=None, db=db),
                 lambda: set_role("ann", "lead", actor="Lhamo", db=db)):
        with pytest.raises(PermissionDeniedError):
            call()
    with pytest.raises(AuditError):
        set_queue_entry(min_key_error=float("nan"), actor="Dolma", db=db)
    with pytest.raises(AuditError):
        set_queue_entry(tiers=[7], actor="Dolma", db=db)
    with pytest.raises(AuditError):
        assign("bench", "nobody", subjects=["grammar"], actor="Dolma", db=db)
    assert set_role("ann", "lead", actor="Dolma", db=db).role == "lead"
    assert audit.accounts.roles.account_role("ann", db=db) == "lead"
    with pytest.raises(AuditError):                       # the last admin keeps the role
        set_role("Dolma", "reviewer", actor="Dolma", db=db)


def test_set_role_ends_the_accounts_sessions(db):
    token = audit.accounts.issue_session("bo", db=db)
    set_role("bo", "lead", actor="Dolma", db=db)
    with pytest.raises(audit.SignInError):
        audit.accounts.verify_session(token, db=db)
