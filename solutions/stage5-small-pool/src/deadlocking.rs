//! The deadlocking shape, kept on purpose: the seed's first TypeScript version
//! (`pool.query` while the request's client is still checked out), in Rust.
//!
//! The tests prove that the harness turns it into a failing test with the pool's
//! state in a few seconds, never a hang. Do not copy it.

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::PgPool;
use stage4::{pay_and_record, request_hash, reserve};

// ANCHOR: deadlock
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut tx = pool.begin().await?;
    if !reserve(&mut tx, key, &hash).await? {
        // `tx` is alive until the end of this block, holding its connection, and
        // this query asks the pool for another one. With every connection held by
        // a request doing the same, none is ever given back.
        let (stored_hash, status, response): (String, Option<i32>, Option<Value>) = sqlx::query_as(
            "SELECT body_hash, status, response FROM idempotency_keys WHERE key = $1",
        )
        .bind(key)
        .fetch_one(pool)
        .await?;
        if stored_hash != hash {
            return Ok(Reply::key_reused());
        }
        return Ok(Reply::from_stored(status, response));
    }
    let reply = pay_and_record(&mut tx, key, &request).await?;
    tx.commit().await?;
    Ok(reply)
}
// ANCHOR_END: deadlock
