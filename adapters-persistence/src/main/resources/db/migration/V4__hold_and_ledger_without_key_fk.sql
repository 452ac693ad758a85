-- Every hold and every ledger row used to check its api_key_id against api_key: a foreign-key check is a
-- SELECT ... FOR KEY SHARE on the key's row, so every request of a busy key locked the same row (with many requests
-- in flight, a multixact per lock) inside the transaction that places its hold. Keys are never removed (a deleted
-- key keeps its row, with deleted_at set), so the check protects nothing the application does not already ensure:
-- a hold is placed only for a key just authenticated from that table.
ALTER TABLE request_hold DROP CONSTRAINT request_hold_api_key_id_fkey;
ALTER TABLE request_ledger DROP CONSTRAINT request_ledger_api_key_id_fkey;
