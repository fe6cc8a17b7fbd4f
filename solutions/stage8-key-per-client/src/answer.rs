//! What a request answers: the payment it makes and records, or the answer stored
//! with its key, played again. Given to the learner as it is (the exercise compiles
//! this file with `#[path]`); stages 9 to 12 use it too.

use payment_model::{PaymentError, PaymentRequest, Reply};
use serde_json::Value;
use sqlx::PgConnection;

use crate::{ClientId, Config};

/// What the route answers, and whether it is a stored answer played again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub reply: Reply,
    /// True when `reply` is the stored answer of an earlier request with this
    /// client's key: the route then says `Idempotent-Replayed: true`.
    pub replayed: bool,
}

impl Answer {
    /// An answer made by this request: not a replay.
    pub fn first(reply: Reply) -> Self {
        Self {
            reply,
            replayed: false,
        }
    }
}

// ANCHOR: is_serialization_failure
/// SQLSTATE 40001 (serialization_failure) or 40P01 (deadlock_detected): the
/// transaction was rolled back by the server, and may simply be run again.
pub fn is_serialization_failure(e: &PaymentError) -> bool {
    matches!(e.sqlstate().as_deref(), Some("40001" | "40P01"))
}
// ANCHOR_END: is_serialization_failure

/// Makes the payment and stores its answer with the client's key, in the caller's
/// transaction: both commit together, or neither does.
pub async fn pay_and_record(
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
pub async fn stored_answer(
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
pub fn lock_timeout(config: &Config) -> String {
    format!("{}ms", config.in_flight_wait.as_millis().max(1))
}
