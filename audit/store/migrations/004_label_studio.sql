-- Label Studio sync state.  Owned by audit/sync.
-- No table holds the API token: a connection is a URL and a project id.
-- Label Studio is the remote side; these tables record what this database
-- has sent and seen, so a sync that is interrupted and rerun converges.

-- A connected project.  The latest connected_at is the default project.
CREATE TABLE ls_projects (
    url          VARCHAR NOT NULL,
    project_id   INTEGER NOT NULL,
    title        VARCHAR NOT NULL,
    label_config VARCHAR NOT NULL,        -- the labeling config last sent
    connected_at TIMESTAMP NOT NULL,      -- UTC
    last_push_at TIMESTAMP,
    last_pull_at TIMESTAMP,
    PRIMARY KEY (url, project_id)
);

-- One task per item.  external_id = '<benchmark>::<question_id>' is also in
-- the task data (data.audit_id), so tasks are found again by a Data Manager
-- filter even when this table lost track (a push killed after the import).
CREATE TABLE ls_tasks (
    url          VARCHAR NOT NULL,
    project_id   INTEGER NOT NULL,
    external_id  VARCHAR NOT NULL,
    benchmark    VARCHAR NOT NULL,
    question_id  VARCHAR NOT NULL,
    task_id      BIGINT,                  -- NULL while the import is only intended
    content_hash VARCHAR NOT NULL,        -- of the task data last sent (data.audit_hash)
    state        VARCHAR NOT NULL,        -- 'pending' (intent recorded) | 'synced'
    updated_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (url, project_id, external_id)
);

-- Label Studio users ↔ reviewer names.  A reviewer pulled from Label Studio
-- is the user's email unless the user was linked to a workbench reviewer
-- (the account created for that reviewer when their verdicts were pushed).
CREATE TABLE ls_users (
    url        VARCHAR NOT NULL,
    ls_user_id BIGINT NOT NULL,
    email      VARCHAR NOT NULL,
    reviewer   VARCHAR NOT NULL,
    PRIMARY KEY (url, ls_user_id)
);

-- Every annotation version this database has seen or written:
-- (annotation_id, updated_at) is the identity of a version, so pulling it
-- again appends nothing, and an edited annotation is a new version.
CREATE TABLE ls_annotations (
    url           VARCHAR NOT NULL,
    project_id    INTEGER NOT NULL,
    annotation_id BIGINT NOT NULL,
    updated_at    VARCHAR NOT NULL,       -- exactly as Label Studio reports it
    task_id       BIGINT NOT NULL,
    benchmark     VARCHAR NOT NULL,
    question_id   VARCHAR NOT NULL,
    ls_user_id    BIGINT NOT NULL,
    reviewer      VARCHAR NOT NULL,
    direction     VARCHAR NOT NULL,       -- 'pulled' | 'pushed' | 'conflict' | 'rejected'
    review_id     BIGINT,                 -- the reviews row this version is (NULL when rejected)
    content_hash  VARCHAR,                -- of (verdict, answer, cause, rationale, fix)
    note          VARCHAR,                -- why a version was rejected
    recorded_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (url, project_id, annotation_id, updated_at)
);

-- Annotations deleted in Label Studio.  The reviews they produced stay.
CREATE TABLE ls_deletions (
    url            VARCHAR NOT NULL,
    project_id     INTEGER NOT NULL,
    annotation_id  BIGINT NOT NULL,
    task_id        BIGINT NOT NULL,
    benchmark      VARCHAR NOT NULL,
    question_id    VARCHAR NOT NULL,
    reviewer       VARCHAR NOT NULL,
    last_review_id BIGINT,
    detected_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (url, project_id, annotation_id)
);

-- Remote annotation writes about to happen (recorded and committed before
-- the request).  A rerun after a crash adopts the annotation it finds for
-- (task, user) with the same content instead of creating a second one.
CREATE SEQUENCE ls_intent_seq START 1;
CREATE TABLE ls_intents (
    intent_id     BIGINT PRIMARY KEY DEFAULT nextval('ls_intent_seq'),
    url           VARCHAR NOT NULL,
    project_id    INTEGER NOT NULL,
    task_id       BIGINT NOT NULL,
    ls_user_id    BIGINT NOT NULL,
    annotation_id BIGINT,                 -- NULL for a create
    review_id     BIGINT NOT NULL,        -- the workbench review being sent
    content_hash  VARCHAR NOT NULL,       -- of (verdict, answer, cause, rationale, fix)
    created_at    TIMESTAMP NOT NULL
);

-- Both sides changed the same reviewer's verdict since the last sync: both
-- reviews are kept and the item is disputed until the reviewer records a
-- later verdict or a lead adjudicates.
CREATE TABLE ls_conflicts (
    url                    VARCHAR NOT NULL,
    project_id             INTEGER NOT NULL,
    benchmark              VARCHAR NOT NULL,
    question_id            VARCHAR NOT NULL,
    reviewer               VARCHAR NOT NULL,
    annotation_id          BIGINT NOT NULL,
    workbench_review_id    BIGINT NOT NULL,
    label_studio_review_id BIGINT NOT NULL,
    detected_at            TIMESTAMP NOT NULL
);

-- Open conflicts, for the review status logic (an item listed here is disputed).
CREATE VIEW review_conflicts AS
SELECT c.benchmark, c.question_id, c.reviewer, c.workbench_review_id,
       c.label_studio_review_id, c.detected_at
FROM ls_conflicts c
WHERE NOT EXISTS (
    SELECT 1 FROM reviews r
    WHERE r.benchmark = c.benchmark AND r.question_id = c.question_id
      AND r.review_id > greatest(c.workbench_review_id, c.label_studio_review_id)
      AND (r.reviewer = c.reviewer OR r.is_adjudication)
);
