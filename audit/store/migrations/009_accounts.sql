-- Accounts and roles.  Owned by audit/accounts.
-- Passwords are stored only as Argon2id hashes (argon2-cffi); no secret is
-- kept here in clear.  `session_epoch` is part of every signed session
-- token: raising it (disable, reset-password, sign-out) ends the account's
-- sessions.
CREATE TABLE accounts (
    name           VARCHAR PRIMARY KEY,     -- as typed (NFC, spaces collapsed)
    name_key       VARCHAR NOT NULL UNIQUE, -- casefolded name: names compare without regard to case
    role           VARCHAR NOT NULL,        -- reviewer | lead | admin
    password_hash  VARCHAR NOT NULL,        -- Argon2id, PHC string
    disabled       BOOLEAN NOT NULL DEFAULT false,
    session_epoch  INTEGER NOT NULL DEFAULT 0,
    created_at     TIMESTAMP NOT NULL,      -- UTC
    updated_at     TIMESTAMP NOT NULL,      -- UTC
    CHECK (role IN ('reviewer', 'lead', 'admin'))
);

-- Failed sign-ins per (casefolded) name, known or not, for rate limiting.
CREATE TABLE login_failures (
    name_key       VARCHAR PRIMARY KEY,
    failures       INTEGER NOT NULL,
    last_failed_at TIMESTAMP NOT NULL,
    locked_until   TIMESTAMP
);

-- Label Studio: who made each annotation version.  NULL when the
-- annotation's owner (completed_by) made it; else the Label Studio user who
-- edited someone else's annotation — the pulled verdict is theirs.
ALTER TABLE ls_annotations ADD COLUMN edited_by BIGINT;
