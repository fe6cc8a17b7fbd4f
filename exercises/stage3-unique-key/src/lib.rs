//! Stage 3: the unique key in the same transaction.
//!
//! Write `create_payment` so that 20 concurrent requests with one key make one
//! payment and all get the same 201. Run `cargo workbook stage 3`; `cargo workbook hint 3`
//! when stuck.

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

use payment_model::{PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::{Acquire, PgConnection, PgPool};

/// Creates the payment for `body` once per `key`, however many times it is called.
///
/// In ONE transaction:
/// 1. `INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`
///    and look at `rows_affected()`: 1 means this request owns the key.
/// 2. If it does: insert the payment, store `status` and `response` in the key's
///    row (`Reply::created(id, &request)`), and commit.
/// 3. If it does not: end the transaction, and return the stored answer
///    (`SELECT status, response ...`, then `Reply::from_stored`).
///
/// Two questions to think about before you write it: what does the INSERT of a
/// duplicate do while the first request's transaction is still open? And on which
/// connection do you read the stored answer?
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    todo!(
        "stage 3: reserve the key and pay in one transaction (see the comment above, or `cargo workbook hint 3`)"
    )
}
