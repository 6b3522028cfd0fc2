-- Model runs through litellm, judge causes, run ownership.
--
-- `audit predict run` asks a model each item of a benchmark and stores one
-- model_calls row per (benchmark, item, model, run, prompt version): the raw
-- response, the provider's separate reasoning text (never extracted from),
-- tokens, cost and latency, and the letter extracted on insert.  The same
-- reply is written to `predictions` (method = the extraction method) in the
-- same transaction, so every analysis sees it.  A rerun asks only items
-- without a row.  No API key is ever stored.

CREATE SEQUENCE predict_run_seq START 1;

CREATE TABLE predict_prompts (
    prompt_version VARCHAR PRIMARY KEY,     -- 'p' + first 12 hex digits of the template's SHA-256
    template       VARCHAR NOT NULL,
    created_at     TIMESTAMP NOT NULL DEFAULT now()
);

CREATE TABLE predict_runs (
    run_id            INTEGER PRIMARY KEY,
    benchmark         VARCHAR NOT NULL,
    model             VARCHAR NOT NULL,     -- the name predictions are stored under
    run               VARCHAR NOT NULL,     -- predictions.run
    prompt_version    VARCHAR NOT NULL,
    method            VARCHAR NOT NULL,     -- extraction method applied on insert
    started_at        TIMESTAMP NOT NULL DEFAULT now(),
    finished_at       TIMESTAMP,
    status            VARCHAR NOT NULL,     -- running | finished | max_cost | interrupted | aborted | no_reply | killed
    stop_reason       VARCHAR,
    config            JSON,                 -- litellm model, api_base (no user info), concurrency, filters (no secrets)
    pid               INTEGER,              -- the process running it (to correct the status of a killed run)
    host              VARCHAR,
    n_selected        INTEGER NOT NULL DEFAULT 0,
    n_cached          INTEGER NOT NULL DEFAULT 0,
    n_requested       INTEGER NOT NULL DEFAULT 0,
    n_ok              INTEGER NOT NULL DEFAULT 0,   -- replies stored
    n_answered        INTEGER NOT NULL DEFAULT 0,   -- replies with an extracted letter
    n_errors          INTEGER NOT NULL DEFAULT 0,
    n_retries         INTEGER NOT NULL DEFAULT 0,
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd          DOUBLE
);

CREATE TABLE model_calls (
    benchmark         VARCHAR NOT NULL,
    question_id       VARCHAR NOT NULL,
    model             VARCHAR NOT NULL,
    run               VARCHAR NOT NULL,
    prompt_version    VARCHAR NOT NULL,
    response          VARCHAR,              -- the reply content exactly as received
    reasoning         VARCHAR,              -- the provider's separate reasoning text, when it returns one
    answer            VARCHAR,              -- extracted letter (NULL when none)
    method            VARCHAR NOT NULL,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    cost_usd          DOUBLE,
    latency_s         DOUBLE,
    attempts          INTEGER,
    finish_reason     VARCHAR,
    run_id            INTEGER,
    created_at        TIMESTAMP NOT NULL DEFAULT now(),
    PRIMARY KEY (benchmark, question_id, model, run, prompt_version)
);

CREATE TABLE predict_errors (
    run_id      INTEGER NOT NULL,
    benchmark   VARCHAR NOT NULL,
    question_id VARCHAR NOT NULL,
    model       VARCHAR NOT NULL,
    error_type  VARCHAR NOT NULL,
    message     VARCHAR,                -- secrets redacted
    attempts    INTEGER NOT NULL,
    created_at  TIMESTAMP NOT NULL DEFAULT now()
);

-- Answers an LLM read from responses the rules left unanswered
-- (--llm-extractor): the extractor's raw reply is kept.
CREATE TABLE llm_extractions (
    benchmark      VARCHAR NOT NULL,
    question_id    VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,
    run            VARCHAR NOT NULL,
    extractor      VARCHAR NOT NULL,     -- litellm model string
    answer         VARCHAR,              -- letter, NULL when the extractor found none
    raw_reply      VARCHAR,
    created_at     TIMESTAMP NOT NULL DEFAULT now(),
    PRIMARY KEY (benchmark, question_id, model, run, extractor)
);

-- A judge reply may name the cause of a wrong key (source_error, translation, ...).
ALTER TABLE judge_verdicts ADD COLUMN cause VARCHAR;
-- Which process runs a judge run (to correct the status of a killed one).
ALTER TABLE judge_runs ADD COLUMN pid INTEGER;
ALTER TABLE judge_runs ADD COLUMN host VARCHAR;
