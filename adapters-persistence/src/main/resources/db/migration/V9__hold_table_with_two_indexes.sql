-- request_hold is a queue: every admitted request inserts one row and its settlement deletes it, so the table holds
-- only the requests in flight (a few hundred rows at most) while thousands of rows a second pass through it. Each
-- index costs every hold an insert into it, and every vacuum of the table a scan of the whole index. Only two
-- lookups run on the request path: the settlement's delete by request id (the primary key) and the spend-limit check
-- of a limited key (request_hold_key_admitted). The sums per account (balance reports), the sweeper's search for
-- expired leases and the holds of stopped instances read so few live rows that a scan of the table serves them.
-- Measured on the benchmark's concurrency-1 run (docs/performance.md): the five indexes grew to 21 MB between two
-- vacuums at 2,000 requests a second, and the concurrency-1 p99 rose as they did.
DROP INDEX IF EXISTS request_hold_lease;
DROP INDEX IF EXISTS request_hold_instance;
DROP INDEX IF EXISTS request_hold_account;
