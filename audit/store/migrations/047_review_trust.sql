-- A campaign that can weigh its reviewers.  Owned by audit/review (gold.py,
-- reports.py).
--
-- gold_items: known-answer items a lead marked (settled by adjudication or
-- agreement, or imported from a reference).  A verdict on such an item with
-- a review_id above after_review_id is an answer to a known-answer item: it
-- measures its reviewer and never settles the item (the settlement rule
-- leaves it out).  Verdicts recorded before the item was marked keep counting.
CREATE TABLE gold_items (
    benchmark       VARCHAR NOT NULL,
    question_id     VARCHAR NOT NULL,
    answer          VARCHAR NOT NULL,      -- the known answer: one of the item's option labels (Latin)
    origin          VARCHAR NOT NULL,      -- settled | reference
    after_review_id BIGINT NOT NULL,       -- the largest review_id when the item was marked
    added_by        VARCHAR,
    added_at        TIMESTAMP NOT NULL,    -- UTC
    PRIMARY KEY (benchmark, question_id)
);

-- error_reports: what readers outside the team say is wrong with an item,
-- sent without an account.  Never a verdict: nothing here changes a key, a
-- verdict or an export; a lead accepts (credited by name in the next
-- version) or dismisses it.  report_id is random (a receipt that says
-- nothing about how many reports exist); sender_key is a keyed hash of who
-- sent it (the form's client address, or the name or contact given), kept
-- only to limit how many reports one sender may send per hour.
CREATE TABLE error_reports (
    report_id        VARCHAR PRIMARY KEY,
    benchmark        VARCHAR NOT NULL,
    question_id      VARCHAR NOT NULL,
    text             VARCHAR NOT NULL,
    suggested_answer VARCHAR,              -- an option label (Latin), optional
    name             VARCHAR,              -- the name to credit, as given; optional
    contact          VARCHAR,              -- optional; shown to leads only
    sender_key       VARCHAR NOT NULL,
    channel          VARCHAR NOT NULL,     -- form | cli | import
    created_at       TIMESTAMP NOT NULL,   -- UTC, the database clock
    status           VARCHAR NOT NULL DEFAULT 'open',   -- open | accepted | dismissed
    triaged_by       VARCHAR,
    triaged_at       TIMESTAMP,
    credited_version VARCHAR               -- the version whose CHANGELOG and DATASHEET credit it
);
