-- Settings a deployment's processes must agree on, kept with the data they govern. 'key-hasher': the fingerprint
-- of the key pepper the stored key hashes were made with (KeyHasher.fingerprint), so a process with another pepper
-- is refused at start-up instead of issuing keys that never match.
CREATE TABLE deployment_setting (
    name  text PRIMARY KEY,
    value text NOT NULL
);
