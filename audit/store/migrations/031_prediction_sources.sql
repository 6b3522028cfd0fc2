-- Prediction sets read in place (audit.store._sources).
-- A registered Parquet file, folder or glob (local, s3://, hf://) whose rows
-- are predictions of one benchmark, read where they are instead of copied.
-- `relation_sql` is the SELECT (built at registration by
-- audit.ingest._in_place) that yields the predictions columns from the
-- fingerprinted files; `listing` the files as [[name, size, token], ...]
-- (token: ETag, blob id or mtime) and `fingerprint` its SHA-256.
-- Credentials are never stored: they come from the environment on read.
CREATE TABLE prediction_sources (
    benchmark     VARCHAR NOT NULL,
    uri           VARCHAR NOT NULL,
    protocol      VARCHAR NOT NULL,          -- 'file' | 's3' | 'hf'
    mapping       JSON,                      -- {"file column": "predictions column"} or NULL
    model         VARCHAR,                   -- --model for files without a model column
    run           VARCHAR,                   -- --run for rows without a run
    files         VARCHAR[] NOT NULL,
    listing       JSON NOT NULL,
    revision      VARCHAR,                   -- hf: the revision the files were listed at
    fingerprint   VARCHAR NOT NULL,
    n_rows        BIGINT NOT NULL,
    n_valid       BIGINT NOT NULL,
    models        VARCHAR[] NOT NULL,
    relation_sql  VARCHAR NOT NULL,
    registered_at TIMESTAMP NOT NULL DEFAULT now(),
    PRIMARY KEY (benchmark, uri)
);

-- The predictions relation every reader uses: the stored predictions, and
-- (a temporary view of the same name, made on connect when sources exist)
-- the rows of the registered sources.
CREATE VIEW all_predictions AS
    SELECT benchmark, question_id, model, run, response, answer, method, valid FROM predictions;
