//! Stage 5: the pool smaller than the burst.
//!
//! `create_payment` below works with a pool of 20 connections and 20 requests.
//! Run `cargo workbook stage 5` and read what the tests saw with a pool of 5 or 10;
//! then make it:
//! 1. never ask the pool for a second connection while it holds one;
//! 2. wait only a bounded time for a request in flight with the same key, and
//!    answer `Reply::in_flight()` (409) past it, giving its connection back.
//!
//! `cargo workbook hint 5` when stuck.

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports)]

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::{Acquire, PgConnection, PgPool};
use stage4::{pay_and_record, request_hash, reserve, stored_reply};

pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut tx = pool.begin().await?;
    if !reserve(&mut tx, key, &hash).await? {
        // The key was used before: read the answer stored with it.
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
