//! `create_payment` with expiry: stage 8's transaction, in which a key older than
//! the retention window is taken over by the new request instead of replayed
//! (`reserve.rs`).

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, PgPool};
use stage4::request_hash;
use stage8::{
    Answer, ClientId, bound_lock_wait, is_serialization_failure, pay_and_record, restore_lock_wait,
    stored_answer,
};

use crate::Config;
use crate::reserve::reserve;

/// Creates the payment for `body` once per `(client, key)` within the retention
/// window. Run again, at most `config.route.attempts` times in all, after a
/// serialization failure, or when the reaper deleted the key between this
/// request's `INSERT` and its read of the stored answer.
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
            Err(e) if may_run_again(&e) && attempt < config.route.attempts => attempt += 1,
            done => return done,
        }
    }
}

/// A failed attempt that committed nothing and may simply be run again.
fn may_run_again(e: &PaymentError) -> bool {
    // The key was found unexpired, and reaped before its answer was read: it
    // expired in between, and the next attempt treats it as the new key it now is.
    is_serialization_failure(e) || matches!(e, PaymentError::MissingKeyRow(_))
}

// ANCHOR: attempt_once
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
    let previous = bound_lock_wait(&mut tx, &config.route).await?;
    let reserved = reserve(&mut tx, client, key, hash, config).await;
    match reserved {
        Ok(1) => {
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
                    // The key is ours: roll back before answering (stages 5 and 8).
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
        // locked.
        Err(e) => Err(e.into()),
    }
}
// ANCHOR_END: attempt_once
