//! Known wrong: stage 11's model answer, with stage 9's reaper: every key older
//! than the retention window is deleted, finished or not. A `charged` key goes
//! with the only record of its charge.

use sqlx::PgPool;
pub use stage11_answer::*;

// ANCHOR: reap_by_age
pub async fn reap(pool: &PgPool, config: &Config) -> Result<Reaped, sqlx::Error> {
    // The mistake: age alone decides, whatever the key's recovery point.
    let deleted =
        sqlx::query("DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval")
            .bind(config.retention_interval())
            .execute(pool)
            .await?
            .rows_affected();
    Ok(Reaped {
        deleted,
        stranded: Vec::new(),
    })
}
// ANCHOR_END: reap_by_age
