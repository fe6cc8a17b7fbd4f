//! Stage 3: the key is reserved with a unique constraint, in the same transaction
//! as the payment. Twenty concurrent requests with one key make one payment, and
//! all twenty get the same `201`.

use payment_model::{PaymentError, PaymentRequest, Reply, raw_body_hash};
use sqlx::{Acquire, PgConnection, PgPool};

// ANCHOR: create_payment
/// Creates the payment for `body` once per `key`, however many times it is called.
pub async fn create_payment(pool: &PgPool, key: &str, body: &str) -> Result<Reply, PaymentError> {
    let request = PaymentRequest::parse(body)?;
    // One connection for the whole request: the transaction, and the read of the
    // stored answer after it. Asking the pool for a second one while holding this
    // one is how a small pool deadlocks (stage 5).
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;

    // ANCHOR: reserve
    // If another transaction has inserted this key and not yet ended, this INSERT
    // waits on that row's lock. When the other one commits, it does nothing (0 rows);
    // when it rolls back, this one inserts the key after all (1 row).
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
    // ANCHOR_END: reserve

    if !reserved {
        // Ours did nothing: end it, and read the answer the first request stored.
        tx.rollback().await?;
        return stored_reply(&mut conn, key).await;
    }

    // ANCHOR: effect
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
    // The key and the payment become visible together, or (on any error above,
    // when `tx` is dropped without a commit) vanish together.
    tx.commit().await?;
    // ANCHOR_END: effect
    Ok(reply)
}
// ANCHOR_END: create_payment

// ANCHOR: stored_reply
/// The answer stored with `key` by the request that reserved it.
async fn stored_reply(conn: &mut PgConnection, key: &str) -> Result<Reply, PaymentError> {
    let (status, response) =
        sqlx::query_as("SELECT status, response FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_optional(conn)
            .await?
            .ok_or_else(|| PaymentError::MissingKeyRow(key.to_owned()))?;
    Ok(Reply::from_stored(status, response))
}
// ANCHOR_END: stored_reply
