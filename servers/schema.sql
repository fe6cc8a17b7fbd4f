-- The two tables of the source article, with its Portuguese names, shared by every
-- server in this folder (Python and TypeScript, correct and wrong).
--
-- Idempotent: each server runs this file when it starts, so starting twice, or two
-- servers at once on the same database, is safe. The advisory lock serialises two
-- concurrent runs: CREATE TABLE IF NOT EXISTS alone can still fail with a unique
-- violation in the catalog when two sessions create the same table at the same moment.
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('idempotency-workbook servers/schema.sql'));

CREATE TABLE IF NOT EXISTS pagamentos (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pedido_id BIGINT NOT NULL,
    valor INT NOT NULL
);

CREATE TABLE IF NOT EXISTS chaves_idempotencia (
    -- The unique constraint that makes a second INSERT of the same key wait for the
    -- first transaction, then do nothing. In production: PRIMARY KEY (cliente_id, chave).
    chave TEXT PRIMARY KEY,
    hash_corpo TEXT NOT NULL,
    status_http INT,
    resposta JSONB,
    criada_em TIMESTAMPTZ NOT NULL DEFAULT now()
);

COMMIT;
