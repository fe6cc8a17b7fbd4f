//! Stage 4: the same key with another body.
//!
//! `create_payment` below is stage 3's model answer (`cargo workbook stage 4` first
//! asks what it does with a used key and another body). Make it:
//! 1. hash a normalised body: write `request_hash` (sha2; key order and spacing
//!    must not matter), and store that hash instead of `raw_body_hash(body)`;
//! 2. compare: a used key whose stored `body_hash` differs is answered with
//!    `Reply::key_reused()` (422), and pays nothing.
//!
//! Run `cargo workbook stage 4`; `cargo workbook hint 4` when stuck.

// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables)]

use payment_model::{InvalidBody, PaymentError, PaymentRequest, Reply, hex, raw_body_hash};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::{Acquire, PgConnection, PgPool};

/// SHA-256 (hex) of the body in a canonical form, so that
/// `{"amount":100,"orderId":1}` and `{ "orderId": 1, "amount": 100 }` hash alike.
///
/// Parse it (`serde_json::from_str::<Value>`, mapping the error with
/// `InvalidBody::NotAPayment`), write it back with sorted keys and no spacing, and
/// hash that (`hex(&Sha256::digest(text.as_bytes()))`).
pub fn request_hash(body: &str) -> Result<String, InvalidBody> {
    todo!("stage 4: hash a normalised body (see the comment above, or `cargo workbook hint 4`)")
}

/// Creates the payment for `body` once per `key`. (Stage 3's answer: make it
/// refuse the key with another body.)
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;

    let reserved = sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(key)
    .bind(raw_body_hash(body))
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;

    if !reserved {
        tx.rollback().await?;
        return stored_reply(&mut conn, key).await;
    }

    let payment_id: i64 =
        sqlx::query_scalar("INSERT INTO payments (order_id, amount) VALUES ($1, $2) RETURNING id")
            .bind(request.order_id)
            .bind(request.amount)
            .fetch_one(&mut *tx)
            .await?;
    let reply = Reply::created(payment_id, &request);
    sqlx::query("UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1")
        .bind(key)
        .bind(reply.status_code())
        .bind(&reply.body)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(reply)
}

/// The answer stored with `key`. (It never looks at `body_hash`: that is your job.)
async fn stored_reply(conn: &mut PgConnection, key: &str) -> Result<Reply, PaymentError> {
    let (status, response) =
        sqlx::query_as("SELECT status, response FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_optional(conn)
            .await?
            .ok_or_else(|| PaymentError::MissingKeyRow(key.to_owned()))?;
    Ok(Reply::from_stored(status, response))
}
