//! Stage 2: the naive version. Write `create_payment` as "check, then write",
//! the way most code first does it, and let the tests show what 20 concurrent
//! requests with one key do to it.
//!
//! Run `cargo workbook stage 2`; `cargo workbook hint 2` when stuck.

// The imports and arguments are what you will need; these allows go once you use them.
#![allow(unused_imports, unused_variables)]

use payment_model::{PaymentError, PaymentRequest, RaceWindow, Reply, raw_body_hash};
use sqlx::PgPool;

/// Check, then write.
///
/// 1. Parse the body with `PaymentRequest::parse(body)?`.
/// 2. Check: `SELECT status, response FROM idempotency_keys WHERE key = $1`.
///    If a row is there, return `Reply::from_stored(status, response)`.
/// 3. Call `window.between_check_and_write().await;` (the tests hold every
///    request here until all of them have checked).
/// 4. Write: `INSERT INTO payments (order_id, amount) ... RETURNING id`, build
///    `Reply::created(id, &request)`, then `INSERT INTO idempotency_keys (key,
///    body_hash, status, response)` with `raw_body_hash(body)`,
///    `reply.status_code()` and `&reply.body`. Return the reply.
///
/// Run every query on `pool` directly: no transaction (that is stage 3).
pub async fn create_payment(
    pool: &PgPool,
    key: &str,
    body: &str,
    window: &RaceWindow,
) -> Result<Reply, PaymentError> {
    todo!(
        "stage 2: write create_payment as check-then-write (see the comment above, or `cargo workbook hint 2`)"
    )
}
