-- Key-error score: per item, the probability that the answer key
-- is wrong, from the latent-class model of audit.analyze.keyerror, stored
-- with each audit run.  A later refit with settled expert verdicts
-- (audit.review.evidence.rescore) replaces the rows of the same run.

CREATE TABLE key_error_scores (
    run_id        INTEGER NOT NULL,
    benchmark     VARCHAR NOT NULL,
    question_id   VARCHAR NOT NULL,
    score         DOUBLE,              -- P(key wrong | evidence at fit time); NULL: not scored (multi-answer key)
    prior_logit   DOUBLE,              -- logit of the subject's wrong-key rate
    llr_models    DOUBLE,              -- log likelihood ratio (key wrong : key right) of the models' answers
    llr_parallel  DOUBLE NOT NULL DEFAULT 0,   -- of the parallel source's key (match / mismatch)
    llr_lint      DOUBLE NOT NULL DEFAULT 0,   -- of duplicate options
    p_guessing    DOUBLE,              -- P(the models were guessing on this item)
    alternative   VARCHAR,             -- most probable true answer other than the key
    p_alternative DOUBLE,
    fixed_reason  VARCHAR,             -- 'key_not_in_options' | 'no_key' | 'multi_answer' | NULL
    PRIMARY KEY (run_id, question_id)
);

-- Fitted parameters: kind 'model' (name = model: reliability, weight),
-- 'family' (name = family: error correlation), 'subject' (name = subject:
-- wrong-key rate), 'global' (name = parameter).
CREATE TABLE key_error_params (
    run_id    INTEGER NOT NULL,
    benchmark VARCHAR NOT NULL,
    kind      VARCHAR NOT NULL,
    name      VARCHAR NOT NULL,
    param     VARCHAR NOT NULL,
    value     DOUBLE,
    n         DOUBLE,                  -- how much data the value rests on (items)
    PRIMARY KEY (run_id, kind, name, param)
);

CREATE VIEW current_key_error AS
SELECT s.*
FROM key_error_scores s
JOIN (SELECT benchmark, max(run_id) AS run_id FROM audit_runs GROUP BY benchmark) l
  USING (benchmark, run_id);

-- The score with the evidence gathered since the fit: judge and panel
-- verdicts (each judge weighted by its agreement with experts), the parallel
-- source's key weighted by its measured agreement, settled expert verdicts
-- (the item itself and its subject's rate).  Recomputed for the whole
-- benchmark after every appended review (audit.review.evidence).
CREATE TABLE key_error_evidence (
    benchmark       VARCHAR NOT NULL,
    question_id     VARCHAR NOT NULL,
    run_id          INTEGER NOT NULL,      -- the audit run whose fit it builds on
    score           DOUBLE,                -- P(key wrong | all evidence); NULL: not scored
    prior_logit     DOUBLE,                -- logit of the subject's rate, updated by settled verdicts
    llr_parallel    DOUBLE NOT NULL DEFAULT 0,
    llr_judges      DOUBLE NOT NULL DEFAULT 0,
    n_judges        INTEGER NOT NULL DEFAULT 0,
    settled_verdict VARCHAR,               -- the settled expert verdict, when there is one
    updated_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (benchmark, question_id)
);
