-- Stage 8: the tables, with clients. Edit the primary key of idempotency_keys below.

-- ANCHOR: clients
-- Who may call the API. The token itself is never stored: a leaked table must not
-- let anyone call the API. It is a long random secret, so one SHA-256 is enough
-- (a slow password hash protects guessable secrets; a random token is not one).
CREATE TABLE clients (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    -- SHA-256 of the bearer token, lower-case hex.
    token_hash TEXT NOT NULL UNIQUE
);
-- ANCHOR_END: clients

CREATE TABLE payments (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id BIGINT NOT NULL REFERENCES clients (id),
    order_id  BIGINT NOT NULL,
    amount    INT    NOT NULL
);

-- ANCHOR: idempotency_keys
-- A key is the client's name for one operation: two clients may pick the same
-- text, and they mean two operations. The primary key makes (client, key) the
-- identity, so the duplicates of one client wait for each other, and never for
-- another client's request.
CREATE TABLE idempotency_keys (
    -- Stage 8: this is still stages 1 to 7's global key. Make the key belong to
    -- its client: the primary key is the pair (client_id, key).
    key        TEXT PRIMARY KEY,
    client_id  BIGINT NOT NULL REFERENCES clients (id),
    body_hash  TEXT   NOT NULL,
    status     INT,
    response   JSONB,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- ANCHOR_END: idempotency_keys
