//! One batch of the reaper: one statement, so one short transaction.

use sqlx::PgPool;

use crate::Config;

// ANCHOR: reap_one_batch
/// One batch: the oldest expired keys, through the `created_at` index. `SKIP
/// LOCKED` passes over a row a request holds (an expired key being taken over by a
/// new request), instead of waiting for it: the reaper never waits for a request,
/// and never deletes a key in flight. A request may wait for a batch, briefly: the
/// batch's rows stay locked until its DELETE commits. A key inserted by a request
/// still in flight is not committed, so no other transaction sees it at all.
pub async fn reap_one_batch(pool: &PgPool, config: &Config) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "WITH expired AS (
            SELECT client_id, key FROM idempotency_keys
            WHERE created_at < now() - $1::interval
            ORDER BY created_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
         )
         DELETE FROM idempotency_keys k USING expired e
         WHERE k.client_id = e.client_id AND k.key = e.key",
    )
    .bind(config.retention_interval())
    .bind(config.reap_batch)
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}
// ANCHOR_END: reap_one_batch
