-- Per-instance slices of account balances (docs/decisions.md, "Balance slices").
--
-- Updating one account row for every hold and every settlement made that row the bottleneck: every request of an
-- account queued on its lock, and each update left a dead row version that the next lookup had to step over. Now a
-- gateway instance moves a slice of an account's balance into balance_slice in one transaction and places holds
-- against that slice in its memory; settlements are written in batches. Every hold is still a committed row in
-- request_hold before anything goes upstream.
--
-- Money at rest:  credits - charges = balance_micros + reserved_micros
--                 reserved_micros   = sum(balance_slice.amount_micros) + holds placed before this migration
-- What an account can still spend = balance_micros + reserved_micros - sum(open holds).

-- Gateway instances that hold slices; an instance renews alive_until while it runs. Holds and slices of an instance
-- whose alive_until has passed are released by any other instance's sweeper.
CREATE TABLE gateway_instance (
    id           text        PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    alive_until  timestamptz NOT NULL
);

-- Money taken from an account's balance by one instance: granted minus what its settled requests were charged
-- minus what it gave back. Covers that instance's open holds of the account and its unused remainder.
CREATE TABLE balance_slice (
    account_id     uuid   NOT NULL REFERENCES account (id),
    instance_id    text   NOT NULL,
    amount_micros  bigint NOT NULL,
    PRIMARY KEY (account_id, instance_id),
    CONSTRAINT balance_slice_amount_not_negative CHECK (amount_micros >= 0)
);

-- The instance whose slice covers the hold (NULL: a hold placed before slices, paid from reserved_micros directly).
ALTER TABLE request_hold ADD COLUMN instance_id text;
CREATE INDEX request_hold_instance ON request_hold (instance_id);
CREATE INDEX request_hold_account ON request_hold (account_id);

-- Holds and ledger rows are written in batches many times a second; a foreign-key check on the account row takes a
-- share lock on the busiest row of all. The account is reachable through the key (api_key.account_id references it).
ALTER TABLE request_hold DROP CONSTRAINT request_hold_account_id_fkey;
ALTER TABLE request_ledger DROP CONSTRAINT request_ledger_account_id_fkey;

-- Small, often-updated tables: vacuum them after a fixed number of changes, not a fraction of their (tiny) size.
ALTER TABLE account SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500);
ALTER TABLE balance_slice SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500);
ALTER TABLE api_key_spend SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500);
ALTER TABLE request_hold SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000);
