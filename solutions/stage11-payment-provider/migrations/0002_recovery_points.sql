-- Stage 11: recovery points. The provider's charge cannot be part of a database
-- transaction, so a payment is made in phases that each commit, and the key
-- records the last one that did: a retry resumes from there.

-- ANCHOR: recovery_points
-- Lease numbers, for every key: a number is never given twice, not even to a key
-- that was reaped and used again, so a request that was taken over (or that
-- outlived its key) never holds the number of the key's current request.
CREATE SEQUENCE idempotency_key_leases;

ALTER TABLE idempotency_keys
    -- started:  the key is reserved; the provider may or may not have been called.
    -- charged:  the provider confirmed the charge (charge_id); no payment row yet.
    -- unknown:  the provider's final answer does not say whether it charged (or
    --           the provider may have forgotten the key): reconciliation settles
    --           it; the pending answer (status, response) is replayed until then.
    -- finished: the answer (status, response) is stored: the payment row with
    --           it, or the provider's refusal (no payment, nothing charged).
    ADD COLUMN recovery_point TEXT NOT NULL DEFAULT 'started'
        CHECK (recovery_point IN ('started', 'charged', 'unknown', 'finished')),
    -- Until when the request that holds the key is presumed alive. Past it, a
    -- request with the same key takes the unfinished key over.
    ADD COLUMN locked_until TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- The fencing token: which lease this is, a new number at each takeover.
    -- Every write after the reservation names the lease it holds, and changes
    -- nothing once another request took the key over.
    ADD COLUMN lease BIGINT NOT NULL DEFAULT nextval('idempotency_key_leases'),
    -- The provider's id of the charge, once it confirmed one.
    ADD COLUMN charge_id TEXT,
    -- When the answer was stored: the retention window counts from here.
    ADD COLUMN finished_at TIMESTAMPTZ,
    ADD CHECK ((recovery_point = 'finished') = (finished_at IS NOT NULL));

-- One payment row per charge: a charge can never be recorded twice.
ALTER TABLE payments ADD COLUMN charge_id TEXT NOT NULL UNIQUE;
-- ANCHOR_END: recovery_points
