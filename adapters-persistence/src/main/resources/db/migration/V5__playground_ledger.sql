-- What the anonymous public playground cost the operator (§8.2): one row per request, like request_ledger but with
-- no account and no key. No source address or browser principal is kept.
CREATE TABLE playground_ledger (
    request_id         text        PRIMARY KEY,   -- recording a request twice is a no-op
    model              text        NOT NULL,
    provider           text,
    prompt_tokens      bigint      NOT NULL,
    completion_tokens  bigint      NOT NULL,
    cost_micros        bigint      NOT NULL,
    status             text        NOT NULL,
    finished_at        timestamptz NOT NULL,
    latency_ms         bigint,
    ttft_ms            bigint,
    streamed           boolean     NOT NULL,
    CONSTRAINT playground_ledger_amounts_not_negative
        CHECK (cost_micros >= 0 AND prompt_tokens >= 0 AND completion_tokens >= 0),
    CONSTRAINT playground_ledger_status_known CHECK (status IN ('completed', 'cancelled', 'failed'))
);
CREATE INDEX playground_ledger_finished ON playground_ledger (finished_at DESC);
