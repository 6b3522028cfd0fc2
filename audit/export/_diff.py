"""``diff_versions``: items whose key or inclusion differs between two
versions of a benchmark (set-based, from ``key_version_items``)."""
from __future__ import annotations

import pandas as pd

from audit.errors import NotFoundError
from audit.export.names import validate_benchmark, validate_version
from audit.store import DbPath, connect

DIFF_COLUMNS = ["question_id", "subject", "change", "key_a", "key_b", "included_a", "included_b",
                "exclusion_list_b", "verdict_b"]


def diff_versions(benchmark: str, a: str, b: str, *, db: DbPath = None) -> pd.DataFrame:
    """Items whose key or inclusion changed from version *a* to version *b*.

    Columns :data:`DIFF_COLUMNS`; ``change`` is ``key``, ``inclusion``,
    ``key+inclusion``, ``added`` or ``removed`` (items present in one version
    only).  Rows in the benchmark's import order (items no longer in the
    benchmark last, by id).  ``diff_versions(B, a, a)`` is empty.
    """
    validate_benchmark(benchmark)
    validate_version(a)
    validate_version(b)
    with connect(db, read_only=True) as con:
        known = {r[0] for r in con.execute(
            "SELECT version FROM key_versions WHERE benchmark = ? AND version IN (?, ?)", [benchmark, a, b]).fetchall()}
        for v in (a, b):
            if v not in known:
                raise NotFoundError(f"'{benchmark}' has no version {v}; see 'audit export list {benchmark}'")
        return con.execute(
            """
            WITH va AS (SELECT * FROM key_version_items WHERE benchmark = $bench AND version = $a),
                 vb AS (SELECT * FROM key_version_items WHERE benchmark = $bench AND version = $b),
                 j AS (
                   SELECT coalesce(va.question_id, vb.question_id) AS question_id,
                          va.answer_key AS key_a, vb.answer_key AS key_b,
                          va.included AS included_a, vb.included AS included_b,
                          vb.exclusion_list AS exclusion_list_b, vb.verdict AS verdict_b,
                          CASE WHEN va.question_id IS NULL THEN 'added'
                               WHEN vb.question_id IS NULL THEN 'removed'
                               WHEN va.answer_key IS DISTINCT FROM vb.answer_key AND va.included <> vb.included
                                    THEN 'key+inclusion'
                               WHEN va.answer_key IS DISTINCT FROM vb.answer_key THEN 'key'
                               WHEN va.included <> vb.included THEN 'inclusion' END AS change
                   FROM va FULL OUTER JOIN vb USING (question_id))
            SELECT j.question_id, q.subject, j.change, j.key_a, j.key_b, j.included_a, j.included_b,
                   j.exclusion_list_b, j.verdict_b
            FROM j LEFT JOIN questions q ON q.benchmark = $bench AND q.question_id = j.question_id
            WHERE j.change IS NOT NULL
            ORDER BY q.seq NULLS LAST, j.question_id
            """,
            {"bench": benchmark, "a": a, "b": b},
        ).df()[DIFF_COLUMNS]
