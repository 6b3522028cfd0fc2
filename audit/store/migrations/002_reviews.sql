-- Expert reviews.  Owned by audit/review.
-- Append-only: rows of `reviews` are never updated or deleted; the latest
-- row of a reviewer on an item is their current verdict, and the settlement
-- rule (audit/review/status.py) is computed from the full history.
CREATE SEQUENCE review_seq START 1;

CREATE TABLE reviews (
    review_id        BIGINT PRIMARY KEY DEFAULT nextval('review_seq'),
    benchmark        VARCHAR NOT NULL,
    question_id      VARCHAR NOT NULL,
    reviewer         VARCHAR NOT NULL,
    created_at       TIMESTAMP NOT NULL,   -- UTC
    verdict          VARCHAR NOT NULL,     -- key_correct | key_wrong | ambiguous | defective | skip
    corrected_answer VARCHAR,              -- a Latin label; set exactly when verdict = key_wrong
    cause            VARCHAR,              -- key_slip | translation | cultural | source_error | formatting | other
    rationale        VARCHAR,
    proposed_fix     VARCHAR,
    is_adjudication  BOOLEAN NOT NULL DEFAULT false,
    source           VARCHAR NOT NULL,     -- 'workbench' | 'cli' | 'import' | 'label_studio'
    app_version      VARCHAR NOT NULL,
    external_id      VARCHAR,              -- e.g. Label Studio annotation id@updated_at
    CHECK (verdict IN ('key_correct', 'key_wrong', 'ambiguous', 'defective', 'skip')),
    CHECK ((verdict = 'key_wrong') = (corrected_answer IS NOT NULL)),
    CHECK (cause IS NULL OR cause IN ('key_slip', 'translation', 'cultural', 'source_error', 'formatting', 'other')),
    CHECK (NOT (is_adjudication AND verdict = 'skip'))
);

-- Review settings (lead reviewers, required reviews per item).  A setting is
-- a small JSON value under a name; `value` is replaced when it is set again.
CREATE TABLE review_settings (
    name       VARCHAR PRIMARY KEY,      -- 'leads' | 'required_reviews'
    value      JSON NOT NULL,
    updated_at TIMESTAMP NOT NULL         -- UTC
);

-- No index on predictions: an ART index on question_id makes a warm lookup
-- fast, but each per-operation connection loads it again (~210 ms cold on
-- 10 M rows) and it adds ~210 MB.  The item page relies on zone maps instead:
-- see audit.review.layout.cluster_predictions (rows ordered by item).
