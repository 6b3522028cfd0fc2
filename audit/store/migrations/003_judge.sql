-- LLM-judge verdicts.  Owned by the judge stage (audit/judge/).
--
-- One row per (benchmark, question, judge, prompt version): a judge is asked
-- once per prompt version; reruns skip items that already have a row.
-- Failed requests (HTTP errors, timeouts after all retries) are NOT verdicts:
-- they go to judge_errors and the item is asked again on the next run.
-- Replies that arrived but could not be parsed ARE stored (parse_ok = false,
-- raw_reply kept, the answer columns NULL) and are not re-asked unless the
-- run is started with --retry-unparsed.  No API key is ever stored.

CREATE SEQUENCE judge_run_seq START 1;

-- The prompt templates, by version (= 'p' + first 12 hex digits of the
-- SHA-256 of the template text), so every verdict can be traced to its prompt.
CREATE TABLE judge_prompts (
    prompt_version VARCHAR PRIMARY KEY,
    template       VARCHAR NOT NULL,
    created_at     TIMESTAMP NOT NULL DEFAULT now()
);

-- One row per judge run (a litellm run or an import), with its totals.
-- Totals are updated as results arrive, so an interrupted run's row still
-- shows what was spent; status stays 'running' when the process was killed.
CREATE TABLE judge_runs (
    run_id            INTEGER PRIMARY KEY,
    benchmark         VARCHAR NOT NULL,
    judge             VARCHAR NOT NULL,     -- litellm model string, or the --judge name of an import
    prompt_version    VARCHAR NOT NULL,
    source            VARCHAR NOT NULL,     -- 'litellm' | 'import' | 'panel'
    started_at        TIMESTAMP NOT NULL DEFAULT now(),
    finished_at       TIMESTAMP,
    status            VARCHAR NOT NULL,     -- 'running' | 'finished' | 'max_cost' | 'interrupted' | 'aborted'
    stop_reason       VARCHAR,
    config            JSON,                 -- concurrency, timeout, retries, filters, api_base (no secrets)
    n_selected        INTEGER NOT NULL DEFAULT 0,   -- items matching the filters
    n_cached          INTEGER NOT NULL DEFAULT 0,   -- already judged, not asked again
    n_requested       INTEGER NOT NULL DEFAULT 0,   -- items sent to the judge in this run
    n_ok              INTEGER NOT NULL DEFAULT 0,   -- replies parsed
    n_parse_failed    INTEGER NOT NULL DEFAULT 0,   -- replies stored raw, parse_ok = false
    n_errors          INTEGER NOT NULL DEFAULT 0,   -- requests failed after all retries
    n_retries         INTEGER NOT NULL DEFAULT 0,   -- retried attempts (429 / 5xx / timeout)
    prompt_tokens     BIGINT NOT NULL DEFAULT 0,
    completion_tokens BIGINT NOT NULL DEFAULT 0,
    cost_usd          DOUBLE,                        -- NULL when the price is unknown
    file_path         VARCHAR                        -- imports: the file read
);

CREATE TABLE judge_verdicts (
    benchmark          VARCHAR NOT NULL,
    question_id        VARCHAR NOT NULL,
    judge              VARCHAR NOT NULL,
    prompt_version     VARCHAR NOT NULL,
    answer_key_correct BOOLEAN,            -- NULL when parse_ok = false
    correct_answer     VARCHAR,            -- Latin label A-F; the key itself or NULL when the key is judged correct
    explanation        VARCHAR,
    confidence         DOUBLE,             -- 0..1, NULL when absent or not a number in range
    raw_reply          VARCHAR,            -- the reply text exactly as received (imports: the llm_validation JSON)
    parse_ok           BOOLEAN NOT NULL,
    parse_error        VARCHAR,            -- why parsing failed (NULL when parse_ok)
    prompt_tokens      INTEGER,
    completion_tokens  INTEGER,
    cost_usd           DOUBLE,             -- per call, from litellm; NULL when unknown
    latency_s          DOUBLE,             -- wall time of the successful attempt
    attempts           INTEGER,            -- 1 + retries
    run_id             INTEGER,
    created_at         TIMESTAMP NOT NULL DEFAULT now(),
    source             VARCHAR NOT NULL,   -- 'litellm' | 'import' | 'panel'
    PRIMARY KEY (benchmark, question_id, judge, prompt_version)
);

-- Requests that failed after every retry (kept for diagnosis; secrets redacted).
CREATE TABLE judge_errors (
    run_id      INTEGER NOT NULL,
    benchmark   VARCHAR NOT NULL,
    question_id VARCHAR NOT NULL,
    judge       VARCHAR NOT NULL,
    error_type  VARCHAR NOT NULL,   -- e.g. 'RateLimitError', 'Timeout', 'InternalServerError'
    message     VARCHAR,
    attempts    INTEGER NOT NULL,
    created_at  TIMESTAMP NOT NULL DEFAULT now()
);
