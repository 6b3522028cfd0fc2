"""Annotations a pull refused, with the reason.

A pulled annotation version that is not a valid verdict (the same checks as
``audit review add``) is recorded in ``ls_annotations`` with direction
``rejected`` and the reason; nothing enters ``reviews``.  Editing the
annotation in Label Studio makes a new version that is checked again, so an
annotation is listed here only while its latest version is the rejected one.
"""
from __future__ import annotations

import pandas as pd

from audit._util.sql import table_exists
from audit.store import DbPath, connect

REJECTED_COLUMNS = ["project_id", "annotation_id", "task_id", "benchmark", "question_id", "reviewer",
                    "updated_at", "reason"]


def ls_rejected(*, project_id: int | None = None, db: DbPath = None) -> pd.DataFrame:
    """Annotations whose latest version was rejected by a pull, newest first:
    columns ``project_id, annotation_id, task_id, benchmark, question_id,
    reviewer`` (who made the version), ``updated_at`` (Label Studio's time,
    UTC) and ``reason``.

    >>> import tempfile, os
    >>> ls_rejected(db=os.path.join(tempfile.mkdtemp(), "r.duckdb")).columns.tolist()[-1]
    'reason'
    """
    with connect(db) as con:
        if not table_exists(con, "ls_annotations"):
            return pd.DataFrame(columns=REJECTED_COLUMNS)
        return con.execute(
            """
            SELECT project_id, annotation_id, task_id, benchmark, question_id, reviewer, updated_at,
                   note AS reason
            FROM ls_annotations
            WHERE $pid IS NULL OR project_id = $pid
            QUALIFY row_number() OVER (PARTITION BY url, project_id, annotation_id ORDER BY updated_at DESC) = 1
                AND direction = 'rejected'
            ORDER BY updated_at DESC, annotation_id
            """, {"pid": project_id}).df()
