-- The trap of stage 8, kept for its tests: clients are known, but the key is still
-- global (`key TEXT PRIMARY KEY`, as in stages 1 to 7). Two clients that pick the
-- same key text share one row.

CREATE TABLE clients (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE
);

CREATE TABLE payments (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id BIGINT NOT NULL REFERENCES clients (id),
    order_id  BIGINT NOT NULL,
    amount    INT    NOT NULL
);

CREATE TABLE idempotency_keys (
    key        TEXT PRIMARY KEY,
    client_id  BIGINT NOT NULL REFERENCES clients (id),
    body_hash  TEXT   NOT NULL,
    status     INT,
    response   JSONB,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
