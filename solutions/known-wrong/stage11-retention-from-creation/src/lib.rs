//! Known wrong: stage 11's model answer, with a reaper that counts retention
//! from the key's first use (`created_at`, the model answer before issue 34). A
//! key finished today by the retry of a request that died days ago is deleted at
//! once: the retention window, "how long a finished key replays its answer", is
//! gone before it began.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use sqlx::PgPool;

// ANCHOR: retention_from_creation
pub async fn reap(pool: &PgPool, config: &Config) -> Result<Reaped, sqlx::Error> {
    // The mistake: the window counts from the key's first use.
    let deleted = sqlx::query(
        "DELETE FROM idempotency_keys
         WHERE recovery_point = 'finished' AND created_at < now() - $1::interval",
    )
    .bind(config.retention_interval())
    .execute(pool)
    .await?
    .rows_affected();
    Ok(Reaped {
        deleted,
        stranded: Vec::new(),
    })
}
// ANCHOR_END: retention_from_creation
