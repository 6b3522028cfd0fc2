-- A review campaign run in the browser.  Which subjects or items
-- an admin gave to which reviewer: a reviewer with at least one assignment
-- on a benchmark sees only those subjects and items in their queue (leads
-- and admins always see everything).  A row names a subject or an item.
CREATE TABLE review_assignments (
    benchmark    VARCHAR NOT NULL,
    reviewer_key VARCHAR NOT NULL,      -- the account's name, casefolded
    reviewer     VARCHAR NOT NULL,
    subject      VARCHAR,
    question_id  VARCHAR,
    assigned_by  VARCHAR,
    assigned_at  TIMESTAMP NOT NULL
);
