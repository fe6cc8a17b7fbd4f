// The imports are what you will need; this allow goes once you use them.
#![allow(unused_imports, unused_variables, dead_code)]

//! `create_payment`, for one client: stage 5's transaction with the key's identity
//! `(client_id, key)`, retried when PostgreSQL reports a serialization failure.

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::{Acquire, PgConnection, PgPool};
use stage4::request_hash;

use crate::Config;
use crate::client::ClientId;

/// What the route answers, and whether it is a stored answer played again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub reply: Reply,
    /// True when `reply` is the stored answer of an earlier request with this
    /// client's key: the route then says `Idempotent-Replayed: true`.
    pub replayed: bool,
}

impl Answer {
    fn first(reply: Reply) -> Self {
        Self {
            reply,
            replayed: false,
        }
    }
}

// ANCHOR: create_payment
/// Creates the payment for `body` once per `(client, key)`.
///
/// A transaction that fails with a serialization failure (SQLSTATE 40001, or a
/// deadlock, 40P01) committed nothing: it is run again, at most
/// `config.attempts` times in all. Under `READ COMMITTED` this never happens;
/// under `REPEATABLE READ` or `SERIALIZABLE` every duplicate that waited for the
/// first request fails so, once, and its second attempt replays the answer.
pub async fn create_payment(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    body: &str,
    config: &Config,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    todo!(
        "stage 8: call attempt_once, again while it fails with a serialization failure, \
         at most config.attempts times in all (`cargo workbook hint 8`)"
    )
}

/// SQLSTATE 40001 (serialization_failure) or 40P01 (deadlock_detected): the
/// transaction was rolled back by the server, and may simply be run again.
pub fn is_serialization_failure(e: &PaymentError) -> bool {
    matches!(e.sqlstate().as_deref(), Some("40001" | "40P01"))
}
// ANCHOR_END: create_payment

// ANCHOR: attempt_once
/// One transaction: reserve `(client, key)`, then pay, replay or refuse.
async fn attempt_once(
    pool: &PgPool,
    client: ClientId,
    key: &str,
    request: &PaymentRequest,
    hash: &str,
    config: &Config,
) -> Result<Answer, PaymentError> {
    // Stage 5's transaction, on one connection, with the key's identity
    // (client_id, key): set the lock_timeout to `lock_timeout(config)` for the
    // reserving INSERT only (put the previous setting back after it, as stage 5
    // does), reserve the key with INSERT ... ON CONFLICT (client_id, key) DO
    // NOTHING, and then
    // - 1 row: pay_and_record, commit, `Answer::first(reply)`;
    // - 0 rows: roll back, then `stored_answer` on the same connection;
    // - SQLSTATE 55P03: roll back, `Answer::first(Reply::in_flight())`.
    todo!("stage 8: one transaction for this client's key (see the comment above)")
}
// ANCHOR_END: attempt_once

/// Makes the payment and stores its answer with the client's key, in the caller's
/// transaction: both commit together, or neither does.
async fn pay_and_record(
    tx: &mut PgConnection,
    client: ClientId,
    key: &str,
    request: &PaymentRequest,
) -> Result<Reply, PaymentError> {
    let payment_id: i64 = sqlx::query_scalar(
        "INSERT INTO payments (client_id, order_id, amount) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(client.0)
    .bind(request.order_id)
    .bind(request.amount)
    .fetch_one(&mut *tx)
    .await?;
    let reply = Reply::created(payment_id, request);
    sqlx::query(
        "UPDATE idempotency_keys SET status = $3, response = $4 WHERE client_id = $1 AND key = $2",
    )
    .bind(client.0)
    .bind(key)
    .bind(reply.status_code())
    .bind(&reply.body)
    .execute(tx)
    .await?;
    Ok(reply)
}

// ANCHOR: stored_answer
/// The answer stored with this client's key, played again; 422 if it was stored
/// for another body, 409 if the request that owns it is still in flight.
async fn stored_answer(
    conn: &mut PgConnection,
    client: ClientId,
    key: &str,
    hash: &str,
) -> Result<Answer, PaymentError> {
    let (stored_hash, status, response): (String, Option<i32>, Option<Value>) = sqlx::query_as(
        "SELECT body_hash, status, response FROM idempotency_keys
         WHERE client_id = $1 AND key = $2",
    )
    .bind(client.0)
    .bind(key)
    .fetch_optional(conn)
    .await?
    .ok_or_else(|| PaymentError::MissingKeyRow(key.to_owned()))?;
    if stored_hash != hash {
        return Ok(Answer::first(Reply::key_reused()));
    }
    let reply = Reply::from_stored(status, response);
    // Only a stored answer is a replay; "still in flight" is an answer of its own.
    let replayed = status.is_some();
    Ok(Answer { reply, replayed })
}
// ANCHOR_END: stored_answer

/// `config.in_flight_wait` as a `lock_timeout` value.
fn lock_timeout(config: &Config) -> String {
    format!("{}ms", config.in_flight_wait.as_millis().max(1))
}
