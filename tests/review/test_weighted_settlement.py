"""Settlement that weighs reviewers (the weighted rule of the review status,
``--policy weighted`` of an export): two careful reviewers who agree settle;
a careless one's lone verdict does not; a careful one's verdict that the
evidence supports settles alone when the admin allows it; the queue asks for
second reviews where one more verdict tells most and for none where one
verdict and the evidence settle."""
from __future__ import annotations

import pandas as pd
import pytest

import audit
from audit.accounts import add_account
from audit.review import add_gold, add_review, review_queue, review_status, settled_verdicts
from audit.review.queue import next_for_reviewer
from audit.review.trust import set_trust
from audit.review.weighted import information_gain, opinion_posterior, opinion_prior, reviewer_accuracy
from tests.support.campaign import analysed_benchmark

pytestmark = pytest.mark.slow   # real DuckDB files, analysed benchmarks, subprocesses: tens of seconds

B = "trust"
PW = "a long password 1"
ADMIN, LEAD = "Admin Nyima", "Lead Dolkar"


@pytest.fixture
def weighted(db_path):
    """Reviewers with a record on 20 known-answer items: two careful ones
    (20 of 20 right), a careless one (11 of 20)."""
    keys = analysed_benchmark(db_path, n=60)
    add_account(ADMIN, PW, db=db_path)
    add_account(LEAD, PW, role="lead", actor=ADMIN, db=db_path)
    for r in ("Careful One", "Careful Two", "Careless"):
        add_account(r, PW, actor=ADMIN, db=db_path)
    gold = [q for q in sorted(keys) if int(q[1:]) >= 40]
    for qid in gold:
        add_gold(B, qid, keys[qid], actor=LEAD, db=db_path)
    for i, qid in enumerate(gold):
        other = next(x for x in "ABCD" if x != keys[qid])
        for r, right in (("Careful One", True), ("Careful Two", True), ("Careless", i < 11)):
            add_review(B, qid, r, "key_correct" if right else "key_wrong", corrected_answer=None if right else other,
                       actor=r, db=db_path)
    set_trust(rule="weighted", allow_lone=True, actor=ADMIN, db=db_path)
    return db_path, keys


def _scores(db):
    with audit.connect(db, read_only=True) as con:
        return dict(con.execute("SELECT question_id, score FROM key_error_scores WHERE benchmark = ?", [B]).fetchall())


def test_the_rules_cases(weighted):
    db, keys = weighted
    p = _scores(db)
    tier = review_status(B, db=db).set_index("question_id")["tier"]
    t1 = [q for q in sorted(keys) if tier[q] == 1 and int(q[1:]) < 40]
    t5 = [q for q in sorted(keys) if tier[q] == 5 and int(q[1:]) < 40]
    other = {q: next(x for x in "ABCD" if x != keys[q]) for q in keys}
    # two careful reviewers agree that a Tier 1 key is wrong
    for r in ("Careful One", "Careful Two"):
        add_review(B, t1[0], r, "key_wrong", corrected_answer=other[t1[0]], actor=r, db=db)
    # a careless reviewer alone on a Tier 5 item, a careful one alone on another
    add_review(B, t5[0], "Careless", "key_correct", actor="Careless", db=db)
    add_review(B, t5[1], "Careful One", "key_correct", actor="Careful One", db=db)
    # a careful one alone against the evidence (the models agree with the key)
    add_review(B, t5[2], "Careful One", "key_wrong", corrected_answer=other[t5[2]], actor="Careful One", db=db)
    st = review_status(B, db=db).set_index("question_id")["status"]
    assert st[t1[0]] == "done" and st[t5[1]] == "done"
    assert st[t5[0]] == "needs_second_review" and st[t5[2]] == "needs_second_review"
    s = settled_verdicts(B, db=db).set_index("question_id")
    assert s.loc[t1[0], "settled_by"] == "weighted_agreement" and s.loc[t5[1], "settled_by"] == "weighted_evidence"
    # the posterior, computed again in Python from the reviewers' records and the fit's score
    careful = reviewer_accuracy(20, 20)
    assert s.loc[t1[0], "posterior"] == pytest.approx(
        opinion_posterior(opinion_prior("key_wrong", p[t1[0]]), [careful, careful]))
    assert s.loc[t5[1], "posterior"] == pytest.approx(
        opinion_posterior(opinion_prior("key_correct", p[t5[1]]), [careful]))
    # the count rule would settle the careless lone verdict on a low-tier item; the admin may forbid lone settling
    assert review_status(B, rule="count", db=db).set_index("question_id").loc[t5[0], "status"] == "done"
    set_trust(allow_lone=False, actor=ADMIN, db=db)
    assert review_status(B, db=db).set_index("question_id").loc[t5[1], "status"] == "needs_second_review"


def test_second_reviews_where_they_tell_most_and_none_where_settled(weighted):
    db, keys = weighted
    tier = review_status(B, db=db).set_index("question_id")["tier"]
    t1 = [q for q in sorted(keys) if tier[q] == 1 and int(q[1:]) < 40]
    t5 = [q for q in sorted(keys) if tier[q] == 5 and int(q[1:]) < 40]
    other = {q: next(x for x in "ABCD" if x != keys[q]) for q in keys}
    add_review(B, t1[0], "Careful One", "key_wrong", corrected_answer=other[t1[0]], actor="Careful One", db=db)
    add_review(B, t1[1], "Careless", "key_correct", actor="Careless", db=db)
    add_review(B, t5[0], "Careful One", "key_correct", actor="Careful One", db=db)     # settles alone
    q = review_queue(B, tiers=None, reviewer="Careful Two", status="needs_me", db=db)
    second = q[q["status"] == "needs_second_review"]
    assert set(second["question_id"]) == {t1[0], t1[1]} and list(q["question_id"][:2]) == list(second["question_id"])
    assert second["info_gain"].is_monotonic_decreasing
    # five mid-strength models rejecting a key are weak evidence that it is wrong
    # (a low score): a careful reviewer's "wrong key" against that is the more
    # uncertain verdict, the careless one's "key right", which the evidence backs, the less
    p = _scores(db)
    assert max(p[t1[0]], p[t1[1]]) < 0.5
    assert list(second["question_id"]) == [t1[0], t1[1]]
    assert t5[0] not in set(q["question_id"])                          # one verdict and the evidence settled it
    assert next_for_reviewer(B, "Careful Two", tiers=None, db=db) == t1[0]
    # the gains are the formula's, for a reviewer of average reliability
    s = review_status(B, db=db)
    gain = q.set_index("question_id")["info_gain"]
    post = opinion_posterior(opinion_prior("key_wrong", p[t1[0]]), [reviewer_accuracy(20, 20)])
    assert gain[t1[0]] == pytest.approx(information_gain(post, 0.8))
    post = opinion_posterior(opinion_prior("key_correct", p[t1[1]]), [reviewer_accuracy(11, 20)])
    assert gain[t1[1]] == pytest.approx(information_gain(post, 0.8))
    assert len(s) == len(keys)


def test_the_weighted_export_policy_names_its_rule(weighted, tmp_path):
    db, keys = weighted
    tier = review_status(B, db=db).set_index("question_id")["tier"]
    t1 = [q for q in sorted(keys) if tier[q] == 1 and int(q[1:]) < 40]
    t5 = [q for q in sorted(keys) if tier[q] == 5 and int(q[1:]) < 40]
    other = next(x for x in "ABCD" if x != keys[t1[0]])
    for r in ("Careful One", "Careful Two"):
        add_review(B, t1[0], r, "key_wrong", corrected_answer=other, actor=r, db=db)
    add_review(B, t5[0], "Careful One", "key_correct", actor="Careful One", db=db)
    out = tmp_path / "exports"
    audit.export.create_version(B, "1.1", policy="weighted", actor=LEAD, db=db, exports_dir=out)
    log = pd.read_csv(out / B / "1.1" / "CHANGELOG.csv", dtype=str, encoding="utf-8-sig").set_index("question_id")
    assert log.loc[t1[0], "settled_by"] == "weighted_agreement" and log.loc[t1[0], "new_key"] == other
    assert log.loc[t5[0], "settled_by"] == "weighted_evidence" and log.loc[t5[0], "review_status"] == "done"
    assert audit.export.read_manifest(out / B / "1.1")["policy"]["rule"] == "weighted"
    assert "weighted" in set(audit.export.list_policies()["name"])
