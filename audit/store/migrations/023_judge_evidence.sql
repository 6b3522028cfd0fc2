-- Judge runs' verdicts enter the fitted score with a weight
-- estimated from the data (audit.analyze._keyerror.judge_evidence).
-- llr_judges: their summed, weighted log LR (key wrong : key right);
-- n_judges: how many judge runs gave a verdict on the item.  Each run's
-- sensitivity, specificity and weight are key_error_params rows of kind
-- 'judge_run' (name = '<judge> <prompt version>').
ALTER TABLE key_error_scores ADD COLUMN llr_judges DOUBLE DEFAULT 0;
ALTER TABLE key_error_scores ADD COLUMN n_judges INTEGER DEFAULT 0;
