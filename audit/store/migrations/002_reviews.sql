-- Expert reviews (issue 3).  Append-only: rows are never updated or deleted.
CREATE SEQUENCE review_seq START 1;

CREATE TABLE reviews (
    review_id        BIGINT PRIMARY KEY DEFAULT nextval('review_seq'),
    benchmark        VARCHAR NOT NULL,
    question_id      VARCHAR NOT NULL,
    reviewer         VARCHAR NOT NULL,
    created_at       TIMESTAMP NOT NULL,
    verdict          VARCHAR NOT NULL,     -- key_correct | key_wrong | ambiguous | defective | skip
    corrected_answer VARCHAR,              -- required when verdict = key_wrong
    cause            VARCHAR,              -- key_slip | translation | cultural | source_error | formatting | other
    rationale        VARCHAR,
    proposed_fix     VARCHAR,
    is_adjudication  BOOLEAN NOT NULL DEFAULT false,
    source           VARCHAR NOT NULL,     -- 'workbench' | 'cli' | 'import' | 'label_studio'
    app_version      VARCHAR NOT NULL,
    external_id      VARCHAR                -- e.g. Label Studio annotation id@updated_at
);
