-- Corrected answer-key versions.  Owned by the export stage (audit/export).
-- A version is immutable: rows are inserted once, in the same transaction
-- that renames the version's folder into exports/<benchmark>/<version>/,
-- and are never updated or deleted.

CREATE TABLE key_versions (
    benchmark     VARCHAR NOT NULL,
    version       VARCHAR NOT NULL,          -- '1.0', '1.1', '2.0.1' (see audit.export.names)
    parent        VARCHAR,                   -- NULL for 1.0 (the original keys)
    policy        VARCHAR NOT NULL,          -- named policy (audit.export.policy.POLICIES)
    created_at    TIMESTAMP NOT NULL,
    path          VARCHAR NOT NULL,          -- folder the version was written to
    n_items       INTEGER NOT NULL,
    n_corrected   INTEGER NOT NULL,
    n_excluded    INTEGER NOT NULL,
    n_unchanged   INTEGER NOT NULL,          -- included items keeping the original key
    n_reviewed    INTEGER NOT NULL,          -- items with at least one non-skip review
    data_sha256   VARCHAR NOT NULL,          -- sha256 over the sorted (file, sha256) list of data files
    tool_version  VARCHAR NOT NULL,
    PRIMARY KEY (benchmark, version)
);

-- Each version's key and inclusion for every item: what `audit export diff`
-- compares and what lineage queries read.
CREATE TABLE key_version_items (
    benchmark      VARCHAR NOT NULL,
    version        VARCHAR NOT NULL,
    question_id    VARCHAR NOT NULL,
    original_key   VARCHAR,
    answer_key     VARCHAR,                  -- the key in this version
    included       BOOLEAN NOT NULL,
    action         VARCHAR NOT NULL,         -- 'unchanged' | 'corrected' | 'excluded'
    exclusion_list VARCHAR,                  -- e.g. 'ambiguous', 'defective' when excluded
    verdict        VARCHAR,                  -- settled verdict that decided the action, if any
    PRIMARY KEY (benchmark, version, question_id)
);
