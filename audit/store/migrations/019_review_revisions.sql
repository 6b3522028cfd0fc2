-- Verdict revisions and who recorded a verdict.  Owned by
-- audit/review/_record.py.
-- * is_revision: the reviewer already had a verdict (not a skip) on the item
--   and explicitly revised it (a later skip is no revision: it replaces nothing) (add_review(..., revision=True), CLI --revise,
--   or an edited Label Studio annotation).  A second verdict without it is
--   refused.  Existing rows are marked once here, so the history shows
--   earlier revisions as such.
-- * recorded_by: the signed account that recorded the row when it is not the
--   reviewer (an admin or lead importing a file of verdicts); NULL when the
--   reviewer recorded it themselves.
ALTER TABLE reviews ADD COLUMN is_revision BOOLEAN DEFAULT false;
ALTER TABLE reviews ADD COLUMN recorded_by VARCHAR;
UPDATE reviews SET is_revision = true WHERE review_id IN (
    SELECT review_id FROM (
        SELECT review_id, verdict,
               count(*) FILTER (WHERE verdict <> 'skip') OVER (
                   PARTITION BY benchmark, question_id, lower(reviewer), is_adjudication ORDER BY review_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
        FROM reviews
    ) WHERE before > 0 AND verdict <> 'skip'
);
