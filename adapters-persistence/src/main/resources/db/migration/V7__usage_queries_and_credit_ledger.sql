-- The dashboard's usage pages and the ledger of credits.

-- Usage is read per account (or per key, or per account and model) by the time a request was admitted: the instant
-- that also puts its spend into a key's daily, weekly and monthly window. Nothing reads request_ledger by
-- finished_at, so its two finished_at indexes are replaced rather than joined (request_ledger is written on every
-- request). The account index carries what the daily aggregation needs, for index-only scans.
DROP INDEX request_ledger_account_finished;
DROP INDEX request_ledger_key_finished;
CREATE INDEX request_ledger_account_admitted ON request_ledger (account_id, admitted_at DESC, request_id DESC)
    INCLUDE (api_key_id, model, cost_micros, prompt_tokens, completion_tokens);
CREATE INDEX request_ledger_key_admitted ON request_ledger (api_key_id, admitted_at DESC, request_id DESC);
CREATE INDEX request_ledger_account_model_admitted ON request_ledger (account_id, model, admitted_at DESC,
    request_id DESC);

-- Every credit to an account's balance, written in the same transaction as the balance change.
CREATE TABLE account_credit (
    id                    uuid        PRIMARY KEY,
    account_id            uuid        NOT NULL REFERENCES account (id),
    amount_micros         bigint      NOT NULL,
    source                text        NOT NULL,
    note                  text        NOT NULL,
    balance_after_micros  bigint      NOT NULL,   -- what the account could spend right after the credit
    created_at            timestamptz NOT NULL,
    seq                   bigint      GENERATED ALWAYS AS IDENTITY,
    CONSTRAINT account_credit_amount_positive CHECK (amount_micros > 0),
    CONSTRAINT account_credit_balance_not_negative CHECK (balance_after_micros >= 0),
    CONSTRAINT account_credit_source_known CHECK (source IN ('operator', 'migrated')),
    CONSTRAINT account_credit_note_length CHECK (length(note) <= 200)
);
CREATE INDEX account_credit_account_newest ON account_credit (account_id, created_at DESC, seq DESC);

-- Credits made before this ledger existed left no rows. Money at rest says credits - charges = balance_micros +
-- reserved_micros, so each funded account gets one line carrying what it must have been credited until now.
INSERT INTO account_credit (id, account_id, amount_micros, source, note, balance_after_micros, created_at)
SELECT gen_random_uuid(), a.id, a.balance_micros + a.reserved_micros + coalesce(s.charged, 0), 'migrated',
       'Credits before the credit ledger existed',
       greatest(0, a.balance_micros + a.reserved_micros
           - (SELECT coalesce(sum(h.amount_micros), 0) FROM request_hold h WHERE h.account_id = a.id)),
       now()
FROM account a
LEFT JOIN (SELECT account_id, sum(cost_micros) AS charged FROM request_ledger GROUP BY account_id) s
       ON s.account_id = a.id
WHERE a.balance_micros + a.reserved_micros + coalesce(s.charged, 0) > 0;
