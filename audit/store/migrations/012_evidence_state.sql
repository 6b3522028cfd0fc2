-- A review step under a second.  What the stored combined
-- evidence score (key_error_evidence) was computed from, so a new verdict
-- refreshes only the rows it changes (audit.review.evidence.refresh_evidence):
-- the audit run, a fingerprint of the other inputs (the fit's scores, judge
-- verdicts, parallel keys, the global rate) and the settled expert verdicts
-- used, as JSON {question_id: verdict}.
CREATE TABLE key_error_evidence_state (
    benchmark   VARCHAR PRIMARY KEY,
    run_id      INTEGER NOT NULL,
    fingerprint VARCHAR NOT NULL,
    settled     VARCHAR NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
