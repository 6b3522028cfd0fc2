-- The key-error model tells a wrong key from a shared
-- misconception only through a prior learned from expert labels (and the
-- campaign's settled verdicts).  p_reject is the probability that the
-- models' shared answer is not the key (key wrong OR shared misconception);
-- score stays P(key wrong), the calibrated probability.
ALTER TABLE key_error_scores ADD COLUMN p_reject DOUBLE;
ALTER TABLE key_error_evidence ADD COLUMN p_reject DOUBLE;
-- agreement_share: the share of the models' usable answers on the most chosen
-- non-key option; it selects the item's band of the misconception split φ.
ALTER TABLE key_error_scores ADD COLUMN agreement_share DOUBLE;
