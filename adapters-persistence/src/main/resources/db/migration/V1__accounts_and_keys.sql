-- Accounts, management keys, regular API keys and per-key spend windows.
-- Money is integer micro-USD (1 USD = 1,000,000). Timestamps are timestamptz at millisecond precision.

CREATE TABLE account (
    id              uuid        PRIMARY KEY,
    email           text        NOT NULL,
    email_verified  boolean     NOT NULL DEFAULT false,
    balance_micros  bigint      NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT account_email_normalised CHECK (email = lower(btrim(email)) AND length(email) BETWEEN 3 AND 254),
    CONSTRAINT account_balance_not_negative CHECK (balance_micros >= 0)
);
CREATE UNIQUE INDEX account_email_uq ON account (email);

CREATE TABLE management_key (
    id          uuid        PRIMARY KEY,
    account_id  uuid        NOT NULL REFERENCES account (id),
    name        text        NOT NULL,
    access      text        NOT NULL,
    key_hash    char(64)    NOT NULL,
    label       text        NOT NULL,
    disabled    boolean     NOT NULL DEFAULT false,
    expires_at  timestamptz,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    seq         bigint      GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT management_key_hash_hex CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT management_key_access_known CHECK (access IN ('read_only', 'read_write')),
    CONSTRAINT management_key_name_length CHECK (length(name) BETWEEN 1 AND 128)
);
CREATE UNIQUE INDEX management_key_hash_uq ON management_key (key_hash);
CREATE UNIQUE INDEX management_key_account_name_uq ON management_key (account_id, name);

CREATE TABLE api_key (
    id            uuid        PRIMARY KEY,
    account_id    uuid        NOT NULL REFERENCES account (id),
    key_hash      char(64)    NOT NULL,
    label         text        NOT NULL,
    name          text        NOT NULL,
    disabled      boolean     NOT NULL DEFAULT false,
    limit_micros  bigint,
    limit_reset   text,
    expires_at    timestamptz,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    deleted_at    timestamptz,
    seq           bigint      GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT api_key_hash_hex CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT api_key_name_length CHECK (length(name) BETWEEN 1 AND 128),
    CONSTRAINT api_key_limit_positive CHECK (limit_micros IS NULL OR limit_micros > 0),
    CONSTRAINT api_key_limit_reset_known CHECK (limit_reset IS NULL OR limit_reset IN ('daily', 'weekly', 'monthly')),
    CONSTRAINT api_key_limit_reset_requires_limit CHECK (limit_reset IS NULL OR limit_micros IS NOT NULL)
);
CREATE UNIQUE INDEX api_key_hash_uq ON api_key (key_hash);
CREATE INDEX api_key_account_newest ON api_key (account_id, created_at DESC, seq DESC) WHERE deleted_at IS NULL;

-- What each key has spent: one row per key and window ('lifetime' has the epoch as its start).
CREATE TABLE api_key_spend (
    api_key_id    uuid        NOT NULL REFERENCES api_key (id),
    period        text        NOT NULL,
    period_start  timestamptz NOT NULL,
    spent_micros  bigint      NOT NULL,
    PRIMARY KEY (api_key_id, period, period_start),
    CONSTRAINT api_key_spend_period_known CHECK (period IN ('lifetime', 'daily', 'weekly', 'monthly')),
    CONSTRAINT api_key_spend_not_negative CHECK (spent_micros >= 0)
);
