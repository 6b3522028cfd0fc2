-- (1) Question ids are Unicode NFC everywhere (texts already
-- were): ids stored before in another spelling are normalised.  Where both
-- spellings of one id exist in a table keyed by it, the row already in NFC
-- is kept and the other dropped (they are the same item).
-- (2) A review's created_at is the database clock at insertion; a time
-- claimed by an imported file (or a Label Studio annotation) goes to
-- claimed_at.  Verdict order is insertion order (review_id).

DELETE FROM questions t WHERE question_id <> nfc_normalize(question_id) AND EXISTS (
    SELECT 1 FROM questions u WHERE u.benchmark = t.benchmark AND u.question_id = nfc_normalize(t.question_id));
UPDATE questions SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

DELETE FROM reference_labels t WHERE question_id <> nfc_normalize(question_id) AND EXISTS (
    SELECT 1 FROM reference_labels u WHERE u.benchmark = t.benchmark AND u.label_set = t.label_set
      AND u.question_id = nfc_normalize(t.question_id));
UPDATE reference_labels SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

DELETE FROM parallel_links t WHERE question_id <> nfc_normalize(question_id) AND EXISTS (
    SELECT 1 FROM parallel_links u WHERE u.benchmark = t.benchmark AND u.counterpart_source = t.counterpart_source
      AND u.question_id = nfc_normalize(t.question_id));
UPDATE parallel_links SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

DELETE FROM audit_results t WHERE question_id <> nfc_normalize(question_id) AND EXISTS (
    SELECT 1 FROM audit_results u WHERE u.run_id = t.run_id AND u.question_id = nfc_normalize(t.question_id));
UPDATE audit_results SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

DELETE FROM judge_verdicts t WHERE question_id <> nfc_normalize(question_id) AND EXISTS (
    SELECT 1 FROM judge_verdicts u WHERE u.benchmark = t.benchmark AND u.judge = t.judge
      AND u.prompt_version = t.prompt_version AND u.question_id = nfc_normalize(t.question_id));
UPDATE judge_verdicts SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

DELETE FROM key_version_items t WHERE question_id <> nfc_normalize(question_id) AND EXISTS (
    SELECT 1 FROM key_version_items u WHERE u.benchmark = t.benchmark AND u.version = t.version
      AND u.question_id = nfc_normalize(t.question_id));
UPDATE key_version_items SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

UPDATE predictions SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE audit_lint SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE reviews SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE judge_errors SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE ls_tasks SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE ls_annotations SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE ls_deletions SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);
UPDATE ls_conflicts SET question_id = nfc_normalize(question_id) WHERE question_id <> nfc_normalize(question_id);

-- (3) A counterpart without a key (an empty CMMLU Answer) is not a key
-- mismatch: key_match is NULL (unknown) for it.
ALTER TABLE parallel_links ALTER COLUMN key_match DROP NOT NULL;

ALTER TABLE reviews ADD COLUMN claimed_at TIMESTAMP;   -- UTC; the time the source claimed (never in the future)
