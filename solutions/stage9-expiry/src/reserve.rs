//! The reservation with expiry: a key older than the retention window is taken
//! over by the new request instead of replayed.

use sqlx::PgConnection;
use stage8::ClientId;

use crate::Config;

// ANCHOR: reserve
/// Reserves `(client, key)` for this request, within the retention window; returns
/// how many rows it inserted or took over (1: this request pays; 0: replay).
///
/// A new key is inserted. An expired one is taken over: its row gets this
/// request's hash, no answer yet, and a new created_at, as if it were new. An
/// unexpired one is left alone (0 rows). Like stage 3's `DO NOTHING`, the `DO
/// UPDATE` waits for a request in flight with the key, then looks at its outcome.
pub async fn reserve(
    tx: &mut PgConnection,
    client: ClientId,
    key: &str,
    hash: &str,
    config: &Config,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO idempotency_keys AS k (client_id, key, body_hash) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO UPDATE
            SET body_hash = EXCLUDED.body_hash, status = NULL, response = NULL,
                created_at = EXCLUDED.created_at
            WHERE k.created_at < now() - $4::interval",
    )
    .bind(client.0)
    .bind(key)
    .bind(hash)
    .bind(config.retention_interval())
    .execute(tx)
    .await?;
    Ok(done.rows_affected())
}
// ANCHOR_END: reserve
