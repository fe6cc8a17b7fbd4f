//! One attempt of `create_payment` on two machines: stage 8's transaction, on the
//! primary, whose COMMIT waits until the standby has the payment, and no longer
//! than the route's bound. `create_payment` (`retry.rs`) runs it again after a
//! serialization failure.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, PgConnection, Postgres, Transaction};
use stage8::{Answer, ClientId, bound_lock_wait, pay_and_record, restore_lock_wait, stored_answer};

use crate::{App, Commit};

// ANCHOR: attempt_once
/// One transaction on the primary: reserve `(client, key)`, then pay, replay or
/// refuse, as in stage 8. The paying transaction, and only it, waits for the
/// standby.
pub(crate) async fn attempt_once(
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
            let backend = wait_for_standby_on_commit(&mut tx).await?;
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

/// Makes this transaction's COMMIT return only once the standby has flushed it
/// (`on`; the server's default is `local`), and returns the session's process
/// id: what a cancel of that wait names.
pub async fn wait_for_standby_on_commit(tx: &mut PgConnection) -> Result<i32, PaymentError> {
    // `true`: for this transaction only, as SET LOCAL.
    let (_, backend): (String, i32) =
        sqlx::query_as("SELECT set_config('synchronous_commit', 'on', true), pg_backend_pid()")
            .fetch_one(tx)
            .await?;
    Ok(backend)
}
// ANCHOR_END: attempt_once

// ANCHOR: commit_within
/// Commits `tx`, whose session is `backend`, waiting at most
/// `app.config.commit_wait` for the standby's confirmation.
///
/// Past the bound, the wait is cancelled from `app.watchdog`: PostgreSQL ends it
/// with a warning ("the transaction has already committed locally, but might not
/// have been replicated to the standby"), and COMMIT returns. Neither
/// `statement_timeout` nor a closed connection ends that wait; a cancel does.
pub async fn commit_within(tx: Transaction<'_, Postgres>, backend: i32, app: &App) -> Commit {
    let bound = app.config.commit_wait;
    let commit = tx.commit();
    tokio::pin!(commit);
    match tokio::time::timeout(bound, &mut commit).await {
        Ok(Ok(())) => return Commit::Confirmed,
        Ok(Err(e)) => {
            eprintln!("POST /payments: COMMIT failed, its outcome unknown: {e}");
            return Commit::Unknown;
        }
        Err(_) => {}
    }
    // A cancel that arrives once the wait is over (the confirmation came just
    // now) finds the session idle, and PostgreSQL ignores it: harmless.
    let cancel = sqlx::query_scalar::<_, bool>("SELECT pg_cancel_backend($1)")
        .bind(backend)
        .fetch_one(&app.watchdog);
    match tokio::time::timeout(bound, cancel).await {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => eprintln!("POST /payments: pg_cancel_backend({backend}) found no session"),
        Ok(Err(e)) => eprintln!("POST /payments: pg_cancel_backend({backend}) failed: {e}"),
        Err(_) => eprintln!("POST /payments: the watchdog did not answer within {bound:?}"),
    }
    match tokio::time::timeout(bound, &mut commit).await {
        Ok(Ok(())) => {
            eprintln!(
                "POST /payments: the standby did not confirm within {bound:?}; committed on the \
                 primary, its wait cancelled"
            );
            Commit::Unconfirmed
        }
        Ok(Err(e)) => {
            eprintln!("POST /payments: COMMIT failed after its wait was cancelled: {e}");
            Commit::Unknown
        }
        Err(_) => {
            eprintln!("POST /payments: COMMIT still waits for the standby after the cancel");
            Commit::Unknown
        }
    }
}
// ANCHOR_END: commit_within
