-- request_hold is a queue: every admitted request inserts one row and its settlement deletes it, so the table holds
-- only the requests in flight (a few hundred rows at most) while thousands of rows a second pass through it. Each
-- index costs every hold an insert into it, and every vacuum of the table a scan of the whole index. Only two
-- lookups run on the request path: the settlement's delete by request id (the primary key) and the spend-limit check
-- of a limited key (request_hold_key_admitted). The sums per account (balance reports), the sweeper's search for
-- expired leases and the holds of stopped instances read so few live rows that a scan of the table serves them.
-- Measured with the benchmark (docs/performance.md): after 150,000 requests, before the first vacuum, the five
-- indexes held 21 MB for a table with no live row, and the concurrency-1 p99 rose as dead rows piled up.
DROP INDEX IF EXISTS request_hold_lease;
DROP INDEX IF EXISTS request_hold_instance;
DROP INDEX IF EXISTS request_hold_account;
