-- Evidence-blind review and the campaign's guidelines.  Owned by
-- audit/review/blind.py and audit/review/guidelines.py.
--
-- * blind_answers: in an evidence-blind campaign (review setting
--   'blind_review') a reviewer first answers the question with nothing
--   shown but the question, then sees the evidence and records a verdict.
--   The answer given blind is kept here, append-only: one row per reviewer
--   and item (the first; a later one would no longer be blind).  `answer`
--   is a Latin label, NULL when the reviewer could not name one option.
-- * review_guidelines: the campaign's guidelines, Markdown per interface
--   language; every save is a new version (all languages of a version are
--   kept together), never an update.
-- * reviews.guideline_version: the version in force when the verdict was
--   recorded (NULL: no guidelines yet).
CREATE SEQUENCE blind_answer_seq START 1;
CREATE TABLE blind_answers (
    blind_id          BIGINT PRIMARY KEY DEFAULT nextval('blind_answer_seq'),
    benchmark         VARCHAR NOT NULL,
    question_id       VARCHAR NOT NULL,
    reviewer          VARCHAR NOT NULL,
    answer            VARCHAR,              -- a Latin label; NULL = could not name one
    created_at        TIMESTAMP NOT NULL,   -- UTC, the database clock
    source            VARCHAR NOT NULL,     -- 'workbench' | 'cli' | 'label_studio' | 'import'
    guideline_version INTEGER
);

CREATE TABLE review_guidelines (
    version     INTEGER NOT NULL,
    language    VARCHAR NOT NULL,       -- 'en' | 'zh-Hans' | 'bo'
    text        VARCHAR NOT NULL,       -- Markdown, shown escaped (no HTML, no images)
    created_at  TIMESTAMP NOT NULL,     -- UTC
    created_by  VARCHAR,
    PRIMARY KEY (version, language)
);

ALTER TABLE reviews ADD COLUMN guideline_version INTEGER;
