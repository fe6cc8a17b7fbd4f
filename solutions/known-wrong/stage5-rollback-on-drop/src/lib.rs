//! Known wrong: stage 5's model answer, but a failed payment is returned with
//! `?`, dropping the transaction instead of rolling it back. sqlx only queues the
//! ROLLBACK of a dropped transaction, and sends it when the connection goes back to
//! the pool: the error is answered while the key is still locked.

use payment_model::{PaymentError, PaymentRequest, Reply};
use sqlx::{Acquire, PgConnection, PgPool};
use stage4_answer::{pay_and_record, request_hash, stored_reply};

/// How long a duplicate waits for the request in flight with its key.
///
/// The first request holds the key's lock for a few milliseconds when all is well;
/// a duplicate that waits longer than this is told to retry (409) rather than hold
/// a connection the pool needs for other keys.
pub const IN_FLIGHT_WAIT: &str = "250ms";

/// What reserving the key found.
enum Reservation {
    /// This request inserted the key: it pays.
    Ours,
    /// The key was committed by an earlier request: replay its answer.
    Answered,
    /// Another request holds the key and did not finish within [`IN_FLIGHT_WAIT`].
    InFlight,
}

/// Creates the payment for `body` once per `key`, on one connection, without
/// waiting unboundedly for another request.
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    let hash = request_hash(body)?;
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    match reserve_within_wait(&mut tx, key, &hash).await? {
        Reservation::Ours => {
            // The mistake: `?` returns the error, and `tx` is dropped. sqlx queues
            // its ROLLBACK, sent when the connection goes back to the pool.
            let reply = pay_and_record(&mut tx, key, &request).await?;
            tx.commit().await?;
            Ok(reply)
        }
        Reservation::Answered => {
            // Rolling back ends the transaction; the connection stays ours, so the
            // read below needs nothing more from the pool.
            tx.rollback().await?;
            stored_reply(&mut conn, key, &hash).await
        }
        Reservation::InFlight => {
            tx.rollback().await?;
            Ok(Reply::in_flight())
        }
    }
}

/// Inserts the key, waiting at most [`IN_FLIGHT_WAIT`] for a request in flight.
async fn reserve_within_wait(
    tx: &mut PgConnection,
    key: &str,
    hash: &str,
) -> Result<Reservation, PaymentError> {
    // The lock_timeout in force before ours (the server's, the database's or the
    // role's): put back after the INSERT, so that only the INSERT runs under our
    // bound and the payment runs under the setting its operators chose.
    let previous: String = sqlx::query_scalar("SELECT current_setting('lock_timeout')")
        .fetch_one(&mut *tx)
        .await?;
    // `true`: local to this transaction; it ends with it, whatever happens.
    sqlx::query("SELECT set_config('lock_timeout', $1, true)")
        .bind(IN_FLIGHT_WAIT)
        .execute(&mut *tx)
        .await?;
    let inserted = sqlx::query(
        "INSERT INTO idempotency_keys (key, body_hash) VALUES ($1, $2)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(key)
    .bind(hash)
    .execute(&mut *tx)
    .await;
    let reservation = match inserted {
        Ok(done) if done.rows_affected() == 1 => Reservation::Ours,
        Ok(_) => Reservation::Answered,
        // 55P03 lock_not_available: the first request still holds the key.
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => {
            return Ok(Reservation::InFlight);
        }
        Err(e) => return Err(e.into()),
    };
    sqlx::query("SELECT set_config('lock_timeout', $1, true)")
        .bind(&previous)
        .execute(&mut *tx)
        .await?;
    Ok(reservation)
}
