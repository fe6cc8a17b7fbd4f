//! Known wrong: the paying transaction waits for the standby, with no bound on
//! the wait: while the standby is away, the payment waits as long, and so does
//! its client.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, Postgres, Transaction};
use stage4::request_hash;
use stage8::{
    Answer, ClientId, bound_lock_wait, is_serialization_failure, pay_and_record, restore_lock_wait,
    stored_answer,
};

use crate::{App, Commit};

/// Creates the payment for `body` once per `(client, key)`: stage 8's
/// `create_payment`, run again after a serialization failure, on `app`'s primary.
pub async fn create_payment(
    app: &App,
    client: ClientId,
    key: &str,
    body: &str,
) -> Result<Answer, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut attempt = 1;
    loop {
        match attempt_once(app, client, key, &request, &hash).await {
            Err(e) if is_serialization_failure(&e) && attempt < app.config.route.attempts => {
                attempt += 1
            }
            done => return done,
        }
    }
}

// ANCHOR: attempt_once
/// One transaction on the primary: reserve `(client, key)`, then pay, replay or
/// refuse, as in stage 8. The paying transaction, and only it, waits for the
/// standby.
async fn attempt_once(
    app: &App,
    client: ClientId,
    key: &str,
    request: &PaymentRequest,
    hash: &str,
) -> Result<Answer, PaymentError> {
    let mut conn = app.primary.acquire().await?;
    let mut tx = conn.begin().await?;
    let previous = bound_lock_wait(&mut tx, &app.config.route).await?;
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
            // This COMMIT returns once the standby has flushed it (`on`; the
            // server's default is `local`). The backend's process id is what a
            // cancel of its wait names.
            let (_, backend): (String, i32) = sqlx::query_as(
                "SELECT set_config('synchronous_commit', 'on', true), pg_backend_pid()",
            )
            .fetch_one(&mut *tx)
            .await?;
            let reply = pay_and_record(&mut tx, client, key, request).await?;
            let commit = commit_within(tx, backend, app).await;
            if commit == Commit::Unknown {
                // Its COMMIT may still be in progress: the connection is closed,
                // never handed to another request.
                conn.close_on_drop();
            }
            Ok(commit.answer(reply))
        }
        Ok(_) => {
            // A replay rolls back, and a rollback never waits for the standby.
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

/// Commits `tx`, waiting for the standby's confirmation as long as it takes.
pub async fn commit_within(tx: Transaction<'_, Postgres>, backend: i32, app: &App) -> Commit {
    // The bug: no bound. While the standby is away, this waits as long.
    let _ = (backend, app);
    match tx.commit().await {
        Ok(()) => Commit::Confirmed,
        Err(e) => {
            eprintln!("POST /payments: COMMIT failed, its outcome unknown: {e}");
            Commit::Unknown
        }
    }
}
