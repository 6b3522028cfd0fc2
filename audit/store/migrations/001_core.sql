-- Core engine tables: questions, models, predictions, reference labels,
-- parallel links, audit runs/results.  Owned by the store.

CREATE TABLE benchmarks (
    name        VARCHAR PRIMARY KEY,
    source      VARCHAR NOT NULL,          -- 'tlue', 'questions', 'helm', 'mmlu-redux', 'demo', ...
    source_path VARCHAR,
    created_at  TIMESTAMP NOT NULL DEFAULT now()
);

-- One row per item.  `options` keeps the item's own order; labels are always
-- Latin A-F in storage (Tibetan ཀ ཁ ག ང are mapped on import).
CREATE TABLE questions (
    benchmark         VARCHAR NOT NULL,
    question_id       VARCHAR NOT NULL,
    seq               INTEGER NOT NULL,       -- import order, for stable listings
    subject           VARCHAR,
    language          VARCHAR,                -- BCP-47-ish: 'bo', 'zh-Hans', 'ug', 'kk-Arab', 'mn-Mong', 'en'
    script            VARCHAR,                -- ISO 15924: 'Tibt', 'Hans', 'Hant', 'Arab', 'Mong', 'Latn'
    stem              VARCHAR NOT NULL,       -- NFC-normalised question text without the options
    options           STRUCT(label VARCHAR, text VARCHAR)[] NOT NULL,
    answer_key        VARCHAR,                -- a label, or the raw key when flagged key_not_in_options
    explanation       VARCHAR,
    raw_text          VARCHAR,                -- the text exactly as imported (before NFC / option parsing)
    source_record     JSON,                   -- the whole raw input record
    structure_suspect BOOLEAN NOT NULL DEFAULT false,
    structure_reason  VARCHAR,
    flags             VARCHAR[] NOT NULL DEFAULT [],   -- e.g. 'key_not_in_options', 'duplicate_options'
    PRIMARY KEY (benchmark, question_id)
);

CREATE TABLE models (
    name          VARCHAR PRIMARY KEY,
    family        VARCHAR NOT NULL,
    provider      VARCHAR,
    family_source VARCHAR NOT NULL DEFAULT 'inferred'   -- 'inferred' | 'set'
);

-- No primary key on purpose: 10 M-row imports must not build an ART index.
-- Uniqueness of (benchmark, question_id, model, run) is kept by the importers
-- (they replace the rows of the (benchmark, model, run) they load).
CREATE TABLE predictions (
    benchmark   VARCHAR NOT NULL,
    question_id VARCHAR NOT NULL,
    model       VARCHAR NOT NULL,
    run         VARCHAR NOT NULL DEFAULT 'default',
    response    VARCHAR,                 -- raw response text (NULL when only a letter was given)
    answer      VARCHAR,                 -- extracted/given letter A-F, NULL when invalid
    method      VARCHAR NOT NULL,        -- 'caa' | 'da' | 'given'
    valid       BOOLEAN NOT NULL
);

CREATE TABLE reference_labels (
    benchmark   VARCHAR NOT NULL,
    question_id VARCHAR NOT NULL,
    label_set   VARCHAR NOT NULL,        -- e.g. 'mmlu_redux_error_type'
    value       VARCHAR NOT NULL,
    PRIMARY KEY (benchmark, question_id, label_set)
);

CREATE TABLE parallel_links (
    benchmark             VARCHAR NOT NULL,
    question_id           VARCHAR NOT NULL,
    counterpart_source    VARCHAR NOT NULL,   -- e.g. 'cmmlu'
    counterpart_id        VARCHAR NOT NULL,   -- e.g. 'agronomy.csv:7'
    counterpart_language  VARCHAR,
    counterpart_stem      VARCHAR NOT NULL,
    counterpart_options   STRUCT(label VARCHAR, text VARCHAR)[] NOT NULL,
    counterpart_key       VARCHAR,
    key_match             BOOLEAN NOT NULL,
    PRIMARY KEY (benchmark, question_id, counterpart_source)
);

CREATE SEQUENCE audit_run_seq START 1;

CREATE TABLE audit_runs (
    run_id      INTEGER PRIMARY KEY,
    benchmark   VARCHAR NOT NULL,
    created_at  TIMESTAMP NOT NULL DEFAULT now(),
    config      JSON NOT NULL,            -- t1, t2, incomplete policy, model set, N
    models      VARCHAR[] NOT NULL
);

-- Tier per question for one audit run.  tier: 0..5, or NULL with
-- bucket = 'incomplete' when --incomplete separate put it aside.
CREATE TABLE audit_results (
    run_id            INTEGER NOT NULL,
    benchmark         VARCHAR NOT NULL,
    question_id       VARCHAR NOT NULL,
    tier              INTEGER,
    bucket            VARCHAR NOT NULL,    -- 'tier0'..'tier5' | 'incomplete'
    top_answer        VARCHAR,             -- top non-key candidate letter
    agreement_count   INTEGER NOT NULL,    -- models choosing top_answer
    agreeing_families INTEGER NOT NULL,    -- distinct families among them
    n_models          INTEGER NOT NULL,
    n_valid           INTEGER NOT NULL,
    n_correct         INTEGER NOT NULL,
    PRIMARY KEY (run_id, question_id)
);

CREATE TABLE audit_lint (
    run_id      INTEGER NOT NULL,
    benchmark   VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,          -- 'key_not_in_options' | 'duplicate_options' | 'constant_predictor' | ...
    question_id VARCHAR,
    model       VARCHAR,
    detail      VARCHAR
);

-- The latest audit run of each benchmark is the one every page reads.
CREATE VIEW current_audit AS
SELECT r.*
FROM audit_results r
JOIN (SELECT benchmark, max(run_id) AS run_id FROM audit_runs GROUP BY benchmark) l
  USING (benchmark, run_id);
