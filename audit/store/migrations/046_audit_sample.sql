-- The random audit sample (audit.review.sample): items drawn at random,
-- stratified by key-error score band, subject or nothing, whose settled
-- verdicts give a count of wrong keys that does not rest on the models.
-- A benchmark's latest sample is the one in use.
CREATE TABLE audit_samples (
    sample_id   INTEGER PRIMARY KEY,
    benchmark   VARCHAR NOT NULL,
    design      VARCHAR NOT NULL,          -- 'band' | 'subject' | 'none'
    size        INTEGER NOT NULL,          -- items drawn
    seed        BIGINT,
    run_id      INTEGER,                   -- the audit run whose scores set the bands
    drawn_by    VARCHAR,
    drawn_at    TIMESTAMP NOT NULL
);

-- The frame: every item of the benchmark when the sample was drawn, with its
-- stratum and inclusion probability at that time (the strata are the ones
-- drawn with, never recomputed after a rescore), and whether it was drawn.
CREATE TABLE audit_sample_frame (
    sample_id             INTEGER NOT NULL,
    question_id           VARCHAR NOT NULL,
    stratum               VARCHAR NOT NULL,
    inclusion_probability DOUBLE NOT NULL,
    drawn                 BOOLEAN NOT NULL,
    PRIMARY KEY (sample_id, question_id)
);
