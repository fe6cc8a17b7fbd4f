-- Stage 9: the index the reaper needs. The tables are stage 8's
-- (solutions/stage8-key-per-client/migrations/0001_clients.sql), applied first.

-- ANCHOR: index
-- The reaper asks for the oldest keys first, a batch at a time, among those older
-- than the retention window: `WHERE created_at < cutoff ORDER BY created_at LIMIT n`.
-- This index answers it by reading the n entries at its start, whatever the size
-- of the table; without it, every batch reads the whole table and sorts it.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
-- ANCHOR_END: index
