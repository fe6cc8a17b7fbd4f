-- Stage 1: the two tables of the workbook.

-- ANCHOR: payments
-- The effect we must not repeat: one row per payment really made.
CREATE TABLE payments (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id BIGINT NOT NULL,
    amount   INT    NOT NULL
);
-- ANCHOR_END: payments

-- ANCHOR: idempotency_keys
-- One row per Idempotency-Key. The primary key is what makes a second INSERT of
-- the same key wait for the first transaction, then do nothing: the whole
-- workbook rests on it. In production the key is unique per client:
-- PRIMARY KEY (client_id, key).
CREATE TABLE idempotency_keys (
    key        TEXT PRIMARY KEY,
    body_hash  TEXT NOT NULL,
    -- NULL while the first request is still in flight; then the stored answer.
    status     INT,
    response   JSONB,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- ANCHOR_END: idempotency_keys
