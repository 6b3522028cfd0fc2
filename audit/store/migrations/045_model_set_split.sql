-- The key-error score splits a rejected key into a wrong key and a shared
-- misconception by a level (the benchmark's rate of wrong keys, a Beta prior
-- in key_error_params kind 'split') and an allocation that depends on the
-- model set (audit.analyze.keyerror._split).  Per item: evidence_share (the
-- models' log LR as a share of the most the set can give), top_holds (the
-- most accurate model gives the key), alloc_wrong / alloc_right (h1, h0 of
-- the allocation, mean 1 over the scored items).
ALTER TABLE key_error_scores ADD COLUMN evidence_share DOUBLE;
ALTER TABLE key_error_scores ADD COLUMN top_holds DOUBLE;
ALTER TABLE key_error_scores ADD COLUMN alloc_wrong DOUBLE;
ALTER TABLE key_error_scores ADD COLUMN alloc_right DOUBLE;
-- The allocation after the settled verdicts moved the subjects' rates.
ALTER TABLE key_error_evidence ADD COLUMN alloc_wrong DOUBLE;
ALTER TABLE key_error_evidence ADD COLUMN alloc_right DOUBLE;
-- The level after the verdicts: π ~ Beta(pi_a, pi_b), s ~ Beta(s_a, s_b);
-- only the random audit sample moves pi_a / pi_b (audit.analyze.keyerror._level).
ALTER TABLE key_error_evidence_state ADD COLUMN pi_a DOUBLE;
ALTER TABLE key_error_evidence_state ADD COLUMN pi_b DOUBLE;
ALTER TABLE key_error_evidence_state ADD COLUMN s_a DOUBLE;
ALTER TABLE key_error_evidence_state ADD COLUMN s_b DOUBLE;
