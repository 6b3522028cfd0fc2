-- Analyze writes one audit_results row and one key_error_scores row
-- per item of every run (100,000 each at 100,000 items).  The PRIMARY KEYs
-- (run_id, question_id) made those inserts and their commit maintain an ART
-- index that no query uses (every read filters run_id, which the tables'
-- zone maps serve, and joins on question_id).  DuckDB cannot drop a
-- constraint, so both tables are recreated without it, same columns in the
-- same order, same NOT NULLs and defaults.  Uniqueness stays guaranteed by
-- the writers: audit_results rows come from one GROUP BY per question of a
-- run whose run_id is fresh from audit_run_seq; key_error_scores rows of a
-- run are deleted before a run's scores are (re)written
-- (audit.analyze._keyerror.write_scores); tests/test_analyze_identical.py
-- and tests/test_migration_035.py check it.  The views reading the tables
-- (current_audit, current_key_error) bind by name and keep working.

CREATE TABLE audit_results_035 (
    run_id            INTEGER NOT NULL,
    benchmark         VARCHAR NOT NULL,
    question_id       VARCHAR NOT NULL,
    tier              INTEGER,
    bucket            VARCHAR NOT NULL,
    top_answer        VARCHAR,
    agreement_count   INTEGER NOT NULL,
    agreeing_families INTEGER NOT NULL,
    n_models          INTEGER NOT NULL,
    n_valid           INTEGER NOT NULL,
    n_correct         INTEGER NOT NULL
);
INSERT INTO audit_results_035 BY NAME SELECT * FROM audit_results;
DROP TABLE audit_results;
ALTER TABLE audit_results_035 RENAME TO audit_results;

CREATE TABLE key_error_scores_035 (
    run_id          INTEGER NOT NULL,
    benchmark       VARCHAR NOT NULL,
    question_id     VARCHAR NOT NULL,
    score           DOUBLE,
    prior_logit     DOUBLE,
    llr_models      DOUBLE,
    llr_parallel    DOUBLE NOT NULL DEFAULT 0,
    llr_lint        DOUBLE NOT NULL DEFAULT 0,
    p_guessing      DOUBLE,
    alternative     VARCHAR,
    p_alternative   DOUBLE,
    fixed_reason    VARCHAR,
    p_reject        DOUBLE,
    agreement_share DOUBLE,
    llr_judges      DOUBLE DEFAULT 0,
    n_judges        INTEGER DEFAULT 0
);
INSERT INTO key_error_scores_035 BY NAME SELECT * FROM key_error_scores;
DROP TABLE key_error_scores;
ALTER TABLE key_error_scores_035 RENAME TO key_error_scores;
