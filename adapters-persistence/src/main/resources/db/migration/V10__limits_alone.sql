-- Gateway instances that decide traffic limits alone because the shared Redis store is unreachable from them. Each
-- writes its row with a short lease, renews it while alone and deletes it when it shares again (a crashed one's row
-- simply runs out). While another live instance is alone, an instance that reaches Redis keeps to its own share of
-- every limit as well, so that all of them together stay within the limit (docs/operations.md).
CREATE TABLE limits_alone (
    instance_id  text        PRIMARY KEY,
    alive_until  timestamptz NOT NULL
);
