//! Known wrong: stage 11's model answer, with a `release` that names no lease.
//! A request taken over, whose provider call fails at last, ends the lease of
//! the request that took the key over: a duplicate then takes the key over
//! while that request is still alive.

use payment_model::PaymentError;
use sqlx::PgPool;
pub use stage11_answer::*;

// ANCHOR: unfenced_release
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    _lease: Lease,
) -> Result<(), PaymentError> {
    // The mistake: any unfinished key, whoever holds its lease now.
    sqlx::query(
        "UPDATE idempotency_keys SET locked_until = now()
         WHERE client_id = $1 AND key = $2 AND recovery_point <> 'finished'",
    )
    .bind(client.0)
    .bind(key)
    .execute(pool)
    .await?;
    Ok(())
}
// ANCHOR_END: unfenced_release
