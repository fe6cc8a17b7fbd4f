//! Known wrong: stage 11's model answer, with a `release` that names no lease.
//! A request taken over, whose provider call fails at last, ends the lease of
//! the request that took the key over: a duplicate then takes the key over
//! while that request is still alive.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;
use sqlx::PgPool;

// ANCHOR: unfenced_release
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    _lease: Lease,
) -> Result<bool, PaymentError> {
    // The mistake: any unfinished key, whoever holds its lease now.
    let released = sqlx::query(
        "UPDATE idempotency_keys SET locked_until = now()
         WHERE client_id = $1 AND key = $2 AND recovery_point IN ('started', 'charged')",
    )
    .bind(client.0)
    .bind(key)
    .execute(pool)
    .await?;
    Ok(released.rows_affected() == 1)
}
// ANCHOR_END: unfenced_release
