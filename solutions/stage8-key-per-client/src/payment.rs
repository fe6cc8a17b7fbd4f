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
    /// An answer made by this request: not a replay.
    pub fn first(reply: Reply) -> Self {
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
    let mut attempt = 1;
    loop {
        match attempt_once(pool, client, key, &request, &hash, config).await {
            Err(e) if is_serialization_failure(&e) && attempt < config.attempts => attempt += 1,
            done => return done,
        }
    }
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
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let previous = bound_lock_wait(&mut tx, config).await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (client_id, key, body_hash) VALUES ($1, $2, $3)
         ON CONFLICT (client_id, key) DO NOTHING",
    )
    .bind(client.0)
    .bind(key)
    .bind(hash)
    .execute(&mut *tx)
    .await;
    match inserted {
        Ok(done) if done.rows_affected() == 1 => {
            restore_lock_wait(&mut tx, &previous).await?;
            let reply = pay_and_record(&mut tx, client, key, request).await?;
            tx.commit().await?;
            Ok(Answer::first(reply))
        }
        Ok(_) => {
            tx.rollback().await?;
            stored_answer(&mut conn, client, key, hash).await
        }
        // 55P03 lock_not_available: this client's first request still holds the key.
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => {
            tx.rollback().await?;
            Ok(Answer::first(Reply::in_flight()))
        }
        Err(e) => Err(e.into()),
    }
}
// ANCHOR_END: attempt_once

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

/// Bounds how long the reserving INSERT waits on another request's key, and
/// returns the `lock_timeout` in force before (the server's, the database's or
/// the role's), for [`restore_lock_wait`].
pub async fn bound_lock_wait(
    tx: &mut PgConnection,
    config: &Config,
) -> Result<String, PaymentError> {
    let previous: String = sqlx::query_scalar("SELECT current_setting('lock_timeout')")
        .fetch_one(&mut *tx)
        .await?;
    // `true`: local to this transaction; it ends with it, whatever happens.
    sqlx::query("SELECT set_config('lock_timeout', $1, true)")
        .bind(lock_timeout(config))
        .execute(&mut *tx)
        .await?;
    Ok(previous)
}

/// Puts back the setting [`bound_lock_wait`] replaced: only the INSERT runs
/// under our bound; the payment runs under the one its operators chose (setting
/// '0' instead would switch theirs off).
pub async fn restore_lock_wait(tx: &mut PgConnection, previous: &str) -> Result<(), PaymentError> {
    sqlx::query("SELECT set_config('lock_timeout', $1, true)")
        .bind(previous)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// `config.in_flight_wait` as a `lock_timeout` value.
pub fn lock_timeout(config: &Config) -> String {
    format!("{}ms", config.in_flight_wait.as_millis().max(1))
}
