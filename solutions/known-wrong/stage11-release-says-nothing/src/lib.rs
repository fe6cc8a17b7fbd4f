//! Known wrong: stage 11's model answer, with a `release` that never says
//! whether the lease was still ours (it returned `()` before issue 34). A
//! request that was taken over, whose provider call fails at last, answers 502
//! ("retry: the retry finishes this payment") for a key another request holds.

#[allow(unused)]
#[path = "../../../stage11-payment-provider/src/lib.rs"]
mod answer;
pub use answer::*;

use payment_model::PaymentError;
use sqlx::PgPool;

// ANCHOR: release_says_nothing
pub async fn release(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    lease: Lease,
) -> Result<bool, PaymentError> {
    sqlx::query(
        "UPDATE idempotency_keys SET locked_until = now()
         WHERE client_id = $1 AND key = $2 AND lease = $3
           AND recovery_point IN ('started', 'charged')",
    )
    .bind(client.0)
    .bind(key)
    .bind(lease.0)
    .execute(pool)
    .await?;
    // The mistake: the lease is taken to be ours, whatever the UPDATE found.
    Ok(true)
}
// ANCHOR_END: release_says_nothing
