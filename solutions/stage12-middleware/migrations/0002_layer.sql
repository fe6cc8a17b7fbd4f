-- Stage 12: the layer's table, and a second route's. The clients, the payments and
-- stage 8's idempotency_keys (solutions/stage8-key-per-client/migrations/0001_clients.sql)
-- are applied first.

-- ANCHOR: refunds
-- The second route's effect: a refund of (part of) a payment.
CREATE TABLE refunds (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id  BIGINT NOT NULL REFERENCES clients (id),
    payment_id BIGINT NOT NULL REFERENCES payments (id),
    amount     INT    NOT NULL
);
-- ANCHOR_END: refunds

-- ANCHOR: idempotent_requests
-- The fencing tokens of every reservation, of every key: a number is never given
-- twice, even to a key whose row was deleted (released) and made again.
CREATE SEQUENCE idempotent_request_leases;

-- One row per (client, key): the layer's record of a request and of the answer its
-- route gave. The layer knows nothing of payments or refunds: it stores any
-- route's status, the headers worth replaying, and the body as bytes.
CREATE TABLE idempotent_requests (
    client_id   BIGINT NOT NULL REFERENCES clients (id),
    key         TEXT   NOT NULL,
    -- SHA-256 of the method, the path and the normalised body.
    fingerprint TEXT   NOT NULL,
    -- NULL while the request is in flight: reserved, not yet answered. Once set,
    -- never changed: the answer of the key.
    status      INT,
    headers     JSONB,
    -- NULL with a status: the answer was larger than the layer keeps, and is not
    -- replayed (its retries are told so).
    body        BYTEA,
    -- When the key was reserved: a reservation older than the layer's lease, still
    -- without an answer, is taken to belong to a request that died.
    reserved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The fencing token: a new number from the sequence at the reservation and at
    -- each take-over. The request that holds the lease names it in every later
    -- write, which then changes nothing once another request has the key.
    lease       BIGINT NOT NULL DEFAULT nextval('idempotent_request_leases'),
    PRIMARY KEY (client_id, key)
);
-- ANCHOR_END: idempotent_requests
