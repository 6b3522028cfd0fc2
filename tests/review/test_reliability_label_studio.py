"""Reviewer reliability and the weighted export policy on the Label Studio
path: known-answer items pushed as ordinary tasks to a REAL Label Studio
server (fixture ``ls_server``), verdicts made there by three annotators,
pulled, then ``audit review reliability`` and ``--policy weighted`` on them."""
from __future__ import annotations

import json
import uuid
from pathlib import Path

import pandas as pd
import pytest

import audit
from audit.review import add_gold, review_status
from audit.review.trust import set_trust
from audit.sync._config import verdict_result
from tests.support.campaign import analysed_benchmark
from tests.support.cli_process import run_audit

pytestmark = pytest.mark.label_studio
B = "trust"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ls(ls_server, monkeypatch):
    from label_studio_sdk import LabelStudio

    monkeypatch.setenv("LABEL_STUDIO_URL", ls_server.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", ls_server.token)
    return LabelStudio(base_url=ls_server.url, api_key=ls_server.token)


def test_reliability_and_the_weighted_policy_from_label_studio(ls, db_path, tmp_path):
    client = ls
    keys = analysed_benchmark(db_path, n=40)
    tier = review_status(B, db=db_path).set_index("question_id")["tier"]
    gold = [q for q in sorted(keys) if tier[q] in (0, 5)][:8]
    for qid in gold:
        add_gold(B, qid, keys[qid], db=db_path)
    proj = audit.sync.ls_connect(title=f"trust {uuid.uuid4().hex[:10]}", benchmark=B, db=db_path)
    s = audit.sync.ls_push(B, tiers=None, db=db_path)
    assert s.created == 40
    tasks = {t.data["question_id"]: t for t in client.tasks.list(project=proj.project_id, fields="task_only",
                                                                  page_size=1000)}
    # nothing in Label Studio tells a known-answer item from another of the same tier
    plain = next(q for q in sorted(keys) if tier[q] == tier[gold[0]] and q not in gold)
    assert set(tasks[gold[0]].data) == set(tasks[plain].data)
    assert json.dumps(tasks[gold[0]].data).count("gold") == json.dumps(tasks[plain].data).count("gold") == 0

    careful = client.users.create(username=f"careful-{uuid.uuid4().hex[:6]}@example.org",
                                  email=f"careful-{uuid.uuid4().hex[:6]}@example.org")
    careful2 = client.users.create(username=f"careful2-{uuid.uuid4().hex[:6]}@example.org",
                                   email=f"careful2-{uuid.uuid4().hex[:6]}@example.org")
    careless = client.users.create(username=f"careless-{uuid.uuid4().hex[:6]}@example.org",
                                   email=f"careless-{uuid.uuid4().hex[:6]}@example.org")
    other = {q: next(x for x in "ABCD" if x != keys[q]) for q in keys}

    def annotate(user, qid, verdict):
        client.annotations.create(id=tasks[qid].id, completed_by=user.id, result=verdict_result(
            verdict, other[qid] if verdict == "key_wrong" else None))

    for i, qid in enumerate(gold):
        annotate(careful, qid, "key_correct")
        annotate(careful2, qid, "key_correct")
        annotate(careless, qid, "key_correct" if i < 2 else "key_wrong")     # 2 of 8 right
    lone = next(q for q in sorted(keys) if tier[q] == 5 and q not in gold)    # the models agree with the key
    # the models reject the key; with five mid-strength models that alone is weak
    # evidence of a wrong key, so two careful reviewers' agreement settles it
    both = next(q for q in sorted(keys) if tier[q] == 1)
    only_careless = [q for q in sorted(keys) if tier[q] == 5 and q not in gold and q != lone][0]
    annotate(careful, lone, "key_correct")
    annotate(careful, both, "key_wrong")
    annotate(careful2, both, "key_wrong")
    annotate(careless, only_careless, "key_correct")
    p = audit.sync.ls_pull(db=db_path)
    assert p.reviews_added == 28 and p.rejected == 0

    r = run_audit(["review", "reliability", "--benchmark", B, "--format", "json",
                   "--db", str(db_path)], cwd=REPO, timeout=120, module="audit")
    assert r.returncode == 0, r.stderr
    rows = {x["reviewer"]: x for x in json.loads(r.stdout)}
    assert list(next(iter(rows.values()))) == ["reviewer", "n_gold", "gold_accuracy", "gold_accuracy_low",
                                               "gold_accuracy_high", "n_verdicts", "agreement",
                                               "estimated_accuracy", "flagged", "reason"]
    assert rows[careful.email]["n_gold"] == rows[careful2.email]["n_gold"] == rows[careless.email]["n_gold"] == 8
    assert rows[careful.email]["gold_accuracy"] == 1.0 and not rows[careful.email]["flagged"]
    assert rows[careless.email]["gold_accuracy"] == 0.25 and rows[careless.email]["flagged"]
    assert rows[careful.email]["estimated_accuracy"] > rows[careless.email]["estimated_accuracy"]

    set_trust(rule="weighted", allow_lone=True, db=db_path)
    out = tmp_path / "exports"
    audit.export.create_version(B, "1.1", policy="weighted", db=db_path, exports_dir=out)
    log = pd.read_csv(out / B / "1.1" / "CHANGELOG.csv", dtype=str, encoding="utf-8-sig").set_index("question_id")
    assert log.loc[lone, "settled_by"] == "weighted_evidence"
    assert log.loc[both, "settled_by"] == "weighted_agreement" and log.loc[both, "new_key"] == other[both]
    assert log.loc[only_careless, "review_status"] == "needs_second_review"
    assert set(log.index) & set(gold) == set()      # answers to known-answer items settle nothing
