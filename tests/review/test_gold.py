"""Known-answer items (audit.review.gold): a lead marks them, the queue
mixes them into each reviewer's flow at the admin's rate, a reviewer
cannot tell them from an ordinary item (the library's item view and the
queue rows differ only in content), and their verdicts measure the reviewer
without ever changing the key, the settlement or an export."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

import audit
from audit.accounts import add_account
from audit.errors import InputError, NotFoundError, PermissionDeniedError
from audit.review import add_gold, add_review, item_view, review_queue, review_status, settled_verdicts
from audit.review.gold import gold_from_settled, list_gold, set_gold_rate
from audit.review.queue import next_for_reviewer
from audit.review.trust import set_trust
from tests.support.campaign import analysed_benchmark
from tests.support.cli_process import run_audit

pytestmark = pytest.mark.slow   # real DuckDB files, analysed benchmarks, subprocesses: tens of seconds

B = "trust"
PW = "a long password 1"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench(db_path):
    keys = analysed_benchmark(db_path)
    add_account("Admin Nyima", PW, db=db_path)                       # the first account: an admin
    add_account("Lead Dolkar", PW, role="lead", actor="Admin Nyima", db=db_path)
    for r in ("Pema", "Tashi", "Sonam", "Yangchen"):
        add_account(r, PW, actor="Admin Nyima", db=db_path)
    return db_path, keys


def _other(keys, qid, *not_these):
    return next(x for x in "ABCD" if x != keys[qid] and x not in not_these)


def test_marking_is_a_leads_act_and_is_checked(bench):
    db, keys = bench
    with pytest.raises(PermissionDeniedError):
        add_gold(B, "t001", keys["t001"], actor="Pema", db=db)
    with pytest.raises(NotFoundError):
        add_gold(B, "nope", "A", actor="Lead Dolkar", db=db)
    with pytest.raises(InputError, match="not one of the options"):
        add_gold(B, "t001", "F", actor="Lead Dolkar", db=db)
    g = add_gold(B, "t001", "ག", actor="Lead Dolkar", db=db)           # a Tibetan label is read as C
    assert (g.answer, g.origin) == ("C", "reference")
    add_gold(B, "t001", keys["t001"], actor="Lead Dolkar", db=db)      # marked again: the answer changes
    assert list_gold(B, db=db)[["question_id", "answer"]].values.tolist() == [["t001", keys["t001"]]]
    with pytest.raises(PermissionDeniedError):
        set_gold_rate(0.2, actor="Lead Dolkar", db=db)                 # the rate is an admin's
    assert set_gold_rate(0.25, actor="Admin Nyima", db=db) == 0.25


def test_answers_never_change_the_key_the_settlement_or_an_export(bench, tmp_path):
    db, keys = bench
    wrong = _other(keys, "t000")
    for r in ("Pema", "Tashi"):                                        # t000 settled: key wrong → wrong
        add_review(B, "t000", r, "key_wrong", corrected_answer=wrong, actor=r, db=db)
    assert gold_from_settled(B, actor="Lead Dolkar", db=db) == 1
    add_gold(B, "t003", keys["t003"], actor="Lead Dolkar", db=db)     # a reference item, never reviewed
    status0 = review_status(B, db=db)
    settled0 = settled_verdicts(B, db=db)
    preview0 = audit.export.preview_version(B, db=db)
    # reviewers answer both, against the known answers, and agree with each other
    for r in ("Sonam", "Yangchen"):
        add_review(B, "t000", r, "key_correct", actor=r, db=db)
        add_review(B, "t003", r, "key_wrong", corrected_answer=_other(keys, "t003"), actor=r, db=db)
    pd.testing.assert_frame_equal(review_status(B, db=db).drop(columns=["n_reviews", "n_reviewers",
                                                                         "last_reviewed_at"]),
                                  status0.drop(columns=["n_reviews", "n_reviewers", "last_reviewed_at"]))
    s1 = settled_verdicts(B, db=db)
    assert s1[["question_id", "verdict", "corrected_answer", "settled_by"]].equals(
        settled0[["question_id", "verdict", "corrected_answer", "settled_by"]])
    pd.testing.assert_frame_equal(audit.export.preview_version(B, db=db), preview0)
    # the answers count for the reviewers
    g = list_gold(B, db=db).set_index("question_id")
    assert g.loc["t000", ["n_answers", "n_right"]].tolist() == [2, 0]
    assert g.loc["t003", ["n_answers", "n_right"]].tolist() == [2, 0]
    rel = audit.review.reviewer_reliability(B, db=db).set_index("reviewer")
    assert rel.loc["Sonam", "n_gold"] == 2 and rel.loc["Sonam", "gold_accuracy"] == 0.0
    # and the exported version keeps the key the settlement gave
    audit.export.create_version(B, "1.1", actor="Lead Dolkar", db=db, exports_dir=tmp_path / "exports")
    log = pd.read_csv(tmp_path / "exports" / B / "1.1" / "CHANGELOG.csv", dtype=str, encoding="utf-8-sig")
    row = log.set_index("question_id").loc["t000"]
    assert (row["new_key"], row["settled_by"]) == (wrong, "agreement")
    assert "t003" not in set(log["question_id"]) or log.set_index("question_id").loc["t003", "action"] == "unchanged"


def _review_fields(view) -> dict:
    """Everything the item view says about an item's review (not its content)."""
    content = {"question", "audit", "parallel", "parallels", "families", "option_counts", "n_invalid", "judges"}
    out = {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name not in content}
    out["history"] = [(r.reviewer, r.verdict, r.corrected_answer) for r in view.history]
    return out


QUEUE_CONTENT = {"position", "question_id", "seq", "subject", "language", "script", "stem_preview", "answer_key",
                 "tier", "bucket", "top_answer", "agreement_count", "agreeing_families", "n_models", "n_valid",
                 "key_error", "structure_suspect", "structure_reason", "has_parallel", "parallel_key_match",
                 "info_gain"}


def test_a_reviewer_cannot_tell_a_known_answer_item(bench):
    db, keys = bench
    # t000 (Tier 1) becomes a known-answer item after two reviewers settled it and two more answered it;
    # t036 (Tier 1) is an ordinary item nobody reviewed
    wrong = _other(keys, "t000")
    for r in ("Pema", "Tashi"):
        add_review(B, "t000", r, "key_wrong", corrected_answer=wrong, actor=r, db=db)
    add_gold(B, "t000", wrong, origin="settled", actor="Lead Dolkar", db=db)
    for r in ("Sonam",):
        add_review(B, "t000", r, "key_correct", actor=r, db=db)
    me = "Yangchen"
    gold, plain = item_view(B, "t000", reviewer=me, db=db), item_view(B, "t036", reviewer=me, db=db)
    assert _review_fields(gold) == _review_fields(plain)
    assert gold.status == "unreviewed" and gold.n_hidden == 0 and gold.history == []
    q = review_queue(B, reviewer=me, status="needs_me", db=db).set_index("question_id")
    assert "is_gold" not in q.columns
    cols = [c for c in q.columns if c not in QUEUE_CONTENT]
    assert q.loc["t000", cols].to_dict() == q.loc["t036", cols].to_dict()
    # the score is not clamped by the known answer either (it would put the item at the top or bottom)
    assert 0.05 < q.loc["t000", "key_error"] < 0.95
    # after the reviewer's verdict, both read the same again
    for qid in ("t000", "t036"):
        add_review(B, qid, me, "key_correct", actor=me, db=db)
    gold, plain = item_view(B, "t000", reviewer=me, db=db), item_view(B, "t036", reviewer=me, db=db)
    assert _review_fields(gold) == _review_fields(plain)
    assert gold.status == "needs_second_review" and [r.reviewer for r in gold.history] == [me]
    q = review_queue(B, reviewer=me, db=db).set_index("question_id")
    assert q.loc["t000", cols].drop("last_reviewed_at").to_dict() == \
        q.loc["t036", cols].drop("last_reviewed_at").to_dict()
    # a lead sees the truth: settled, with every verdict
    lead = item_view(B, "t000", reviewer="Lead Dolkar", db=db)
    assert lead.status == "done" and lead.n_hidden == 4


def test_the_queue_mixes_them_in_at_the_rate(bench):
    db, keys = bench
    gold = [q for q in keys if int(q[1:]) % 2 == 1][:10]
    for qid in gold:
        add_gold(B, qid, keys[qid], actor="Lead Dolkar", db=db)
    set_gold_rate(0.25, actor="Admin Nyima", db=db)
    seen, after = [], None
    for _ in range(28):
        qid = next_for_reviewer(B, "Pema", after=after, tiers=None, db=db)
        if qid is None:
            break
        seen.append(qid)
        add_review(B, qid, "Pema", "key_correct", actor="Pema", db=db)
        after = qid
    n_gold = sum(q in gold for q in seen)
    assert 4 <= n_gold <= 10, (n_gold, len(seen))
    # not at a fixed period
    pos = [i for i, q in enumerate(seen) if q in gold]
    assert len(set(b - a for a, b in zip(pos, pos[1:]))) > 1
    # a lead, who knows them, is never sent one; rate 0: nobody is
    assert next_for_reviewer(B, "Lead Dolkar", tiers=None, db=db) not in gold
    set_gold_rate(0, actor="Admin Nyima", db=db)
    after = None
    for _ in range(10):
        qid = next_for_reviewer(B, "Tashi", after=after, tiers=None, db=db)
        assert qid not in gold
        add_review(B, qid, "Tashi", "key_correct", actor="Tashi", db=db)
        after = qid


def test_a_flagged_reviewers_verdicts_need_a_second_review(bench):
    db, keys = bench
    gold = sorted(keys)[:6]
    for qid in gold:
        add_gold(B, qid, keys[qid], actor="Lead Dolkar", db=db)
    for qid in gold:                                                   # Pema gets every one wrong
        add_review(B, qid, "Pema", "key_wrong", corrected_answer=_other(keys, qid), actor="Pema", db=db)
    set_required_other = audit.review.set_required_reviews
    set_required_other(other=1, actor="Admin Nyima", db=db)
    tier5 = review_queue(B, tiers=[5], db=db)["question_id"].iloc[0]
    add_review(B, tier5, "Pema", "key_correct", actor="Pema", db=db)
    status = lambda: review_status(B, db=db).set_index("question_id").loc[tier5, "status"]  # noqa: E731
    assert status() == "done"                                          # the count rule: one verdict is enough
    set_trust(second_review_flagged=True, actor="Admin Nyima", db=db)
    assert status() == "needs_second_review"                           # given while flagged: not enough alone
    add_review(B, tier5, "Tashi", "key_correct", actor="Tashi", db=db)
    assert status() == "done"
    rel = audit.review.reviewer_reliability(B, db=db).set_index("reviewer")
    assert bool(rel.loc["Pema", "flagged"]) and rel.loc["Pema", "reason"] == "below_threshold"


def _cli(args, db, stdin=None):
    return run_audit([*args, "--db", str(db)], module="audit", cwd=REPO, input=stdin, timeout=120)


def test_the_command_line(bench):
    db, keys = bench
    r = _cli(["review", "gold", "--benchmark", B, "--add", "t005", "--answer", keys["t005"], "--as", "Lead Dolkar",
              "--password-stdin"], db, stdin=PW + "\n")
    assert r.returncode == 0, r.stderr
    r = _cli(["review", "gold", "--benchmark", B, "--rate", "0.3", "--as", "Pema", "--password-stdin"], db,
             stdin=PW + "\n")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    r = _cli(["review", "gold", "--benchmark", B, "--list", "--format", "json"], db)
    assert [g["question_id"] for g in json.loads(r.stdout)] == ["t005"]
    r = _cli(["review", "reliability", "--benchmark", B, "--format", "json"], db)
    assert r.returncode == 0 and json.loads(r.stdout) == []
