"""The push plan (audit/sync/_plan.py) on in-memory data: no Label Studio
server and no database.  The server tests (tests/test_label_studio*.py)
check the same decisions end to end."""
from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest

from audit.sync import _plan
from audit.sync._config import labeling_config
from audit.sync._plan import config_to_install, plan_annotations, plan_tasks
from audit.sync._remote import ANNOTATION_COLUMNS

REMOTE_TASK_COLUMNS = ["task_id", "external_id", "benchmark", "question_id", "audit_hash"]


def task(qid: str, content: str = "v1", n_options: int = 4) -> dict:
    return {"audit_id": f"b::{qid}", "audit_benchmark": "b", "question_id": qid, "audit_hash": f"{qid}-{content}",
            "options": list("ABCDEF"[:n_options])}


def remote_tasks(*rows: tuple[int, str, str]) -> pd.DataFrame:
    """(task id, question id, content) of tasks on the server."""
    return pd.DataFrame([(tid, f"b::{q}", "b", q, f"{q}-{c}") for tid, q, c in rows], columns=REMOTE_TASK_COLUMNS)


def test_new_changed_and_unchanged_tasks():
    tasks = [task("q1"), task("q2", "v2"), task("q3"), task("q4", "v2")]
    plan = plan_tasks(tasks, remote_tasks((11, "q2", "v1"), (12, "q3", "v1"), (13, "q4", "v2"), (14, "q9", "v1")))
    assert plan.create == [tasks[0]]
    assert plan.update == [(11, tasks[1])]
    assert plan.unchanged == [(12, tasks[2]), (13, tasks[3])]
    assert plan.duplicates == 0
    assert all(isinstance(tid, int) for tid, _ in plan.update + plan.unchanged)


def test_empty_project_creates_every_task_in_order():
    tasks = [task(f"q{i}") for i in range(5)]
    plan = plan_tasks(tasks, remote_tasks())
    assert plan.create == tasks and plan.update == [] and plan.unchanged == [] and plan.duplicates == 0


def test_nothing_to_send():
    plan = plan_tasks([], remote_tasks((1, "q1", "v1")))
    assert (plan.create, plan.update, plan.unchanged, plan.duplicates) == ([], [], [], 0)


def test_duplicate_remote_tasks_use_the_lowest_id():
    # an import repeated by hand: three tasks carry q1; the lowest id is the item's task,
    # whatever order the server listed them in and whichever copy holds the current content
    remote = remote_tasks((30, "q1", "v2"), (10, "q1", "v1"), (20, "q1", "v2"), (40, "q2", "v1"), (41, "q2", "v1"))
    plan = plan_tasks([task("q1", "v2"), task("q2")], remote)
    assert plan.update == [(10, task("q1", "v2"))]
    assert plan.unchanged == [(40, task("q2"))]
    assert plan.duplicates == 3


def test_a_rerun_after_the_tasks_were_made_changes_nothing():
    tasks = [task("q1"), task("q2")]
    first = plan_tasks(tasks, remote_tasks())
    on_server = remote_tasks(*[(100 + i, t["question_id"], "v1") for i, t in enumerate(first.create)])
    again = plan_tasks(tasks, on_server)
    assert again.create == [] and again.update == [] and [tid for tid, _ in again.unchanged] == [100, 101]


@pytest.mark.parametrize("have, options, want", [
    (4, [4, 2, 3], None),
    (4, [2], None),
    (4, [5, 4], 5),
    (4, [6], 6),
    (2, [3], 3),
    (6, [6, 2], None),
])
def test_labeling_config_offers_every_option(have, options, want):
    tasks = [task(f"q{i}", n_options=n) for i, n in enumerate(options)]
    got = config_to_install(tasks, labeling_config(have))
    if want is None:
        assert got is None
    else:
        assert got == labeling_config(want)


def test_labeling_config_of_a_project_without_one():
    assert config_to_install([task("q1", n_options=2)], None) == labeling_config(2)
    assert config_to_install([task("q1", n_options=1)], "") == labeling_config(2)   # never fewer than two


def candidates(*rows: tuple) -> pd.DataFrame:
    """(review id, reviewer, task id, linked annotation id or None, its version as last synced)."""
    return pd.DataFrame(
        [(rid, "b", f"q{tid}", who, "key_correct", None, None, None, None, tid, ann, known)
         for rid, who, tid, ann, known in rows],
        columns=["review_id", "benchmark", "question_id", "reviewer", "verdict", "corrected_answer", "cause",
                 "rationale", "proposed_fix", "task_id", "annotation_id", "known_updated_at"],
    ).astype({"annotation_id": "Int64"})


def remote_annotations(*rows: tuple[int, str, int, int]) -> pd.DataFrame:
    """(annotation id, version, task id, owner's user id) now in Label Studio."""
    out = pd.DataFrame(columns=ANNOTATION_COLUMNS)
    for i, (aid, version, tid, uid) in enumerate(rows):
        out.loc[i] = {"annotation_id": aid, "updated_at": version, "task_id": tid, "ls_user_id": uid}
    return out


USERS = {"ann": 5, "bo": 6, "cy": 7}


def _writes(plan):
    return [(int(c.review_id), uid, ann) for c, uid, ann in plan.writes]


def test_annotations_created_updated_and_left_for_pull():
    cands = candidates(
        (1, "ann", 100, 10, "t1"),     # linked, unchanged in Label Studio: updated
        (2, "bo", 101, 20, "t1"),      # linked, changed in Label Studio since: left for pull
        (3, "cy", 102, None, None),    # never linked, nothing of theirs on the task: created
        (4, "ann", 103, 30, "t1"),     # linked, deleted in Label Studio: created again
    )
    remote = remote_annotations((10, "t1", 100, 5), (20, "t2", 101, 6))
    plan = plan_annotations(cands, USERS, remote, known_ids={10, 20, 30})
    assert _writes(plan) == [(1, 5, 10), (3, 7, None), (4, 5, None)]
    assert plan.skipped_changed_remotely == 1


def test_an_annotation_not_pulled_yet_is_never_overwritten():
    # the reviewer made an annotation in Label Studio that no pull has seen: their workbench
    # verdict waits for the pull (which records the conflict) instead of adding a second one
    cands = candidates((1, "ann", 100, None, None), (2, "bo", 100, None, None))
    remote = remote_annotations((50, "t1", 100, 5), (51, "t1", 100, 6))
    plan = plan_annotations(cands, USERS, remote, known_ids={51})
    assert _writes(plan) == [(2, 6, None)]
    assert plan.skipped_changed_remotely == 1


def test_another_reviewers_annotation_on_the_task_does_not_block():
    cands = candidates((1, "ann", 100, None, None))
    remote = remote_annotations((60, "t1", 100, 6))          # bo's, not pulled yet
    plan = plan_annotations(cands, USERS, remote, known_ids=set())
    assert _writes(plan) == [(1, 5, None)] and plan.skipped_changed_remotely == 0


def test_annotations_on_an_empty_project():
    cands = candidates((1, "ann", 100, None, None), (2, "bo", 101, 7, "t0"))
    plan = plan_annotations(cands, USERS, remote_annotations(), known_ids={7})
    assert _writes(plan) == [(1, 5, None), (2, 6, None)]
    assert plan.writes[0][0].reviewer == "ann"      # the candidate row travels with its decision


def test_no_candidates():
    plan = plan_annotations(candidates(), USERS, remote_annotations((1, "t", 1, 5)), known_ids=set())
    assert plan.writes == [] and plan.skipped_changed_remotely == 0


def test_plan_module_is_pure():
    # the plan must be testable without a server or a database
    tree = ast.parse(Path(_plan.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {m for m in imported if m.split(".")[0] in ("duckdb", "httpx", "label_studio_sdk")
                or m in ("audit.store", "audit.sync._client", "audit.sync._remote", "audit.sync._state")}
