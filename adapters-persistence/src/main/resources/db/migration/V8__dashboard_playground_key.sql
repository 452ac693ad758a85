-- The regular key that bills a signed-in dashboard user's playground requests in user-billed mode (one per account,
-- created on the first such request; docs/decisions.md, "Playground page"). Its secret was never kept or shown.
CREATE TABLE dashboard_playground_key (
    account_id  uuid      PRIMARY KEY REFERENCES account (id),
    api_key_id  uuid      NOT NULL REFERENCES api_key (id),
    key_hash    char(64)  NOT NULL,
    CONSTRAINT dashboard_playground_key_hash_hex CHECK (key_hash ~ '^[0-9a-f]{64}$')
);
