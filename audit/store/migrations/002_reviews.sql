-- Expert reviews (issue 3).  Owned by audit/review.
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

-- The item page reads one item's predictions (about 100 rows) out of ~10 M.
-- Imports append predictions model by model, so zone maps cannot prune and a
-- lookup scans the whole question_id column (~450 ms on 10 M rows on the
-- shared 2-core machine); this index makes it ~6 ms.  Measured cost on
-- 100,000 questions x 100 models: +210 MB on disk, bulk inserts unchanged,
-- deleting a model's rows before re-import ~5x slower (tests/bench/bench_review_api.py).
CREATE INDEX predictions_question ON predictions (question_id);
