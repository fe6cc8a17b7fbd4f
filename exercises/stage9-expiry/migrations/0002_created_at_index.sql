-- Stage 9: the tables are stage 8's (solutions/stage8-key-per-client/migrations/
-- 0001_clients.sql), applied first; this file adds what the reaper needs.

-- Stage 9: the reaper asks for the oldest keys first, a batch at a time, among
-- those older than the retention window:
--   WHERE created_at < cutoff ORDER BY created_at LIMIT n
-- Create the index that answers this without reading the whole table.
