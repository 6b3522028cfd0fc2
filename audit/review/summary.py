"""The reviewer summary per item, as SQL the later stages embed (the review
stage owns ``reviews``; exports read it through this, not through a copy).

:data:`REVIEWER_SUMMARY_CTES` defines two relations for ``$benchmark``:

* ``latest`` — each reviewer's latest non-skip review per item (adjudications
  kept apart: one row per question_id, reviewer, is_adjudication with
  ``rn = 1``), answers to known-answer items left out (they never settle
  anything, :mod:`audit.review.gold`);
* ``rv`` — per item: ``n_reviewers`` (distinct reviewers, adjudications not
  counted), ``reviewers`` (``"name; name (adjudication)"``, adjudications
  first), ``rationale`` and ``proposed_fix`` (``"name: text | ..."``) and ``review_dates``
  (distinct ``YYYY-MM-DD``, space-separated).

Use it as ``WITH {REVIEWER_SUMMARY_CTES}, ... SELECT ... LEFT JOIN rv USING
(question_id)``.
"""
from __future__ import annotations

REVIEWER_SUMMARY_CTES = """
latest AS (
            SELECT question_id, reviewer, verdict, corrected_answer, rationale, proposed_fix, created_at,
                   is_adjudication,
                   row_number() OVER (PARTITION BY question_id, reviewer, is_adjudication
                                      ORDER BY review_id DESC) AS rn
            FROM reviews r WHERE benchmark = $benchmark AND verdict <> 'skip'
              AND NOT EXISTS (SELECT 1 FROM gold_items g WHERE g.benchmark = r.benchmark
                              AND g.question_id = r.question_id AND r.review_id > g.after_review_id)
        ), rv AS (
            SELECT question_id,
                   count(DISTINCT reviewer) FILTER (WHERE NOT is_adjudication) AS n_reviewers,
                   string_agg(reviewer || CASE WHEN is_adjudication THEN ' (adjudication)' ELSE '' END, '; '
                              ORDER BY is_adjudication DESC, reviewer) AS reviewers,
                   string_agg(reviewer || CASE WHEN is_adjudication THEN ' (adjudication)' ELSE '' END
                              || ': ' || rationale, ' | '
                              ORDER BY is_adjudication DESC, reviewer)
                       FILTER (WHERE rationale IS NOT NULL) AS rationale,
                   string_agg(reviewer || CASE WHEN is_adjudication THEN ' (adjudication)' ELSE '' END
                              || ': ' || proposed_fix, ' | '
                              ORDER BY is_adjudication DESC, reviewer)
                       FILTER (WHERE proposed_fix IS NOT NULL) AS proposed_fix,
                   string_agg(DISTINCT strftime(created_at, '%Y-%m-%d'), ' '
                              ORDER BY strftime(created_at, '%Y-%m-%d')) AS review_dates
            FROM latest WHERE rn = 1 GROUP BY question_id
)"""


__all__ = ["REVIEWER_SUMMARY_CTES"]
