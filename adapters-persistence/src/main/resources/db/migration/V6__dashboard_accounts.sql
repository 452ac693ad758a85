-- The account dashboard: passwords, sessions, and when management keys were last used.

-- One dashboard password per account (accounts opened by the operator CLI have none and cannot sign in).
-- Only an Argon2id hash in the PHC string format is kept, never the password.
CREATE TABLE account_password (
    account_id     uuid        PRIMARY KEY REFERENCES account (id),
    password_hash  text        NOT NULL,
    updated_at     timestamptz NOT NULL,
    CONSTRAINT account_password_phc CHECK (password_hash LIKE '$%' AND length(password_hash) <= 512)
);

-- Signed-in browsers. The token itself lives only in the browser's cookie; the server keeps its SHA-256.
CREATE TABLE dashboard_session (
    token_hash    char(64)    PRIMARY KEY,
    account_id    uuid        NOT NULL REFERENCES account (id),
    csrf_token    text        NOT NULL,   -- synchronizer token of the session's forms
    created_at    timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,   -- written at most once a minute (idle expiry)
    expires_at    timestamptz NOT NULL,   -- absolute expiry
    CONSTRAINT dashboard_session_hash_hex CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT dashboard_session_csrf_hex CHECK (csrf_token ~ '^[0-9a-f]{64}$')
);
CREATE INDEX dashboard_session_account ON dashboard_session (account_id);

-- When a management key last authenticated, to the minute (null: never).
ALTER TABLE management_key ADD COLUMN last_used_at timestamptz;
