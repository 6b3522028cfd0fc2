"""The per-item judge verdict text as SQL the later stages embed (the judge
stage owns ``judge_verdicts``; exports read it through this, not a copy)."""
from __future__ import annotations

import duckdb

from audit._util.sql import table_columns


def verdict_summary_sql(con: duckdb.DuckDBPyConnection) -> str:
    """SQL of the per-item judge verdict text of ``$benchmark`` (columns
    question_id, judge_verdict: ``"judge: key correct; judge: key wrong -> C"``),
    read defensively: the judge table may be absent or lack columns in a
    database from another tool version.  Exports embed it."""
    cols = table_columns(con, "judge_verdicts")
    if not {"benchmark", "question_id", "judge", "answer_key_correct"} <= cols:
        return "SELECT NULL::VARCHAR AS question_id, NULL::VARCHAR AS judge_verdict WHERE false"
    answer = "correct_answer" if "correct_answer" in cols else "NULL::VARCHAR"
    return f"""
        SELECT question_id,
               string_agg(DISTINCT judge || ': ' ||
                   CASE WHEN answer_key_correct IS NULL THEN 'no verdict'
                        WHEN answer_key_correct THEN 'key correct'
                        ELSE 'key wrong' || coalesce(' -> ' || {answer}, '') END,
                   '; ' ORDER BY judge || ': ' ||
                   CASE WHEN answer_key_correct IS NULL THEN 'no verdict'
                        WHEN answer_key_correct THEN 'key correct'
                        ELSE 'key wrong' || coalesce(' -> ' || {answer}, '') END) AS judge_verdict
        FROM judge_verdicts WHERE benchmark = $benchmark GROUP BY question_id"""

