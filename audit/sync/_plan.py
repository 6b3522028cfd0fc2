"""The push plan: what a push must do on the server, from what it is about to
send and what the server holds.  Pure: rows and DataFrames in, lists out, no
server and no DuckDB; :mod:`audit.sync._push` reads the inputs, applies the
plan and records what it did.

Tasks (:func:`plan_tasks`): an item whose external id (``audit_id``) no
remote task carries is created, one whose remote task has another content
hash (``audit_hash``) is updated, and the rest are unchanged.  When an
external id is on several remote tasks (an import repeated by hand), the
task with the lowest id is the item's task and the others are counted as
duplicates.

Annotations (:func:`plan_annotations`): each verdict to send becomes its
reviewer's annotation on the task — updated when the reviewer owns one that
Label Studio has not changed since the last sync, created otherwise — unless
the reviewer's annotation changed in Label Studio, or the reviewer has one
the workbench has not pulled yet: that is left to pull, which records the
conflict, and never overwritten.

>>> import pandas as pd
>>> remote = pd.DataFrame({"task_id": [7], "external_id": ["b::q1"], "audit_hash": ["old"]})
>>> plan = plan_tasks([{"audit_id": "b::q1", "audit_hash": "new"}, {"audit_id": "b::q2", "audit_hash": "h"}], remote)
>>> [t["audit_id"] for t in plan.create], [(i, t["audit_id"]) for i, t in plan.update], plan.unchanged
(['b::q2'], [(7, 'b::q1')], [])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd

from audit.options import label_at
from audit.sync._config import labeling_config


@dataclass
class TaskPlan:
    """What a push does with each task it is about to send."""

    create: list[dict] = field(default_factory=list)
    """Task data of the items that have no task yet."""
    update: list[tuple[int, dict]] = field(default_factory=list)
    """(task id, new task data) of the tasks whose content changed."""
    unchanged: list[tuple[int, dict]] = field(default_factory=list)
    """(task id, task data) of the tasks already up to date."""
    duplicates: int = 0
    """Remote tasks beyond the first that carry the same external id."""


def plan_tasks(tasks: Sequence[dict], remote: pd.DataFrame) -> TaskPlan:
    """Compare the task data a push is about to send (``audit_id`` and
    ``audit_hash`` of each) with the project's tasks on the server
    (``remote``: columns ``task_id, external_id, audit_hash``, as
    :func:`audit.sync._remote.list_tasks` reads them).  Tasks keep their
    order within each list.

    >>> import pandas as pd
    >>> remote = pd.DataFrame({"task_id": [9, 4], "external_id": ["b::q1", "b::q1"], "audit_hash": ["x", "h"]})
    >>> plan = plan_tasks([{"audit_id": "b::q1", "audit_hash": "h"}], remote)
    >>> plan.unchanged, plan.duplicates
    ([(4, {'audit_id': 'b::q1', 'audit_hash': 'h'})], 1)
    """
    remote = remote.sort_values("task_id")
    first = remote.drop_duplicates("external_id", keep="first").set_index("external_id")
    plan = TaskPlan(duplicates=int(remote.duplicated("external_id").sum()))
    for t in tasks:
        ext = t["audit_id"]
        if ext not in first.index:
            plan.create.append(t)
        elif first.at[ext, "audit_hash"] != t["audit_hash"]:
            plan.update.append((int(first.at[ext, "task_id"]), t))
        else:
            plan.unchanged.append((int(first.at[ext, "task_id"]), t))
    return plan


def config_to_install(tasks: Sequence[dict], label_config: str | None) -> str | None:
    """The labeling config a project needs so that every option label of
    ``tasks`` can be chosen, or None when ``label_config`` (the project's
    current one) offers them already.

    >>> config_to_install([{"options": ["A", "B", "C", "D"]}], labeling_config(4)) is None
    True
    >>> '<Choice value="F"/>' in config_to_install([{"options": list("ABCDEF")}], labeling_config(4))
    True
    """
    need = max(len(t["options"]) for t in tasks)
    if f'<Choice value="{label_at(need)}"/>' in (label_config or ""):
        return None
    return labeling_config(max(need, 2))


@dataclass
class AnnotationPlan:
    """What a push does with each verdict Label Studio has not seen."""

    writes: list[tuple[Any, int, int | None]] = field(default_factory=list)
    """(candidate row, Label Studio user id, annotation id to update or None
    to create one), in the candidates' order."""
    skipped_changed_remotely: int = 0
    """Verdicts left for pull: the reviewer's annotation changed in Label
    Studio, or the reviewer has one the workbench has not pulled yet."""


def plan_annotations(candidates: pd.DataFrame, user_ids: dict[str, int], remote: pd.DataFrame,
                     known_ids: set[int]) -> AnnotationPlan:
    """Decide, for each candidate verdict, whether to create or update its
    reviewer's annotation or to leave it for pull.

    ``candidates``: one row per verdict, with ``reviewer``, ``task_id``,
    ``annotation_id`` (the annotation the reviewer owns on the item as last
    synced, NA when none) and ``known_updated_at`` (its version as last
    synced).  ``user_ids``: reviewer → Label Studio user id.  ``remote``: the
    project's annotations now (``annotation_id, updated_at, task_id,
    ls_user_id``).  ``known_ids``: every annotation id the workbench has
    recorded for the project.

    >>> import pandas as pd
    >>> cands = pd.DataFrame({"reviewer": ["ann", "bo", "cy"], "task_id": [1, 2, 3],
    ...                       "annotation_id": [10, 20, pd.NA], "known_updated_at": ["t1", "t1", None]})
    >>> remote = pd.DataFrame({"annotation_id": [10, 20], "updated_at": ["t1", "t2"], "task_id": [1, 2],
    ...                        "ls_user_id": [5, 6]})
    >>> plan = plan_annotations(cands, {"ann": 5, "bo": 6, "cy": 7}, remote, {10, 20})
    >>> [(c.reviewer, uid, ann) for c, uid, ann in plan.writes], plan.skipped_changed_remotely
    ([('ann', 5, 10), ('cy', 7, None)], 1)
    """
    current = {int(a): u for a, u in zip(remote["annotation_id"], remote["updated_at"])}
    owned = remote.groupby(["task_id", "ls_user_id"])["annotation_id"].apply(set).to_dict()
    plan = AnnotationPlan()
    for c in candidates.itertuples(index=False):
        uid = user_ids[c.reviewer]
        ann = None if pd.isna(c.annotation_id) else int(c.annotation_id)
        if ann is not None and ann in current:
            if current[ann] != c.known_updated_at:      # changed in Label Studio since the last sync
                plan.skipped_changed_remotely += 1
                continue
        else:
            ann = None   # never linked, or deleted in Label Studio: create a new one
            if any(a not in known_ids for a in owned.get((int(c.task_id), uid), ())):
                plan.skipped_changed_remotely += 1   # the reviewer has an annotation not pulled yet
                continue
        plan.writes.append((c, uid, ann))
    return plan
