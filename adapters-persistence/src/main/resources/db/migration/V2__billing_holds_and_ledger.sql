-- Prepaid billing: money held for running requests, and one ledger row per finished request.

-- Money held for requests in flight; balance_micros is what is still available.
ALTER TABLE account ADD COLUMN reserved_micros bigint NOT NULL DEFAULT 0;
ALTER TABLE account ADD CONSTRAINT account_reserved_not_negative CHECK (reserved_micros >= 0);

CREATE TABLE request_hold (
    request_id     text        PRIMARY KEY,
    account_id     uuid        NOT NULL REFERENCES account (id),
    api_key_id     uuid        NOT NULL REFERENCES api_key (id),
    amount_micros  bigint      NOT NULL,
    admitted_at    timestamptz NOT NULL,
    lease_until    timestamptz NOT NULL,
    CONSTRAINT request_hold_amount_not_negative CHECK (amount_micros >= 0)
);
CREATE INDEX request_hold_key_admitted ON request_hold (api_key_id, admitted_at);
CREATE INDEX request_hold_lease ON request_hold (lease_until);

CREATE TABLE request_ledger (
    request_id         text        PRIMARY KEY,   -- one terminal row per request: settling twice is a no-op
    account_id         uuid        NOT NULL REFERENCES account (id),
    api_key_id         uuid        NOT NULL REFERENCES api_key (id),
    key_hash           char(64)    NOT NULL,
    model              text        NOT NULL,
    provider           text,
    prompt_tokens      bigint      NOT NULL,
    completion_tokens  bigint      NOT NULL,
    held_micros        bigint      NOT NULL,
    cost_micros        bigint      NOT NULL,
    status             text        NOT NULL,
    admitted_at        timestamptz NOT NULL,
    finished_at        timestamptz NOT NULL,
    latency_ms         bigint,
    ttft_ms            bigint,
    streamed           boolean     NOT NULL,
    CONSTRAINT request_ledger_cost_within_hold CHECK (cost_micros >= 0 AND cost_micros <= held_micros),
    CONSTRAINT request_ledger_tokens_not_negative CHECK (prompt_tokens >= 0 AND completion_tokens >= 0),
    CONSTRAINT request_ledger_status_known CHECK (status IN ('completed', 'cancelled', 'failed', 'expired'))
);
CREATE INDEX request_ledger_account_finished ON request_ledger (account_id, finished_at DESC);
CREATE INDEX request_ledger_key_finished ON request_ledger (api_key_id, finished_at DESC);
