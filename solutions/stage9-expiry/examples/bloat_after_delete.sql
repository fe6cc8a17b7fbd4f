-- What a batch DELETE gives back, measured by hand (stage 9's chapter, "Expiry at
-- scale"): `psql -f solutions/stage9-expiry/examples/bloat_after_delete.sql` against
-- a scratch database. It creates and drops its own table `bloat_keys`.
SET client_min_messages = warning;
DROP TABLE IF EXISTS bloat_keys;
CREATE TABLE bloat_keys (
    client_id  BIGINT NOT NULL,
    key        TEXT   NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    status     INT,
    response   JSONB,
    PRIMARY KEY (client_id, key)
);
CREATE INDEX ON bloat_keys (created_at);
-- Only the VACUUM below runs, at a known moment.
ALTER TABLE bloat_keys SET (autovacuum_enabled = false);

INSERT INTO bloat_keys
SELECT 1, 'old-' || g, now() - interval '2 days' + g * interval '1 ms', 201,
       '{"id":"1","orderId":1,"amount":100,"status":"approved"}'
FROM generate_series(1, 500000) g;
SELECT 'filled: 500000 keys' AS step, pg_size_pretty(pg_table_size('bloat_keys')) AS heap,
       pg_size_pretty(pg_indexes_size('bloat_keys')) AS indexes;

-- The reaper's work, in one go: the oldest half expires.
DELETE FROM bloat_keys WHERE key LIKE 'old-%' AND created_at < now() - interval '2 days' + interval '250 seconds';
SELECT 'oldest 250000 deleted', pg_size_pretty(pg_table_size('bloat_keys')),
       pg_size_pretty(pg_indexes_size('bloat_keys'));

VACUUM bloat_keys;
SELECT 'vacuumed', pg_size_pretty(pg_table_size('bloat_keys')),
       pg_size_pretty(pg_indexes_size('bloat_keys'));

-- A day of new keys.
INSERT INTO bloat_keys
SELECT 1, 'new-' || g, now() + g * interval '1 ms', 201,
       '{"id":"1","orderId":1,"amount":100,"status":"approved"}'
FROM generate_series(1, 250000) g;
SELECT '250000 new keys', pg_size_pretty(pg_table_size('bloat_keys')),
       pg_size_pretty(pg_indexes_size('bloat_keys'));

DROP TABLE bloat_keys;
