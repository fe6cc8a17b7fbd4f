//! `create_payment`, for one client: stage 5's transaction with the key's identity
//! `(client_id, key)`, retried when PostgreSQL reports a serialization failure.
//! What it answers with (`Answer`, `pay_and_record`, `stored_answer`) is in
//! `answer.rs`.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, PgConnection, PgPool};
use stage4::request_hash;

use crate::answer::{
    Answer, is_serialization_failure, lock_timeout, pay_and_record, stored_answer,
};
use crate::{ClientId, Config};

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
            let paid = async {
                restore_lock_wait(&mut tx, &previous).await?;
                pay_and_record(&mut tx, client, key, request).await
            }
            .await;
            match paid {
                Ok(reply) => {
                    tx.commit().await?;
                    Ok(Answer::first(reply))
                }
                Err(e) => {
                    // The key is ours: roll back before answering, as in stage 5.
                    // Dropping `tx` would only queue the ROLLBACK, and the key would
                    // stay locked after the 500 went out.
                    let _ = tx.rollback().await;
                    Err(e)
                }
            }
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
        // The INSERT failed: it reserved nothing, so dropping `tx` leaves no key
        // locked (a serialization failure is retried by `create_payment`).
        Err(e) => Err(e.into()),
    }
}
// ANCHOR_END: attempt_once

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
